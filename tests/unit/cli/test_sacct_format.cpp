// sacct's columns and tables: field text, Slurm's widths and truncation,
// -p/-P, --units and the JSON shape. Numbers and names are our own.
#include <catch2/catch.hpp>

#include "cli/accounting_table.h"
#include "cli/json_render.h"
#include "cli/sacct_fields.h"
#include "cli_fixtures.h"

using namespace gantry;
using namespace gantry::cli;

namespace {

constexpr int64_t kSubmit = 1790000000;  // 2026-09-21T14:13:20 UTC

v1::AccountingJob finishedStep() {
  v1::AccountingJob job;
  job.set_cluster("orion");
  job.set_job_id(4711);
  job.set_step_id("3");
  job.set_name("lattice");
  job.set_user("mira");
  job.set_uid(2345);
  job.set_group("physics");
  job.set_gid(880);
  job.set_account("qcd");
  job.set_partition("gpuq");
  job.set_submit_time(kSubmit);
  job.set_eligible_time(kSubmit);
  job.set_start_time(kSubmit + 60);
  job.set_end_time(kSubmit + 60 + 3725);
  job.set_state("COMPLETED");
  job.set_node_count(2);
  job.set_node_list("gn[07-08]");
  job.set_alloc_cpus(24);
  job.set_tres_usage_in_max("cpu=00:41:09,energy=0,fs/disk=5120,mem=1048576K,pages=3,vmem=0");
  job.set_tres_usage_in_max_node("cpu=gn08,energy=gn07,fs/disk=gn07,mem=gn07,pages=gn08,vmem=gn07");
  job.set_tres_usage_in_max_task("cpu=5,energy=0,fs/disk=0,mem=2,pages=5,vmem=0");
  job.set_tres_usage_in_ave("cpu=1-02:00:03,energy=0,fs/disk=2048,mem=322000K,pages=1,vmem=0");
  job.set_tres_usage_in_min("cpu=00:00:04,mem=1536");
  job.set_tres_usage_in_tot("cpu=02:10:00,mem=999K");
  return job;
}

std::string cell(const std::string& field, const v1::AccountingJob& job, SacctCellContext context = {}) {
  return sacctCell(field, job, context);
}

}  // namespace

TEST_CASE("sacct field text", "[cli][sacct][format]") {
  cli_fixtures::useUtc();
  v1::AccountingJob step = finishedStep();
  v1::AccountingJob job = step;
  job.set_step_id("");
  job.set_has_time_limit(true);
  job.set_time_limit_minutes(90);
  v1::AccountingJob batch = step;
  batch.set_step_id("batch");
  v1::AccountingJob running = job;
  running.set_end_time(0);
  running.set_state("RUNNING");
  v1::AccountingJob pending = job;
  pending.set_start_time(0);
  pending.set_end_time(0);
  pending.set_eligible_time(0);
  pending.set_node_list("");
  pending.set_state("PENDING");
  pending.clear_tres_usage_in_max();
  v1::AccountingJob cancelled = job;
  cancelled.set_state("CANCELLED");
  cancelled.set_has_cancelled_by(true);
  cancelled.set_cancelled_by_uid(6021);
  cancelled.mutable_exit_code()->set_code(0);
  cancelled.mutable_exit_code()->set_signal(15);
  cancelled.mutable_derived_exit_code()->set_code(3);
  v1::AccountingJob unlimited = job;
  unlimited.set_has_time_limit(false);
  v1::AccountingJob longLimit = job;
  longLimit.set_time_limit_minutes(3 * 1440 + 75);
  v1::AccountingJob task = job;  // task 6 of array 4700, started as job 4711
  task.set_array_job_id(4700);
  task.set_has_array_task(true);
  task.set_array_task_id(6);
  v1::AccountingJob taskBatch = task;
  taskBatch.set_step_id("batch");
  v1::AccountingJob notStarted = pending;  // the array's own record
  notStarted.set_job_id(4700);
  notStarted.set_array_job_id(4700);
  notStarted.set_array_tasks("7-30:3");

  struct Row {
    const char* rule;
    const char* field;
    const v1::AccountingJob* job;
    std::string expected;
  };
  const int64_t now = kSubmit + 600;
  const Row rows[] = {
      {"a job's id is its number", "JobID", &job, "4711"},
      {"a numbered step is N.S", "JobID", &step, "4711.3"},
      {"the batch step is N.batch", "JobIDRaw", &batch, "4711.batch"},
      {"an array task is ARRAY_TASK", "JobID", &task, "4700_6"},
      {"an array task's step is ARRAY_TASK.STEP", "JobID", &taskBatch, "4700_6.batch"},
      {"an array task's raw id is its own job id", "JobIDRaw", &taskBatch, "4711.batch"},
      {"the array's tasks not yet started are ARRAY_[TASKS]", "JobID", &notStarted, "4700_[7-30:3]"},
      {"names are printed as stored", "JobName", &job, "lattice"},
      {"user and uid", "User", &job, "mira"},
      {"uid", "UID", &job, "2345"},
      {"group", "Group", &job, "physics"},
      {"gid", "GID", &job, "880"},
      {"account", "Account", &job, "qcd"},
      {"partition", "Partition", &job, "gpuq"},
      {"cluster", "Cluster", &job, "orion"},
      {"dates are local ISO times", "Submit", &job, "2026-09-21T14:13:20"},
      {"start", "Start", &job, "2026-09-21T14:14:20"},
      {"end", "End", &job, "2026-09-21T15:16:25"},
      {"a running job's end is Unknown", "End", &running, "Unknown"},
      {"a pending job's start is Unknown", "Start", &pending, "Unknown"},
      {"a never eligible job's Eligible is Unknown", "Eligible", &pending, "Unknown"},
      {"elapsed is end minus start", "Elapsed", &job, "01:02:05"},
      {"a running job's elapsed runs to now", "Elapsed", &running, "00:09:00"},
      {"a pending job has run for nothing", "ElapsedRaw", &pending, "0"},
      {"ElapsedRaw is seconds", "ElapsedRaw", &job, "3725"},
      {"a limit is HH:MM:SS", "Timelimit", &job, "01:30:00"},
      {"a limit of days is D-HH:MM:SS", "Timelimit", &longLimit, "3-01:15:00"},
      {"a job without a limit is UNLIMITED", "Timelimit", &unlimited, "UNLIMITED"},
      {"a step without a limit shows none", "Timelimit", &step, ""},
      {"states as stored", "State", &job, "COMPLETED"},
      {"CANCELLED by UID", "State", &cancelled, "CANCELLED by 6021"},
      {"exit code is code:signal", "ExitCode", &cancelled, "0:15"},
      {"derived exit code", "DerivedExitCode", &cancelled, "3:0"},
      {"nodes", "NNodes", &job, "2"},
      {"node list", "NodeList", &job, "gn[07-08]"},
      {"a job without nodes has None assigned", "NodeList", &pending, "None assigned"},
      {"allocated CPUs", "AllocCPUS", &job, "24"},
      {"usage strings as stored", "TRESUsageInMaxNode", &step,
       "cpu=gn08,energy=gn07,fs/disk=gn07,mem=gn07,pages=gn08,vmem=gn07"},
      {"MaxRSS is the mem of TRESUsageInMax, in exact units", "MaxRSS", &step, "1G"},
      {"MaxRSSNode is the node of that mem", "MaxRSSNode", &step, "gn07"},
      {"MaxRSSTask is the task of that mem", "MaxRSSTask", &step, "2"},
      {"AveRSS keeps what would be lost in a larger unit", "AveRSS", &step, "322000K"},
      {"AveCPU is the cpu of TRESUsageInAve", "AveCPU", &step, "1-02:00:03"},
      {"MinCPU is the cpu of TRESUsageInMin", "MinCPU", &step, "00:00:04"},
      {"TotalCPU is the cpu of TRESUsageInTot", "TotalCPU", &step, "02:10:00"},
      {"a job line without usage leaves MaxRSS empty", "MaxRSS", &pending, ""},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    CHECK(cell(row.field, *row.job, SacctCellContext{.now = now, .units = std::nullopt}) == row.expected);
  }
}

TEST_CASE("sacct memory units", "[cli][sacct][format]") {
  struct Row {
    const char* rule;
    double bytes;
    std::optional<char> unit;
    std::string expected;
  };
  const Row rows[] = {
      {"zero is a bare 0", 0, std::nullopt, "0"},
      {"bytes that do not divide stay bytes", 1000, std::nullopt, "1000"},
      {"an exact half is kept as .50", 1536, std::nullopt, "1.50K"},
      {"divides while nothing is lost", 3.0 * 1024 * 1024 * 1024, std::nullopt, "3G"},
      {"stops where it would lose precision", 700001.0 * 1024, std::nullopt, "700001K"},
      {"--units converts, with two decimals", 700001.0 * 1024, 'M', "683.59M"},
      {"--units to a smaller unit multiplies", 2.0 * 1024 * 1024, 'K', "2048K"},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    CHECK(formatMemory(row.bytes, row.unit) == row.expected);
  }
  v1::AccountingJob step = finishedStep();
  CHECK(sacctCell("MaxRSS", step, SacctCellContext{.units = 'M'}) == "1024M");
  CHECK(sacctCell("MinCPU", step, SacctCellContext{}) == "00:00:04");
}

TEST_CASE("sacct --format names, widths and repeats", "[cli][sacct][format]") {
  SECTION("the default is Slurm's seven fields") {
    std::vector<std::string> names;
    for (const auto& field : defaultSacctFields()) names.push_back(field.name);
    CHECK(names == std::vector<std::string>{"JobID", "JobName", "Partition", "Account", "AllocCPUS", "State",
                                            "ExitCode"});
  }
  SECTION("names are case-insensitive and keep Slurm's widths") {
    auto fields = parseSacctFields({"jobid,MAXRSS,tresusageinave,nodelist"});
    REQUIRE(fields.ok());
    REQUIRE(fields->size() == 4);
    CHECK((*fields)[0].name == "JobID");
    CHECK((*fields)[0].column.width == -12);
    CHECK((*fields)[1].name == "MaxRSS");
    CHECK((*fields)[2].column.width == 14);
    CHECK((*fields)[3].column.width == 15);
  }
  SECTION("%N sets the width, negative left-justifies") {
    auto fields = parseSacctFields({"JobName%25,State%-4"});
    REQUIRE(fields.ok());
    CHECK((*fields)[0].column.width == 25);
    CHECK((*fields)[1].column.width == -4);
  }
  SECTION("a name may be shortened to its first letters") {
    auto fields = parseSacctFields({"allocc,derived"});
    REQUIRE(fields.ok());
    CHECK((*fields)[0].name == "AllocCPUS");
    CHECK((*fields)[1].name == "DerivedExitCode");
  }
  SECTION("--format given twice adds the second list") {
    auto fields = parseSacctFields({"JobID", "User,Elapsed"});
    REQUIRE(fields.ok());
    CHECK(fields->size() == 3);
    CHECK((*fields)[2].name == "Elapsed");
  }
  SECTION("an unknown field is refused by name") {
    auto fields = parseSacctFields({"JobID,Colour"});
    REQUIRE_FALSE(fields.ok());
    CHECK_THAT(fields.error(), Catch::Contains("\"Colour\""));
  }
  SECTION("a bad width is refused") {
    auto fields = parseSacctFields({"JobID%x"});
    REQUIRE_FALSE(fields.ok());
    CHECK_THAT(fields.error(), Catch::Contains("JobID%x"));
  }
  SECTION("--helpformat lists every field") {
    std::string help = sacctHelpFormat();
    for (const char* name : {"JobIDRaw", "TRESUsageInMinTask", "MaxRSSTask", "WorkDir", "Comment", "Reason"}) {
      CHECK_THAT(help, Catch::Contains(name));
    }
  }
}

TEST_CASE("sacct tables", "[cli][sacct][format]") {
  cli_fixtures::useUtc();
  v1::AccountingJob job = finishedStep();
  job.set_step_id("");
  v1::AccountingJob cancelled = job;
  cancelled.set_job_id(4712);
  cancelled.set_state("CANCELLED");
  cancelled.set_has_cancelled_by(true);
  cancelled.set_cancelled_by_uid(6021);
  std::vector<v1::AccountingJob> jobs{job, cancelled};
  auto fields = parseSacctFields({"JobID,State,AllocCPUS%3,JobName%4"});
  REQUIRE(fields.ok());

  SECTION("header, dashes, right and left justification, '+' truncation") {
    std::string out = renderSacct(*fields, jobs, TableStyle{}, {});
    CHECK(out ==
          "JobID             State All JobN \n"
          "------------ ---------- --- ---- \n"
          "4711          COMPLETED  24 lat+ \n"
          "4712         CANCELLED+  24 lat+ \n");
  }
  SECTION("numbers are never cut") {
    auto narrow = parseSacctFields({"UID%2"});
    REQUIRE(narrow.ok());
    CHECK(renderSacct(*narrow, {job}, TableStyle{.header = false}, {}) == "2345 \n");
  }
  SECTION("-n drops the header") {
    std::string out = renderSacct(*fields, jobs, TableStyle{.header = false}, {});
    CHECK(out.rfind("4711", 0) == 0);
  }
  SECTION("-p ends every field with '|', nothing cut") {
    std::string out = renderSacct(*fields, jobs, TableStyle{.parsable = Parsable::Trailing}, {});
    CHECK(out ==
          "JobID|State|AllocCPUS|JobName|\n"
          "4711|COMPLETED|24|lattice|\n"
          "4712|CANCELLED by 6021|24|lattice|\n");
  }
  SECTION("-P puts '|' only between fields") {
    std::string out = renderSacct(*fields, jobs, TableStyle{.header = false, .parsable = Parsable::NoTrailing}, {});
    CHECK(out == "4711|COMPLETED|24|lattice\n4712|CANCELLED by 6021|24|lattice\n");
  }
  SECTION("the TRES usage strings come out whole under -p") {
    v1::AccountingJob step = finishedStep();
    auto ave = parseSacctFields({"tresusageinave"});
    REQUIRE(ave.ok());
    CHECK(renderSacct(*ave, {step}, TableStyle{.parsable = Parsable::Trailing}, {}) ==
          "TRESUsageInAve|\ncpu=1-02:00:03,energy=0,fs/disk=2048,mem=322000K,pages=1,vmem=0|\n");
  }
}

TEST_CASE("sacct --json shape", "[cli][sacct][json]") {
  v1::AccountingJob step = finishedStep();
  step.mutable_exit_code()->set_code(0);  // the controller always sends both exit codes
  nlohmann::json out = listToJson("jobs", std::vector<v1::AccountingJob>{step});
  REQUIRE(out.contains("jobs"));
  REQUIRE(out["jobs"].size() == 1);
  const auto& record = out["jobs"][0];
  CHECK(record["job_id"] == 4711);
  CHECK(record["step_id"] == "3");
  CHECK(record["user"] == "mira");
  CHECK(record["exit_code"]["signal"] == 0);
  CHECK(record["tres_usage_in_max"] == step.tres_usage_in_max());
  CHECK(record.contains("comment"));
}

TEST_CASE("sacct Group: a record without a group name is named from its gid, the number when it has none",
          "[cli][sacct]") {
  std::vector<v1::AccountingJob> jobs(4, finishedStep());
  jobs[0].set_group("");
  jobs[0].set_gid(7301);
  jobs[1].set_group("");
  jobs[1].set_gid(7302);
  jobs[2].set_group("");
  jobs[2].set_gid(7301);
  jobs[3].set_group("chem");  // a name the record already has is kept
  std::vector<uint32_t> asked;
  fillGroupNames(jobs, [&](uint32_t gid) {
    asked.push_back(gid);
    return gid == 7301 ? std::string("optics") : std::to_string(gid);
  });
  CHECK(asked == std::vector<uint32_t>{7301, 7302});  // once per gid
  CHECK(sacctCell("Group", jobs[0], {}) == "optics");
  CHECK(sacctCell("Group", jobs[1], {}) == "7302");
  CHECK(sacctCell("Group", jobs[2], {}) == "optics");
  CHECK(sacctCell("Group", jobs[3], {}) == "chem");
  auto fields = parseSacctFields({"JobID,Group%8"});
  REQUIRE(fields.ok());
  std::vector<v1::AccountingJob> one = {jobs[0]};
  CHECK(renderSacct(*fields, one, TableStyle{.header = false, .parsable = Parsable::NoTrailing}, {}) ==
        "4711.3|optics\n");
  CHECK(listToJson("jobs", one)["jobs"][0]["group"] == "optics");
}
