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

TEST_CASE("per-task patterns are recognised", "[stepd][pattern]") {
  CHECK(patternIsPerTask("out-%t"));
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
