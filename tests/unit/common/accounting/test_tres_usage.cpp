#include <catch2/catch.hpp>

#include "common/accounting/tres_usage.h"
#include "common/accounting/tres_usage_format.h"

using namespace gantry::accounting;

namespace {

constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;

TrackedTres trackedFrom(const std::vector<std::string>& configured) {
  auto tracked = trackedTresFrom(configured);
  REQUIRE(tracked.ok());
  return tracked.value();
}

TaskUsageSample task(std::string node, uint32_t rank, uint64_t cpuSeconds, uint64_t memBytes) {
  TaskUsageSample sample;
  sample.node = std::move(node);
  sample.task = rank;
  sample.cpuSeconds = cpuSeconds;
  sample.memBytes = memBytes;
  return sample;
}

}  // namespace

TEST_CASE("the spec's two-task GPU step gives its TRESUsageInAve and TRESUsageInTot", "[accounting][usage]") {
  // Step 1277.0 of gres.md "Accounting": two tasks, one A100 each, on n1.
  std::vector<TaskUsageSample> tasks;
  for (uint32_t rank = 0; rank < 2; ++rank) {
    TaskUsageSample t = task("n1", rank, 11, 628748 * kKiB);
    t.fsDiskBytes = 87613 + rank;  // 175227 in all
    t.gpuMemBytes = 36266 * kMiB;
    t.gpuUtilPercent = 100;
    tasks.push_back(t);
  }
  StepTresUsage usage = stepTresUsage(tasks, trackedFrom({"gres/gpu"}));
  CHECK(formatTresValues(usage.ave) ==
        "cpu=00:00:11,energy=0,fs/disk=87613,gres/gpumem=36266M,gres/gpuutil=100,mem=628748K,pages=0,vmem=0");
  CHECK(formatTresValues(usage.tot) ==
        "cpu=00:00:22,energy=0,fs/disk=175227,gres/gpumem=72532M,gres/gpuutil=200,mem=1257496K,pages=0,vmem=0");
}

TEST_CASE("each TRES value is printed in its own form", "[accounting][usage][format]") {
  struct Row {
    const char* rule;
    const char* tres;
    uint64_t value;
    const char* text;
  };
  std::vector<Row> rows = {
      {"cpu under a minute is HH:MM:SS", "cpu", 42, "00:00:42"},
      {"cpu in hours is HH:MM:SS", "cpu", 2 * 3600 + 7 * 60 + 9, "02:07:09"},
      {"cpu just under a day stays HH:MM:SS", "cpu", 86399, "23:59:59"},
      {"cpu of exactly a day is D-HH:MM:SS", "cpu", 86400, "1-00:00:00"},
      {"cpu past a day is D-HH:MM:SS", "cpu", 12 * 86400 + 5 * 3600 + 30, "12-05:00:30"},
      {"mem is in KiB with a K", "mem", 4321 * kKiB, "4321K"},
      {"mem rounds down to whole KiB", "mem", 2047, "1K"},
      {"mem of zero is a bare 0", "mem", 0, "0"},
      {"vmem is in KiB with a K", "vmem", 98765 * kKiB, "98765K"},
      {"gpumem is in MiB with an M", "gres/gpumem", 1500 * kMiB, "1500M"},
      {"gpumem rounds down to whole MiB", "gres/gpumem", 3 * kMiB - 1, "2M"},
      {"gpumem of zero is a bare 0", "gres/gpumem", 0, "0"},
      {"gpuutil is a plain number", "gres/gpuutil", 37, "37"},
      {"fs/disk is plain bytes", "fs/disk", 5 * kMiB + 3, "5242883"},
      {"energy is a plain number", "energy", 1234, "1234"},
      {"pages is a plain number", "pages", 17, "17"},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) { CHECK(formatTresValue(row.tres, row.value) == row.text); }
  }
}

TEST_CASE("Min, Max, Ave and Tot over a step's tasks, and who gave each extreme", "[accounting][usage]") {
  std::vector<TaskUsageSample> tasks = {
      task("gpu-a7", 0, 300, 900 * kKiB),
      task("gpu-a7", 1, 95, 4000 * kKiB),
      task("gpu-b2", 2, 610, 100 * kKiB),
  };
  tasks[0].pages = 4;
  tasks[1].pages = 4;  // a tie: the task given first is named
  tasks[2].pages = 9;
  StepTresUsage usage = stepTresUsage(tasks, TrackedTres());
  CHECK(formatTresValues(usage.min) == "cpu=00:01:35,energy=0,fs/disk=0,mem=100K,pages=4,vmem=0");
  CHECK(formatTresNodes(usage.min) == "cpu=gpu-a7,energy=gpu-a7,fs/disk=gpu-a7,mem=gpu-b2,pages=gpu-a7,vmem=gpu-a7");
  CHECK(formatTresTasks(usage.min) == "cpu=1,energy=0,fs/disk=0,mem=2,pages=0,vmem=0");
  CHECK(formatTresValues(usage.max) == "cpu=00:10:10,energy=0,fs/disk=0,mem=4000K,pages=9,vmem=0");
  CHECK(formatTresNodes(usage.max) == "cpu=gpu-b2,energy=gpu-a7,fs/disk=gpu-a7,mem=gpu-a7,pages=gpu-b2,vmem=gpu-a7");
  CHECK(formatTresTasks(usage.max) == "cpu=2,energy=0,fs/disk=0,mem=1,pages=2,vmem=0");
  // Ave rounds down: 1005 s / 3 = 335, 5000 KiB / 3 = 1666.67 KiB.
  CHECK(usage.ave["cpu"] == 335);
  CHECK(formatTresValue("mem", usage.ave["mem"]) == "1666K");
  CHECK(usage.tot["pages"] == 17);
  CHECK(stepTresUsage({}, TrackedTres()).tot.empty());
}

TEST_CASE("GPU usage TRES appear only when tracked", "[accounting][usage]") {
  TaskUsageSample t = task("nd3", 0, 60, 8 * kKiB);
  t.gpuMemBytes = 700 * kMiB;
  t.gpuUtilPercent = 45;
  struct Row {
    const char* rule;
    std::vector<std::string> configured;
    const char* tot;
  };
  std::vector<Row> rows = {
      {"untracked GPU usage is left out", {"gres/nic"},
       "cpu=00:01:00,energy=0,fs/disk=0,mem=8K,pages=0,vmem=0"},
      {"only gpumem tracked shows gpumem only", {"gres/gpumem"},
       "cpu=00:01:00,energy=0,fs/disk=0,gres/gpumem=700M,mem=8K,pages=0,vmem=0"},
      {"only gpuutil tracked shows gpuutil only", {"gres/gpuutil"},
       "cpu=00:01:00,energy=0,fs/disk=0,gres/gpuutil=45,mem=8K,pages=0,vmem=0"},
      {"a typed GPU alone tracks no usage", {"gres/gpu:mi300x"},
       "cpu=00:01:00,energy=0,fs/disk=0,mem=8K,pages=0,vmem=0"},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      CHECK(formatTresValues(stepTresUsage({t}, trackedFrom(row.configured)).tot) == row.tot);
    }
  }
}

TEST_CASE("GPU usage is gathered over the tasks that have a sample", "[accounting][usage]") {
  // Task 1's reads all failed (no sample); task 2 had only an invalid gpuutil.
  std::vector<TaskUsageSample> tasks = {task("mi-1", 0, 10, 0), task("mi-1", 1, 10, 0), task("mi-2", 2, 10, 0)};
  tasks[0].gpuMemBytes = 100 * kMiB;
  tasks[0].gpuUtilPercent = 30;
  tasks[2].gpuMemBytes = 301 * kMiB;
  StepTresUsage usage = stepTresUsage(tasks, trackedFrom({"gres/gpu"}));
  CHECK(formatTresValue("gres/gpumem", usage.ave["gres/gpumem"]) == "200M");
  CHECK(usage.ave["gres/gpuutil"] == 30);
  CHECK(usage.min["gres/gpumem"].task == 0);
  CHECK(usage.max["gres/gpumem"].node == "mi-2");
  // No task with a sample: the TRES is left out altogether.
  std::vector<TaskUsageSample> none = {task("mi-1", 0, 10, 0)};
  CHECK(stepTresUsage(none, trackedFrom({"gres/gpu"})).tot.count("gres/gpumem") == 0);
}
