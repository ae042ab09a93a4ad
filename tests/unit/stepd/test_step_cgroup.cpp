#include <catch2/catch.hpp>
#include <filesystem>

#include "stepd/cgroup/step_cgroup.h"
#include "stepd/core/sluid.h"
#include "tests/unit/stepd/cgroup_fixture.h"

using namespace gantry::stepd;
using gantry::stepd::testing::CgroupFixture;
using gantry::stepd::testing::slurp;

namespace {

StepCgroupOptions allConstraints(const std::string& root, const std::string& step) {
  return {.root = root, .base = "gantry", .job_dir_name = jobCgroupName("gantry", 42, false),
          .step_dir_name = stepCgroupName(step), .enable_controllers = true, .constrain_cores = true,
          .constrain_ram = true, .constrain_device_memory = true};
}

// 3 shards of the 16 GB / 16-shard GPU: 3 x 1049429504 bytes.
StepCgroupLimits threeShards(std::vector<int> cores) {
  return {.cores = std::move(cores), .memory_bytes = 1024ULL * 1024 * 1024,
          .dmem = {{.region = "nvidia/0000:01:00/vidmem", .pci_bus_id = "0000:01:00.0", .bytes = 3148288512ULL}}};
}

}  // namespace

TEST_CASE("cgroup names follow the SLUID or the job id", "[stepd][cgroup]") {
  CHECK(jobCgroupName("gantry", 42, false) == jobSluid("gantry", 42));
  CHECK(jobCgroupName("gantry", 42, true) == "job_42");
  CHECK(stepCgroupName("batch") == "step_batch");
  CHECK(stepCgroupName("3") == "step_3");
}

TEST_CASE("cpu lists are formatted and parsed in cpuset form", "[stepd][cgroup]") {
  CHECK(formatCpuList({3, 0, 1, 2, 8, 10, 9}) == "0-3,8-10");
  CHECK(formatCpuList({}) == "");
  auto parsed = parseCpuList("0-2,5\n");
  REQUIRE(parsed.ok());
  CHECK(*parsed == std::vector<int>{0, 1, 2, 5});
  CHECK_FALSE(parseCpuList("0-x").ok());
  CHECK_FALSE(parseCpuList("3-1").ok());
}

TEST_CASE("a confined step writes its limits on the job and the step", "[stepd][cgroup]") {
  CgroupFixture fixture;
  auto cgroup = StepCgroup::create(allConstraints(fixture.root(), "batch"), threeShards({0, 1}));
  REQUIRE(cgroup.ok());
  const std::string job = fixture.root() + "/gantry/" + jobSluid("gantry", 42);
  CHECK(cgroup->jobPath() == job);
  CHECK(cgroup->stepPath() == job + "/step_batch");
  for (const auto& dir : {job, job + "/step_batch"}) {
    INFO(dir);
    CHECK(slurp(dir + "/dmem.max") == "nvidia/0000:01:00/vidmem 3148288512\n");
    CHECK(slurp(dir + "/dmem.min") == "nvidia/0000:01:00/vidmem 3148288512\n");
    CHECK(slurp(dir + "/memory.max") == "1073741824");
    CHECK(slurp(dir + "/cpuset.cpus") == "0-1");
  }
  for (const auto& dir : {fixture.root(), fixture.root() + "/gantry", job})
    CHECK(slurp(dir + "/cgroup.subtree_control") == "+cpuset\n+memory\n+dmem\n");
}

TEST_CASE("controllers are enabled from the top of the hierarchy down", "[stepd][cgroup]") {
  CgroupFixture fixture;
  // The root handed to us is a delegated cgroup below the top of the hierarchy.
  const std::string delegated = fixture.root() + "/system.slice/gantry.scope";
  std::filesystem::create_directories(delegated);
  for (const auto& dir : {fixture.root() + "/system.slice", delegated})
    std::ofstream(dir + "/cgroup.controllers") << "cpuset memory dmem\n";
  auto options = allConstraints(delegated, "0");
  options.constrain_cores = false;
  options.constrain_device_memory = false;
  REQUIRE(StepCgroup::create(options, {}).ok());
  for (const auto& dir : {fixture.root(), fixture.root() + "/system.slice", delegated, delegated + "/gantry"}) {
    INFO(dir);
    CHECK(slurp(dir + "/cgroup.subtree_control") == "+memory\n");
  }
}

TEST_CASE("a later step keeps the job limits and widens its cpuset", "[stepd][cgroup]") {
  CgroupFixture fixture;
  REQUIRE(StepCgroup::create(allConstraints(fixture.root(), "extern"), threeShards({0, 1})).ok());
  StepCgroupLimits step_limits = threeShards({4});
  step_limits.dmem[0].bytes = 1049429504ULL;
  step_limits.memory_bytes = 512ULL * 1024 * 1024;
  auto step = StepCgroup::create(allConstraints(fixture.root(), "0"), step_limits);
  REQUIRE(step.ok());
  CHECK(slurp(step->jobPath() + "/memory.max") == "1073741824");
  CHECK(slurp(step->jobPath() + "/dmem.max") == "nvidia/0000:01:00/vidmem 3148288512\n");
  CHECK(slurp(step->jobPath() + "/cpuset.cpus") == "0-1,4");
  CHECK(slurp(step->stepPath() + "/memory.max") == "536870912");
  CHECK(slurp(step->stepPath() + "/dmem.max") == "nvidia/0000:01:00/vidmem 1049429504\n");
  CHECK(slurp(step->stepPath() + "/cpuset.cpus") == "4");
}

TEST_CASE("only the requested constraints are written", "[stepd][cgroup]") {
  CgroupFixture fixture;
  auto options = allConstraints(fixture.root(), "0");
  options.constrain_cores = false;
  options.constrain_device_memory = false;
  options.enable_controllers = false;
  options.job_dir_name = jobCgroupName("gantry", 42, true);
  auto cgroup = StepCgroup::create(options, threeShards({0}));
  REQUIRE(cgroup.ok());
  CHECK(cgroup->stepPath() == fixture.root() + "/gantry/job_42/step_0");
  CHECK(std::filesystem::exists(cgroup->stepPath() + "/memory.max"));
  CHECK_FALSE(std::filesystem::exists(cgroup->stepPath() + "/cpuset.cpus"));
  CHECK_FALSE(std::filesystem::exists(cgroup->stepPath() + "/dmem.max"));
  CHECK(slurp(fixture.root() + "/cgroup.subtree_control").empty());
}

TEST_CASE("freeze, kill and process files are written on the step", "[stepd][cgroup]") {
  CgroupFixture fixture;
  auto cgroup = StepCgroup::create(allConstraints(fixture.root(), "0"), {});
  REQUIRE(cgroup.ok());
  REQUIRE(cgroup->addProcess(1234).ok());
  CHECK(slurp(cgroup->stepPath() + "/cgroup.procs") == "1234");
  REQUIRE(cgroup->setFrozen(true).ok());
  CHECK(slurp(cgroup->stepPath() + "/cgroup.freeze") == "1");
  REQUIRE(cgroup->setFrozen(false).ok());
  CHECK(slurp(cgroup->stepPath() + "/cgroup.freeze") == "0");
  REQUIRE(cgroup->killAll().ok());
  CHECK(slurp(cgroup->stepPath() + "/cgroup.kill") == "1");
}

TEST_CASE("the peak device memory is read from dmem.peak, else dmem.current", "[stepd][cgroup]") {
  CgroupFixture fixture;
  auto cgroup = StepCgroup::create(allConstraints(fixture.root(), "0"), {});
  REQUIRE(cgroup.ok());
  CHECK(cgroup->deviceMemoryPeak().empty());
  std::ofstream(cgroup->stepPath() + "/dmem.current") << "nvidia/0000:01:00/vidmem 100\ndrm/0000:79:00.0/vram 7\n";
  CHECK(cgroup->deviceMemoryPeak() ==
        std::map<std::string, uint64_t>{{"nvidia/0000:01:00/vidmem", 100}, {"drm/0000:79:00.0/vram", 7}});
  std::ofstream(cgroup->stepPath() + "/dmem.peak") << "nvidia/0000:01:00/vidmem 2231369728\n";
  CHECK(cgroup->deviceMemoryPeak().at("nvidia/0000:01:00/vidmem") == 2231369728ULL);
}

TEST_CASE("refused writes name the file and the value", "[stepd][cgroup]") {
  CgroupFixture fixture;
  auto options = allConstraints(fixture.root() + "/missing", "0");
  auto cgroup = StepCgroup::create(options, {});
  REQUIRE_FALSE(cgroup.ok());
  CHECK(cgroup.error().find(fixture.root() + "/missing") != std::string::npos);
}
