#include "cli/array_ids.h"

#include <catch2/catch.hpp>
#include <cstdlib>

using gantry::cli::arrayJobIdText;
using gantry::cli::arrayTaskText;
using gantry::cli::expandArrayRecords;
using gantry::cli::jobMatches;
using gantry::cli::JobTarget;
using gantry::cli::parseJobTarget;
using gantry::cli::splitJobList;

namespace {

gantry::v1::Job pendingPart(uint64_t array, const std::string& pending, uint32_t throttle = 0) {
  gantry::v1::Job job;
  job.set_job_id(array);
  job.set_array_job_id(array);
  job.set_array_pending(pending);
  job.set_array_throttle(throttle);
  return job;
}

gantry::v1::Job task(uint64_t id, uint64_t array, uint32_t index) {
  gantry::v1::Job job;
  job.set_job_id(id);
  job.set_array_job_id(array);
  job.set_array_task_id(index);
  return job;
}

}  // namespace

TEST_CASE("array ids: a job, a task and a task list, as users type them", "[cli][array]") {
  struct Row { const char* typed; uint64_t id; const char* tasks; };
  const Row rows[] = {{"812", 812, ""}, {"812_3", 812, "3"}, {"812_[1-4,9]", 812, "1-4,9"}, {"812_0-30:3", 812, "0-30:3"}};
  for (const Row& row : rows) {
    INFO(row.typed);
    auto target = parseJobTarget(row.typed);
    REQUIRE(target);
    CHECK(target->id == row.id);
    CHECK(target->tasks == row.tasks);
  }
  for (const char* bad : {"", "_3", "812_", "812_[]", "812_x", "0", "81a", "812_[5-2]", "812_99999999"}) {
    INFO(bad);
    auto target = parseJobTarget(bad);
    REQUIRE_FALSE(target);
    CHECK(target.error() == std::string("Invalid job id: ") + bad);
  }
}

TEST_CASE("array ids: a comma list keeps bracketed task lists whole", "[cli][array]") {
  CHECK(splitJobList("5,812_[1,3],9") == std::vector<std::string>{"5", "812_[1,3]", "9"});
  CHECK(splitJobList(",5,,") == std::vector<std::string>{"5"});
}

TEST_CASE("array ids: squeue's %i and %K for tasks, the pending part and plain jobs", "[cli][array]") {
  CHECK(arrayJobIdText(task(815, 812, 3)) == "812_3");
  CHECK(arrayJobIdText(pendingPart(812, "4-99")) == "812_[4-99]");
  CHECK(arrayJobIdText(pendingPart(812, "4-99", 5)) == "812_[4-99%5]");
  gantry::v1::Job plain;
  plain.set_job_id(77);
  CHECK(arrayJobIdText(plain) == "77");
  CHECK(arrayTaskText(plain) == "N/A");
  CHECK(arrayTaskText(task(815, 812, 3)) == "3");
  CHECK(arrayTaskText(pendingPart(812, "4,6", 2)) == "4,6%2");
}

TEST_CASE("array ids: a long pending list is cut as Slurm cuts it, unless SLURM_BITSTR_LEN says", "[cli][array]") {
  std::string list;
  for (int i = 0; i < 60; i += 2) list += (list.empty() ? "" : ",") + std::to_string(i);
  unsetenv("SLURM_BITSTR_LEN");
  std::string shown = arrayJobIdText(pendingPart(5, list));
  CHECK(shown.size() == std::string("5_[]").size() + 63);
  CHECK(shown.ends_with("...]"));
  setenv("SLURM_BITSTR_LEN", "0", 1);
  CHECK(arrayJobIdText(pendingPart(5, list)) == "5_[" + list + "]");
  unsetenv("SLURM_BITSTR_LEN");
}

TEST_CASE("array ids: a target matches its tasks, pending or not", "[cli][array]") {
  JobTarget some{.id = 812, .tasks = "2-5"};
  CHECK(jobMatches(task(815, 812, 3), some));
  CHECK_FALSE(jobMatches(task(816, 812, 9), some));
  CHECK(jobMatches(pendingPart(812, "5-9"), some));
  CHECK_FALSE(jobMatches(pendingPart(812, "6-9"), some));
  CHECK(jobMatches(task(816, 812, 9), JobTarget{.id = 812}));
  CHECK_FALSE(jobMatches(task(816, 813, 9), JobTarget{.id = 812}));
}

TEST_CASE("array ids: -r lists each pending task of an array on its own", "[cli][array]") {
  auto expanded = expandArrayRecords({task(815, 812, 1), pendingPart(812, "3,5-6")});
  REQUIRE(expanded.size() == 4);
  CHECK(arrayJobIdText(expanded[0]) == "812_1");
  CHECK(arrayJobIdText(expanded[1]) == "812_3");
  CHECK(arrayJobIdText(expanded[3]) == "812_6");
  CHECK(expanded[3].job_id() == 812);
}
