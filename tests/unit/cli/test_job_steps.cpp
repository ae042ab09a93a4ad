#include <catch2/catch.hpp>

#include "cli/format_steps.h"
#include "cli/job_steps.h"
#include "cli_fixtures.h"

using namespace gantry::cli;
using namespace cli_fixtures;

namespace {

std::vector<StepRow> runningSteps() {
  return selectSteps({runningGpuJobWithSteps(), pendingJob()}, StepSelection{.only = {}, .runningOnly = true});
}

std::string render(const std::string& format) {
  auto parsed = parseStepFormat(format);
  REQUIRE(parsed.ok());
  return renderSteps(*parsed, runningSteps(), StepRenderOptions{.header = false, .now = kNow});
}

std::vector<std::string> ids(const std::vector<StepRow>& rows) {
  std::vector<std::string> out;
  for (const auto& row : rows) out.push_back(stepIdText(row));
  return out;
}

}  // namespace

TEST_CASE("squeue -s default columns list running steps only", "[cli][steps]") {
  useUtc();
  std::string out = renderSteps(defaultStepFormat(), runningSteps(),
                                StepRenderOptions{.header = true, .now = kNow});
  CHECK(out == golden("squeue_steps.txt", out));
  CHECK(out ==
        "         STEPID     NAME PARTITION     USER      TIME NODELIST\n"
        "           12.0 train.py       gpu    alice      1:40 gpu[1-2]\n"
        "           12.2 nvidia-s       gpu    alice      1:15 gpu2\n");
  CHECK_THAT(out, !Catch::Contains("12.1") && !Catch::Contains("12.3"));
}

TEST_CASE("squeue -s without a header and with each step code", "[cli][steps]") {
  useUtc();
  auto noHeader = renderSteps(defaultStepFormat(), runningSteps(),
                              StepRenderOptions{.header = false, .now = kNow});
  CHECK_THAT(noHeader, Catch::StartsWith("           12.0 train.py"));
  CHECK(render("%i") == "12.0\n12.2\n");
  CHECK(render("%j") == "train.py\nnvidia-smi\n");
  CHECK(render("%P %u %U") == "gpu alice 1000\ngpu alice 1000\n");
  CHECK(render("%M") == "1:40\n1:15\n");
  CHECK(render("%N") == "gpu[1-2]\ngpu2\n");
  CHECK(render("%A") == "4\n1\n");
  CHECK(render("%S") == "2026-11-30T09:58:20\n2026-11-30T09:58:45\n");
  CHECK(render("%l") == "UNLIMITED\nUNLIMITED\n");
  CHECK(render("%.6i|%-12j|") == "  12.0|train.py    |\n  12.2|nvidia-smi  |\n");
}

TEST_CASE("squeue -s -O field names", "[cli][steps]") {
  auto parsed = parseStepFieldList("StepId:6,StepName:11,NumCPUs:4,StepState:0");
  REQUIRE(parsed.ok());
  std::string out = renderSteps(*parsed, runningSteps(), StepRenderOptions{.header = true, .now = kNow});
  CHECK(out ==
        "STEPIDNAME       NUM_STATE\n"
        "12.0  train.py   4   RUNNING\n"
        "12.2  nvidia-smi 1   RUNNING\n");
}

TEST_CASE("squeue -s format errors name the option", "[cli][steps]") {
  // %t is a job code; steps have no state letter in Slurm's squeue.
  CHECK_THAT(parseStepFormat("%i %t").error(), Catch::Contains("-o/--format: unknown field code '%t'"));
  CHECK_THAT(parseStepFieldList("StepId,Reason").error(),
             Catch::Contains("-O/--Format: unknown field 'Reason'"));
}

TEST_CASE("step lists: jobid.stepid items and whole jobs", "[cli][steps]") {
  auto list = parseStepList("12.2,13,,7.0", "-s/--steps");
  REQUIRE(list.ok());
  REQUIRE(list->size() == 3);
  CHECK((*list)[0].jobId == 12);
  CHECK((*list)[0].stepId == 2u);
  CHECK((*list)[1].jobId == 13);
  CHECK_FALSE((*list)[1].stepId.has_value());
  CHECK(parseStepList("", "-s/--steps")->empty());
  for (const char* bad : {"12.", ".1", "12.batch", "x", "-1.0", "12.0.1", "12.99999999999"}) {
    INFO(bad);
    auto parsed = parseStepList(bad, "-s/--steps");
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error() == std::string("-s/--steps: invalid job step id '") + bad +
                                "' (expected <jobid>.<stepid>)");
  }
}

TEST_CASE("selecting steps by list, running or all", "[cli][steps]") {
  std::vector<gantry::v1::Job> jobs = {runningGpuJobWithSteps(), pendingJob()};
  auto only = [&](const std::string& list, bool runningOnly) {
    return ids(selectSteps(jobs, StepSelection{.only = parseStepList(list, "x").value(),
                                               .runningOnly = runningOnly}));
  };
  CHECK(only("", false) == std::vector<std::string>{"12.0", "12.1", "12.2", "12.3"});
  CHECK(only("", true) == std::vector<std::string>{"12.0", "12.2"});
  CHECK(only("12.2,12.1", true) == std::vector<std::string>{"12.2"});
  CHECK(only("12.1", false) == std::vector<std::string>{"12.1"});
  CHECK(only("12", true) == std::vector<std::string>{"12.0", "12.2"});
  CHECK(only("13,12.9", false).empty());
}

TEST_CASE("step state, run time and counts", "[cli][steps]") {
  auto job = runningGpuJobWithSteps();
  CHECK(stepStateName(job.steps(0)) == "RUNNING");
  CHECK(stepStateName(job.steps(1)) == "COMPLETED");
  CHECK(stepStateName(job.steps(3)) == "FAILED");
  CHECK(stepRunSeconds(job.steps(0), kNow) == 100);
  CHECK(stepRunSeconds(job.steps(1), kNow) == 1);  // ended: up to its end
  CHECK(stepCpuCount(job.steps(0)) == 4);          // allocated cores
  CHECK(stepCpuCount(job.steps(2)) == 1);          // no allocation: its tasks
  CHECK(stepNodeCount(job.steps(0)) == 2);
  CHECK(stepNodeCount(job.steps(2)) == 1);
}

TEST_CASE("steps as JSON carry their id, job and state", "[cli][steps][json]") {
  auto json = stepsToJson(runningSteps());
  REQUIRE(json["steps"].size() == 2);
  const auto& first = json["steps"][0];
  CHECK(first["id"] == "12.0");
  CHECK(first["job_id"] == 12);
  CHECK(first["step_id"] == 0);
  CHECK(first["name"] == "train.py");
  CHECK(first["user"] == "alice");
  CHECK(first["partition"] == "gpu");
  CHECK(first["state"] == "RUNNING");
  CHECK(first["start_time"] == kNow - 100);
  CHECK(first["allocation"].size() == 2);
}
