#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "stepd/usage/task_usage_record.h"

using namespace gantry::stepd;

TEST_CASE("task usage goes through result.json unchanged", "[stepd][usage]") {
  std::vector<TaskUsageRecord> tasks = {
      {.task = 3, .cpu_usec = 7123456, .mem_peak_bytes = 91 << 20, .vmem_peak_bytes = 300 << 20, .pages = 4,
       .fs_disk_read_bytes = 65536, .energy_joules = 0, .gpu_mem_bytes = 777ULL << 20, .gpu_util_percent = 61},
      {.task = 4, .cpu_usec = 11, .mem_peak_bytes = 12},
  };
  auto array = taskUsageToJson(tasks);
  CHECK(array[0]["gpu_mem_bytes"] == 777ULL << 20);
  CHECK_FALSE(array[1].contains("gpu_mem_bytes"));  // unset means no sample, not 0
  CHECK_FALSE(array[1].contains("gpu_util_percent"));
  CHECK(taskUsageFromJson(nlohmann::json::parse(array.dump())) == tasks);
}

TEST_CASE("a damaged task_usage entry is skipped, a damaged figure reads as absent", "[stepd][usage]") {
  auto array = nlohmann::json::parse(R"([
    "junk", {"cpu_usec": 5}, {"task": -1},
    {"task": 2, "cpu_usec": "lots", "mem_peak_bytes": 9, "gpu_mem_bytes": -3, "gpu_util_percent": 40}
  ])");
  auto tasks = taskUsageFromJson(array);
  REQUIRE(tasks.size() == 1);
  CHECK(tasks[0].task == 2);
  CHECK(tasks[0].cpu_usec == 0);
  CHECK(tasks[0].mem_peak_bytes == 9);
  CHECK_FALSE(tasks[0].gpu_mem_bytes.has_value());
  CHECK(tasks[0].gpu_util_percent == 40);
  CHECK(taskUsageFromJson(nlohmann::json::object()).empty());
}
