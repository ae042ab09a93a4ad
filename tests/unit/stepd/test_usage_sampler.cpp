// The sampler over a /proc of our own making (stat files only), without a
// GPU library: how processes make up a task, and where the step's dmem
// counters go.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "stepd/usage/usage_sampler.h"
#include "tests/unit/support/scratch.h"

using namespace gantry::stepd;
using gantry::testing::TempDir;

namespace {

const std::string kRegion = "amd/0000:c1:00/vram";

// A /proc/<pid>/stat with this group, CPU ticks (utime), resident pages and
// virtual bytes.
void process(const std::filesystem::path& proc, int pid, int group, int ticks, int pages, long vsize) {
  std::filesystem::create_directories(proc / std::to_string(pid));
  std::ofstream(proc / std::to_string(pid) / "stat")
      << pid << " (task) S 1 " << group << " 1 0 -1 0 0 0 2 0 " << ticks << " 0 0 0 20 0 1 0 5 " << vsize << " "
      << pages << " 0\n";
}

StepSpec shardStep() {
  StepSpec spec;
  spec.accounting = AccountingSpec{.interval_sec = 4, .tracked_tres = {"gres/gpumem"}, .gpu_plugin = "rsmi"};
  spec.cgroup = CgroupSpec{.root = "/sys/fs/cgroup", .constrain_device_memory = true};
  spec.gpus = {{.index = 1, .name = "shard", .pci_bus_id = "0000:c1:00.0", .vendor = "amd", .shares = 2,
                .share_count = 8, .dmem_region = kRegion, .dmem_slice_bytes = 1 << 28}};
  return spec;
}

}  // namespace

TEST_CASE("usage sampler rules", "[stepd][usage]") {
  TempDir dir;
  const auto proc = dir.path() / "proc";
  const long page = ::sysconf(_SC_PAGESIZE);
  const long tick_usec = 1000000 / ::sysconf(_SC_CLK_TCK);
  process(proc, 300, 300, 10, 50, 1000);  // task 8's leader
  process(proc, 301, 300, 5, 20, 3000);   // its child
  process(proc, 400, 400, 1, 7, 500);     // task 9
  process(proc, 500, 500, 99, 99, 99);    // not the step's
  std::vector<std::string> log;
  UsageSampler sampler(shardStep(), nullptr, [&](const std::string& line) { log.push_back(line); },
                       proc.string());
  CHECK(sampler.interval() == std::chrono::seconds(4));
  sampler.addTask(9, 400);
  sampler.addTask(8, 300);

  SECTION("a task's figures add up the processes of its group") {
    sampler.poll({});
    auto records = sampler.finish({});
    REQUIRE(records.size() == 2);
    CHECK(records[0].task == 8);  // rank order
    CHECK(records[0].cpu_usec == 15 * tick_usec);
    CHECK(records[0].mem_peak_bytes == 70 * page);
    CHECK(records[0].vmem_peak_bytes == 4000);
    CHECK(records[0].pages == 4);
    CHECK(records[1].mem_peak_bytes == 7 * page);
  }
  SECTION("the step's dmem counters go to the node's first task only") {
    sampler.poll({{kRegion, 5000}, {"other/region", 777}});
    auto records = sampler.finish({{kRegion, 9000}});
    CHECK(records[1].gpu_mem_bytes == 9000);  // task 9 was started first
    CHECK_FALSE(records[0].gpu_mem_bytes);
  }
  SECTION("a task that ended is polled no more") {
    rusage usage{};
    sampler.taskExited(300, usage);
    process(proc, 300, 300, 900, 900, 9000);  // a new process reusing the pid
    sampler.poll({});
    CHECK(sampler.finish({})[0].cpu_usec == 0);
  }
  SECTION("without a held library the GPU reads it needs are said to be missing") {
    StepSpec whole = shardStep();
    whole.accounting->tracked_tres = {"gres/gpu"};
    whole.gpus[0].name = "gpu";
    whole.gpus[0].dmem_region.clear();
    UsageSampler unheld(whole, nullptr, [&](const std::string& line) { log.push_back(line); }, proc.string());
    REQUIRE(log.size() == 1);
    CHECK(log[0].find("no GPU library is held") != std::string::npos);
  }
}

TEST_CASE("interval 0 samples only at the ends of tasks", "[stepd][usage]") {
  StepSpec spec = shardStep();
  spec.accounting->interval_sec = 0;
  UsageSampler sampler(spec, nullptr, [](const std::string&) {});
  CHECK_FALSE(sampler.interval().has_value());
}
