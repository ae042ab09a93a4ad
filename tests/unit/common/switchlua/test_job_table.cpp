// The job and step tables a script receives: each field under its name,
// nil where a value is absent, nothing else.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "common/switchlua/job_table.h"
#include "common/switchlua/script_call.h"
#include "switchlua_fixtures.h"

using namespace gantry::switchlua;
using namespace gantry::switchlua::test;

namespace {

SwitchJob fabricJob() {
  return SwitchJob{.jobId = 5120,
                   .sluid = "s0FABRIC7Q2K9",
                   .user = "mirela",
                   .userId = 2301,
                   .groupId = 2300,
                   .partition = "wide",
                   .name = "allreduce",
                   .account = "physics",
                   .nodes = "r[07-09]",
                   .nodeNames = {"r07", "r08", "r09"},
                   .numNodes = 3,
                   .numTasks = 24,
                   .network = "hsn:vni=2",
                   .batch = true,
                   .requeue = true,
                   .restartCount = 2,
                   .timeLimitMinutes = 95};
}

// Evaluates `expression` in slurm_switch_job_start(job) and returns it as text.
std::string field(const std::string& argument, const std::string& expression) {
  ScriptFile file("function slurm_switch_job_start(job)\n  return 0, { v = tostring(" + expression + ") }\nend\n");
  auto result = callFunction(file.path(), "slurm_switch_job_start", {argument}, nullptr);
  INFO(result.message);
  REQUIRE(result.dictionary == DictionaryStatus::Present);
  return nlohmann::json::parse(result.dictionaryJson)["v"].get<std::string>();
}

}  // namespace

TEST_CASE("job table: one field per row", "[switchlua][job]") {
  const std::string job = jobTableJson(fabricJob());
  struct FieldRow {
    std::string expression;
    std::string value;
  };
  const std::vector<FieldRow> rows = {
      {"job.job_id", "5120"},          {"job.sluid", "s0FABRIC7Q2K9"},
      {"job.user", "mirela"},          {"job.user_id", "2301"},
      {"job.group_id", "2300"},        {"job.partition", "wide"},
      {"job.name", "allreduce"},       {"job.account", "physics"},
      {"job.nodes", "r[07-09]"},       {"table.concat(job.node_list, ',')", "r07,r08,r09"},
      {"job.num_nodes", "3"},          {"job.num_tasks", "24"},
      {"job.network", "hsn:vni=2"},    {"job.batch", "true"},
      {"job.requeue", "true"},         {"job.restart_cnt", "2"},
      {"job.time_limit", "95"},        {"math.type(job.job_id)", "integer"},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.expression) { CHECK(field(job, row.expression) == row.value); }
  }
}

TEST_CASE("job table: absent values are nil", "[switchlua][job]") {
  SwitchJob job = fabricJob();
  job.partition.reset();
  job.account.reset();
  job.timeLimitMinutes.reset();
  job.nodeNames.clear();
  const std::string text = jobTableJson(job);
  CHECK(field(text, "job.partition") == "nil");
  CHECK(field(text, "job.account") == "nil");
  CHECK(field(text, "job.time_limit") == "nil");
  CHECK(field(text, "#job.node_list") == "0");
}

TEST_CASE("job table: it carries exactly the documented fields", "[switchlua][job]") {
  std::set<std::string> keys;
  const auto table = nlohmann::json::parse(jobTableJson(fabricJob()));
  for (const auto& [key, value] : table.items()) keys.insert(key);
  CHECK(keys == std::set<std::string>{"job_id", "sluid", "user", "user_id", "group_id", "partition", "name",
                                      "account", "nodes", "node_list", "num_nodes", "num_tasks", "network", "batch",
                                      "requeue", "restart_cnt", "time_limit"});
}

TEST_CASE("step table: job_id, partition (nil when none) and sluid", "[switchlua][job]") {
  ScriptFile file(
      "function slurm_switch_step_preinit(step, info)\n"
      "  slurm.log_info('%d %s %s %s', step.job_id, tostring(step.partition), step.sluid, tostring(info))\n"
      "  return 0\n"
      "end\n");
  SECTION("with a partition") {
    CapturedLog log;
    SwitchStep step{.jobId = 88, .partition = "short", .sluid = "s1STEPPED0000"};
    callFunction(file.path(), "slurm_switch_step_preinit", {stepTableJson(step), std::nullopt}, log.sink());
    CHECK(log.has(ScriptLogLevel::Info, "switch/lua: slurm_switch_step_preinit: 88 short s1STEPPED0000 nil"));
  }
  SECTION("without one") {
    CapturedLog log;
    SwitchStep step{.jobId = 89, .sluid = "s1STEPPED0001"};
    callFunction(file.path(), "slurm_switch_step_preinit", {stepTableJson(step), std::nullopt}, log.sink());
    CHECK(log.has(ScriptLogLevel::Info, "switch/lua: slurm_switch_step_preinit: 89 nil s1STEPPED0001 nil"));
  }
  std::set<std::string> keys;
  const auto table = nlohmann::json::parse(stepTableJson({.jobId = 1, .partition = "p", .sluid = "s"}));
  for (const auto& [key, value] : table.items()) keys.insert(key);
  CHECK(keys == std::set<std::string>{"job_id", "partition", "sluid"});
}
