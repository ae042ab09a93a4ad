#include <catch2/catch.hpp>

#include "common/accounting/rsmi_usage.h"

using namespace gantry::accounting;

TEST_CASE("ROCm SMI reads the GPUs the device cgroup allows", "[accounting][rsmi]") {
  const std::vector<uint32_t> node = {0, 1, 2, 3, 4, 5}, job = {1, 2, 4}, step = {2};
  struct Row {
    const char* rule;
    RsmiReadScope scope;
    std::vector<uint32_t> read;
  };
  std::vector<Row> rows = {
      {"ConstrainDevices=no reads every AMD GPU (cgroup v2)", {.constrainDevices = false, .cgroup = CgroupVersion::V2},
       node},
      {"ConstrainDevices=no reads every AMD GPU (cgroup v1)", {.constrainDevices = false, .cgroup = CgroupVersion::V1},
       node},
      {"ConstrainDevices=yes with cgroup v2 reads the job's GPUs",
       {.constrainDevices = true, .cgroup = CgroupVersion::V2}, job},
      {"ConstrainDevices=yes with cgroup v1 reads the step's GPUs",
       {.constrainDevices = true, .cgroup = CgroupVersion::V1}, step},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) { CHECK(rsmiReadGpus(row.scope, node, job, step) == row.read); }
  }
}

TEST_CASE("gpuutil is the occupied CUs over the CUs of the GPUs read", "[accounting][rsmi]") {
  struct Row {
    const char* rule;
    std::vector<GpuCuCount> read;
    uint64_t percent;
  };
  std::vector<Row> rows = {
      {"one busy GPU of three identical ones", {{60, 60}, {0, 60}, {0, 60}}, 33},
      {"one busy GPU of five identical ones", {{0, 104}, {104, 104}, {0, 104}, {0, 104}, {0, 104}}, 20},
      {"GPUs of different sizes weigh by their CUs", {{0, 120}, {80, 80}}, 40},
      {"a part of two GPUs", {{30, 120}, {20, 80}}, 25},
      {"the only GPU fully busy", {{110, 110}}, 100},
      {"no GPUs read", {}, 0},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) { CHECK(rsmiUtilPercent(row.read) == row.percent); }
  }
}

TEST_CASE("what a process's reading records", "[accounting][rsmi]") {
  const uint64_t mem = 3ull << 30;
  struct Row {
    const char* rule;
    RsmiProcessRead read;
    std::optional<uint64_t> gpuMem;
    std::optional<uint64_t> gpuUtil;
  };
  std::vector<Row> rows = {
      {"a value of 100 or less records both", {RsmiOutcome::Value, 64, mem}, mem, 64},
      {"a value of exactly 100 records both", {RsmiOutcome::Value, 100, mem}, mem, 100},
      {"a value of 0 records both", {RsmiOutcome::Value, 0, mem}, mem, 0},
      {"a value above 100 records gpumem only", {RsmiOutcome::Value, 101, mem}, mem, std::nullopt},
      {"an invalid value records gpumem only", {RsmiOutcome::Invalid, 0, mem}, mem, std::nullopt},
      {"a failed read records neither", {RsmiOutcome::Failed, 40, mem}, std::nullopt, std::nullopt},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      RsmiSample sample = rsmiSampleFrom(row.read);
      CHECK(sample.gpuMemBytes == row.gpuMem);
      CHECK(sample.gpuUtilPercent == row.gpuUtil);
    }
  }
}

TEST_CASE("each failed read logs once per process per poll", "[accounting][rsmi]") {
  std::vector<RsmiProcessRead> reads = {
      {RsmiOutcome::Failed, 0, 0}, {RsmiOutcome::Value, 12, 1 << 20}, {RsmiOutcome::Failed, 0, 0},
      {RsmiOutcome::Invalid, 0, 5 << 20}};
  for (int poll = 0; poll < 2; ++poll) {
    RsmiPoll result = rsmiPollFrom(reads);
    CHECK(result.logLines == std::vector<std::string>{"RSMI: Failed to get usage", "RSMI: Failed to get usage"});
    REQUIRE(result.samples.size() == 4);
    CHECK_FALSE(result.samples[0].gpuMemBytes);
    CHECK(result.samples[1].gpuUtilPercent == 12u);
    CHECK(result.samples[3].gpuMemBytes == uint64_t{5 << 20});
  }
  CHECK(rsmiPollFrom({{RsmiOutcome::Value, 7, 1}}).logLines.empty());
}

TEST_CASE("what the library returns for a missing counter depends on the ROCm release", "[accounting][rsmi]") {
  using C = CuCounter;
  using R = RsmiLibraryResult;
  struct Row {
    const char* rule;
    RocmRelease release;
    std::vector<CuCounter> read;
    RsmiLibraryResult result;
  };
  std::vector<Row> rows = {
      {"every counter provided is correct on any release", {5, 7, 0}, {C::Provided, C::Provided}, R::Correct},
      {"every counter provided is correct on a new release", {6, 4, 2}, {C::Provided}, R::Correct},
      {"before 6.1.1 a missing counter fails", {6, 1, 0}, {C::Unsupported, C::Unsupported}, R::Failed},
      {"before 6.1.1 an inaccessible GPU fails", {6, 0, 2}, {C::Provided, C::Inaccessible}, R::Failed},
      {"from 6.1.1 a missing counter is invalid", {6, 1, 1}, {C::Provided, C::Unsupported}, R::Invalid},
      {"before 6.3.0 an inaccessible GPU still fails", {6, 2, 4}, {C::Inaccessible, C::Unsupported}, R::Failed},
      {"from 6.3.0 an inaccessible GPU is invalid", {6, 3, 0}, {C::Provided, C::Inaccessible}, R::Invalid},
      {"from 6.1.1 a counter after the last missing one gives a wrong value", {6, 2, 0},
       {C::Unsupported, C::Provided}, R::WrongValue},
      {"the wrong value follows the last missing one only", {6, 4, 0},
       {C::Provided, C::Inaccessible, C::Provided, C::Unsupported}, R::Invalid},
      {"from 6.3.0 a counter after an inaccessible GPU gives a wrong value", {7, 0, 0},
       {C::Inaccessible, C::Provided}, R::WrongValue},
      {"before 6.3.0 an inaccessible GPU fails even with a counter after it", {6, 2, 1},
       {C::Inaccessible, C::Provided}, R::Failed},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) { CHECK(rsmiReadOutcome(row.release, row.read) == row.result); }
  }
  CHECK(outcomeSeen(R::WrongValue) == RsmiOutcome::Value);
  CHECK(outcomeSeen(R::Correct) == RsmiOutcome::Value);
  CHECK(outcomeSeen(R::Invalid) == RsmiOutcome::Invalid);
  CHECK(outcomeSeen(R::Failed) == RsmiOutcome::Failed);
}
