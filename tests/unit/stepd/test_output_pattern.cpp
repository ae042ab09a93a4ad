#include <catch2/catch.hpp>

#include "stepd/core/output_pattern.h"
#include "stepd/core/sluid.h"

using namespace gantry::stepd;

TEST_CASE("output patterns expand every sequence", "[stepd][pattern]") {
  OutputPatternValues values{.job_id = 42, .user = "alice", .job_name = "train", .node_name = "n3",
                             .step_id = "0", .task_id = 5, .work_dir = "/home/alice"};
  CHECK(expandOutputPattern("slurm-%j.out", values) == "/home/alice/slurm-42.out");
  CHECK(expandOutputPattern("/tmp/%u-%x-%N-%s-%t.log", values) == "/tmp/alice-train-n3-0-5.log");
  CHECK(expandOutputPattern("100%%-%q", values) == "/home/alice/100%-%q");
  CHECK(expandOutputPattern("trailing%", values) == "/home/alice/trailing%");
  values.work_dir = "/w/";
  CHECK(expandOutputPattern("out", values) == "/w/out");
}

TEST_CASE("output patterns take Slurm's job.step, node index, array id and zero padding", "[stepd][pattern]") {
  OutputPatternValues values{.job_id = 913, .user = "bo", .job_name = "j", .node_name = "k7",
                             .step_id = "4", .task_id = 12, .node_id = 2, .work_dir = "/d"};
  struct Row {
    const char* rule;
    const char* pattern;
    const char* expanded;
  };
  const Row rows[] = {
      {"%J is job.step", "o.%J", "/d/o.913.4"},
      {"%n is the node's index in the step", "o.%n", "/d/o.2"},
      {"%A is the job id outside an array", "o.%A", "/d/o.913"},
      {"digits pad numbers with zeros", "o.%5j.%3t.%2n", "/d/o.00913.012.02"},
      {"padding never cuts", "o.%1j", "/d/o.913"},
      {"an unknown code stays as written, digits too", "o.%4q", "/d/o.%4q"},
      {"digits at the end stay as written", "o.%12", "/d/o.%12"},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    CHECK(expandOutputPattern(row.pattern, values) == row.expanded);
  }
  values.step_id = "batch";
  CHECK(expandOutputPattern("o.%J", values) == "/d/o.913");  // the batch step is the job alone
}

TEST_CASE("per-task patterns are recognised", "[stepd][pattern]") {
  CHECK(patternIsPerTask("out-%t"));
  CHECK(patternIsPerTask("out-%3t"));
  CHECK_FALSE(patternIsPerTask("out-%%t"));
  CHECK_FALSE(patternIsPerTask("out-%j"));
}

TEST_CASE("the job SLUID is stable and cluster specific", "[stepd][sluid]") {
  const auto a = jobSluid("gantry", 12);
  CHECK(a.size() == 14);
  CHECK(a.front() == 's');
  CHECK(a == jobSluid("gantry", 12));
  CHECK(a != jobSluid("gantry", 13));
  CHECK(a != jobSluid("other", 12));
}

TEST_CASE("output pattern: %A, %a and %b name the array and the task, as Slurm does outside one", "[stepd][pattern]") {
  OutputPatternValues task{.job_id = 511, .user = "u", .job_name = "sweep", .node_name = "g2", .step_id = "batch",
                           .task_id = 0, .node_id = 0, .work_dir = "/w", .array_job_id = 498, .array_task_id = 37};
  CHECK(expandOutputPattern("r-%A_%a-%b.%j", task) == "/w/r-498_37-7.511");
  CHECK(expandOutputPattern("%5a", task) == "/w/00037");
  OutputPatternValues plain = task;
  plain.array_job_id = 0;
  plain.array_task_id = -1;
  CHECK(expandOutputPattern("%A_%a", plain) == "/w/511_4294967294");
}
