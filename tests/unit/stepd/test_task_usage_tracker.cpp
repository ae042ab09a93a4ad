#include <catch2/catch.hpp>

#include "stepd/usage/task_usage_tracker.h"

using namespace gantry::stepd;

namespace {
rusage exitUsage(long user_sec, long sys_usec, long maxrss_kib, long majflt, long inblock) {
  rusage usage{};
  usage.ru_utime.tv_sec = user_sec;
  usage.ru_stime.tv_usec = sys_usec;
  usage.ru_maxrss = maxrss_kib;
  usage.ru_majflt = majflt;
  usage.ru_inblock = inblock;
  return usage;
}
}  // namespace

// One row per rule of the tracker.
TEST_CASE("task usage tracking rules", "[stepd][usage]") {
  SECTION("memory keeps the highest poll, not the last") {
    TaskUsageTracker t(5);
    t.addPoll({.rss_bytes = 700, .vmem_bytes = 9000});
    t.addPoll({.rss_bytes = 200, .vmem_bytes = 3000});
    CHECK(t.record().task == 5);
    CHECK(t.record().mem_peak_bytes == 700);
    CHECK(t.record().vmem_peak_bytes == 9000);
  }
  SECTION("GPU memory and utilisation keep their highest sample") {
    TaskUsageTracker t(0);
    t.addPoll({.gpu_mem_bytes = 300, .gpu_util_percent = 12});
    t.addPoll({.gpu_mem_bytes = 900, .gpu_util_percent = 4});
    t.addPoll({});
    CHECK(t.record().gpu_mem_bytes == 900);
    CHECK(t.record().gpu_util_percent == 12);
  }
  SECTION("a task never sampled on a GPU has no GPU figures, not zero") {
    TaskUsageTracker t(0);
    t.addPoll({.cpu_usec = 10});
    CHECK_FALSE(t.record().gpu_mem_bytes);
    CHECK_FALSE(t.record().gpu_util_percent);
  }
  SECTION("utilisation without memory stays apart") {
    TaskUsageTracker t(0);
    t.addPoll({.gpu_mem_bytes = 64});
    CHECK(t.record().gpu_mem_bytes == 64);
    CHECK_FALSE(t.record().gpu_util_percent);
  }
  SECTION("the exit rusage raises CPU time, peak memory, faults and bytes read") {
    TaskUsageTracker t(0);
    t.addPoll({.cpu_usec = 1000, .rss_bytes = 4096, .major_faults = 1, .read_bytes = 512});
    t.addExit(exitUsage(2, 300, 64, 3, 10));
    CHECK(t.record().cpu_usec == 2000300);
    CHECK(t.record().mem_peak_bytes == 64 * 1024);
    CHECK(t.record().pages == 3);
    CHECK(t.record().fs_disk_read_bytes == 5120);
  }
  SECTION("the exit rusage never lowers what a poll saw") {
    TaskUsageTracker t(0);
    t.addPoll({.cpu_usec = 9000000, .rss_bytes = 1 << 30, .major_faults = 40, .read_bytes = 1 << 20});
    t.addExit(exitUsage(1, 0, 8, 1, 1));
    CHECK(t.record().cpu_usec == 9000000);
    CHECK(t.record().mem_peak_bytes == 1 << 30);
    CHECK(t.record().pages == 40);
    CHECK(t.record().fs_disk_read_bytes == 1 << 20);
  }
  SECTION("a GPU memory figure from the kernel counts like a sample") {
    TaskUsageTracker t(0);
    t.addPoll({.gpu_mem_bytes = 100});
    t.addGpuMem(5000);
    CHECK(t.record().gpu_mem_bytes == 5000);
  }
}

TEST_CASE("a task's poll adds up its processes", "[stepd][usage]") {
  auto poll = sumProcesses({{.pid = 1, .cpu_usec = 5, .rss_bytes = 10, .vmem_bytes = 20, .major_faults = 1, .read_bytes = 3},
                            {.pid = 2, .cpu_usec = 7, .rss_bytes = 30, .vmem_bytes = 40, .major_faults = 2, .read_bytes = 4}});
  CHECK(poll.cpu_usec == 12);
  CHECK(poll.rss_bytes == 40);
  CHECK(poll.vmem_bytes == 60);
  CHECK(poll.major_faults == 3);
  CHECK(poll.read_bytes == 7);
}
