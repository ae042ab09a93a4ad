// docs/compatibility.md carries tables generated from the code: every
// command's options (from the CLI::App it declares), the columns of squeue,
// sinfo, sacct and sacctmgr (from their field tables), and the keys of
// scontrol's records (from records rendered with every field filled). This
// test fails when a table and the code differ; run it with
// GANTRY_UPDATE_DOCS=1 to rewrite the tables after a change.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "cli/format_sinfo.h"
#include "cli/format_sprio.h"
#include "cli/format_squeue.h"
#include "cli/format_steps.h"
#include "cli/job_options.h"
#include "cli/query_options.h"
#include "cli/sacct_fields.h"
#include "cli/sacct_options.h"
#include "cli/sacctmgr_event.h"
#include "cli/scontrol_render.h"
#include "cli/srun_options.h"
#include "cli/usage_text.h"
#include "cli_fixtures.h"

using namespace gantry::cli;

namespace {

std::string launcherTable(const std::string& command) {
  const std::string origin = "command line";
  SbatchOptions options;
  InteractiveInvocation launcher;
  CLI::App app{command, command};
  if (command == "sbatch") {
    declareSbatchOptions(app, options, &origin);
  } else {
    declareInteractiveOptions(app, command, options, launcher, &origin);
  }
  return renderOptionTable(app);
}

template <typename Options>
std::string queryTable(void (*declare)(CLI::App&, Options&)) {
  Options options;
  CLI::App app{"", ""};
  declare(app, options);
  return renderOptionTable(app);
}

std::string sacctTable() {
  SacctOptions options;
  CLI::App app{"", ""};
  addSacctOptions(app, options);
  return renderOptionTable(app);
}

std::string code(const std::string& text) { return text.empty() ? "" : "`" + text + "`"; }

std::string columnTable(const std::vector<ColumnName>& columns, bool withCode) {
  std::string out = withCode ? "| `-o` | `-O` | header |\n|---|---|---|\n" : "| `-O` | header |\n|---|---|\n";
  for (const ColumnName& column : columns) {
    if (withCode) out += column.code.empty() ? "| " : "| " + code("%" + column.code) + " ";
    out += "| " + code(column.name) + " | " + column.header + " |\n";
  }
  return out;
}

// Names as one comma list, each in backquotes.
std::string nameList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + code(name);
  return out + "\n";
}

// The keys of scontrol records ("Key=" after a space or a line start), in
// the order first seen.
std::vector<std::string> recordKeys(const std::vector<std::string>& records) {
  static const std::regex key(R"((?:^|\s)([A-Za-z][A-Za-z0-9_:/]*)=)");
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const std::string& record : records) {
    for (std::sregex_iterator it(record.begin(), record.end(), key), end; it != end; ++it) {
      std::string name = (*it)[1];
      if (seen.insert(name).second) keys.push_back(name);
    }
  }
  return keys;
}

RenderOptions detailed() {
  return RenderOptions{.details = true, .now = cli_fixtures::kNow, .groupName = [](uint32_t) { return "users"; }};
}

// Keys printed only for what a job asked are filled in across two jobs,
// where one job cannot ask both (--gpus and --gpus-per-task).
std::vector<std::string> jobKeys() {
  gantry::v1::Job running = cli_fixtures::runningGpuJobWithSteps();
  running.set_sluid("S0K3M9X2D4TQ8W");
  gantry::v1::JobSpec& spec = *running.mutable_spec();
  running.set_req_tres("cpu=8,mem=4G,node=2,billing=8,gres/gpu=4");
  running.set_alloc_tres("cpu=8,mem=4G,node=2,billing=8,gres/gpu=4");
  spec.set_mem_per_cpu_mb(512);
  spec.set_tres_bind("gres/gpu:closest");
  spec.set_gpus_per_task(1);
  spec.set_cpus_per_gpu(2);
  spec.set_mem_per_gpu_mb(1024);
  spec.set_gpu_freq("high");
  spec.set_network("fabric=ib");
  for (const char* flag : {"enforce-binding", "enforce-links", "ignore-links"}) spec.add_gres_flags(flag);
  gantry::v1::Job pending = cli_fixtures::pendingJob();
  pending.mutable_spec()->set_gpus(4);
  pending.mutable_spec()->set_gpus_per_socket(2);
  return recordKeys({renderJob(running, detailed()), renderJob(pending, detailed())});
}

std::vector<std::string> nodeKeys() {
  std::vector<std::string> records;
  for (gantry::v1::Node node : cli_fixtures::clusterNodes()) {
    node.set_restricted_cores_per_gpu("2(0-3)");
    node.set_max_drained_tres("gres/gpu=1");
    node.set_drained_tres("gres/gpu=1");
    node.set_gres_chunks("gpu:(0-1)");
    node.set_reason("maintenance");
    node.set_reason_user("root");
    records.push_back(renderNode(node, detailed()));
  }
  return recordKeys(records);
}

std::vector<std::string> partitionKeys() {
  std::vector<std::string> records;
  for (const gantry::v1::Partition& partition : cli_fixtures::clusterPartitions()) {
    records.push_back(renderPartition(partition, detailed()));
  }
  return recordKeys(records);
}

std::vector<std::string> stepKeys() {
  gantry::v1::Job job = cli_fixtures::runningGpuJobWithSteps();
  std::vector<std::string> records;
  for (const gantry::v1::JobStep& step : job.steps()) {
    StepRow row{.jobId = job.job_id(), .user = job.user(), .uid = job.uid(), .partition = job.spec().partition(),
                .step = step};
    records.push_back(renderStep(row, detailed()));
    row.step.set_running(false);
    records.push_back(renderStep(row, detailed()));
  }
  return recordKeys(records);
}

// Each table by its marker name: "<!-- generated: NAME -->" ... "<!-- end of NAME -->".
std::map<std::string, std::function<std::string()>> generatedTables() {
  return {
      {"sbatch options", [] { return launcherTable("sbatch"); }},
      {"srun options", [] { return launcherTable("srun"); }},
      {"salloc options", [] { return launcherTable("salloc"); }},
      {"squeue options", [] { return queryTable(&declareSqueueOptions); }},
      {"sinfo options", [] { return queryTable(&declareSinfoOptions); }},
      {"scancel options", [] { return queryTable(&declareScancelOptions); }},
      {"scontrol options", [] { return queryTable(&declareScontrolOptions); }},
      {"sacct options", [] { return sacctTable(); }},
      {"sacctmgr options", [] { return queryTable(&declareSacctmgrOptions); }},
      {"sprio options", [] { return queryTable(&declareSprioOptions); }},
      {"sshare options", [] { return queryTable(&declareSshareOptions); }},
      {"sprio columns",
       [] {
         std::string out = "| `-o` | header |\n|---|---|\n";
         for (const ColumnName& column : sprioColumns()) out += "| " + code("%" + column.code) + " | " + column.header + " |\n";
         return out;
       }},
      {"squeue columns", [] { return columnTable(squeueColumns(), true); }},
      {"squeue step columns", [] { return columnTable(stepColumns(), true); }},
      {"sinfo columns", [] { return columnTable(sinfoColumns(), true); }},
      {"sacct fields", [] { return nameList(sacctFieldNames()); }},
      {"sacctmgr event fields", [] { return nameList(eventFieldNames()); }},
      {"scontrol job keys", [] { return nameList(jobKeys()); }},
      {"scontrol node keys", [] { return nameList(nodeKeys()); }},
      {"scontrol partition keys", [] { return nameList(partitionKeys()); }},
      {"scontrol step keys", [] { return nameList(stepKeys()); }},
  };
}

}  // namespace

TEST_CASE("docs/compatibility.md carries the tables the code generates", "[cli][docs]") {
  const std::string path = "docs/compatibility.md";
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream read;
  read << in.rdbuf();
  std::string doc = read.str();
  const bool update = std::getenv("GANTRY_UPDATE_DOCS") != nullptr;
  for (const auto& [name, generate] : generatedTables()) {
    const std::string begin = "<!-- generated: " + name + " -->\n";
    const std::string end = "<!-- end of " + name + " -->";
    size_t from = doc.find(begin);
    size_t to = doc.find(end);
    INFO(name << ": docs/compatibility.md needs the markers '" << begin << "' and '" << end << "'");
    REQUIRE(from != std::string::npos);
    REQUIRE(to != std::string::npos);
    from += begin.size();
    std::string expected = generate();
    if (update) {
      doc.replace(from, to - from, expected);
      continue;
    }
    INFO(name << ": the table differs; run the test with GANTRY_UPDATE_DOCS=1");
    CHECK(doc.substr(from, to - from) == expected);
  }
  if (update) std::ofstream(path) << doc;
}

TEST_CASE("the generated tables list what the commands take", "[cli][docs]") {
  auto tables = generatedTables();
  CHECK_THAT(tables["squeue options"](), Catch::Contains("| `-t, --states=state(s)` | supported |"));
  CHECK_THAT(tables["scancel options"](), Catch::Contains("`-s, --signal=name\\|number`"));
  CHECK_THAT(tables["squeue columns"](), Catch::Contains("| `%i` | `jobarrayid` | JOBID |"));
  CHECK_THAT(tables["squeue columns"](), Catch::Contains("| `%A` | `jobid` | JOBID |"));
  CHECK_THAT(tables["squeue columns"](), Catch::Contains("| `%r` | `reason` | REASON |"));
  CHECK_THAT(tables["sacct fields"](), Catch::Contains("`MaxRSS`"));
  CHECK_THAT(tables["sacctmgr event fields"](), Catch::Contains("`TimeStart (Start)`"));
  std::string jobKeys = tables["scontrol job keys"]();
  for (const char* key : {"JobId", "JobState", "TresBind", "SLUID", "CPU_IDs", "GRES", "MinMemoryCPU", "ReqTRES",
                          "AllocTRES"}) {
    INFO(key);
    CHECK_THAT(jobKeys, Catch::Contains(std::string("`") + key + "`"));
  }
  CHECK_THAT(tables["scontrol node keys"](), Catch::Contains("`RestrictedCoresPerGPU`"));
  CHECK_THAT(tables["scontrol node keys"](), Catch::Contains("`CfgTRES`, `AllocTRES`"));
  CHECK_THAT(tables["scontrol step keys"](), Catch::Contains("`ExitCode`"));
}
