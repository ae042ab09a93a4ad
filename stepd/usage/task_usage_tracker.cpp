#include "stepd/usage/task_usage_tracker.h"

#include <algorithm>

namespace gantry::stepd {
namespace {

void raise(uint64_t& kept, uint64_t seen) { kept = std::max(kept, seen); }

void raise(std::optional<uint64_t>& kept, std::optional<uint64_t> seen) {
  if (seen) kept = std::max(kept.value_or(0), *seen);
}

uint64_t usec(const timeval& time) {
  return static_cast<uint64_t>(time.tv_sec) * 1000000 + static_cast<uint64_t>(time.tv_usec);
}

}  // namespace

TaskPoll sumProcesses(const std::vector<ProcStat>& processes) {
  TaskPoll poll;
  for (const auto& process : processes) {
    poll.cpu_usec += process.cpu_usec;
    poll.rss_bytes += process.rss_bytes;
    poll.vmem_bytes += process.vmem_bytes;
    poll.major_faults += process.major_faults;
    poll.read_bytes += process.read_bytes;
  }
  return poll;
}

void TaskUsageTracker::addPoll(const TaskPoll& poll) {
  raise(record_.cpu_usec, poll.cpu_usec);
  raise(record_.mem_peak_bytes, poll.rss_bytes);
  raise(record_.vmem_peak_bytes, poll.vmem_bytes);
  raise(record_.pages, poll.major_faults);
  raise(record_.fs_disk_read_bytes, poll.read_bytes);
  raise(record_.gpu_mem_bytes, poll.gpu_mem_bytes);
  raise(record_.gpu_util_percent, poll.gpu_util_percent);
}

void TaskUsageTracker::addExit(const rusage& usage) {
  raise(record_.cpu_usec, usec(usage.ru_utime) + usec(usage.ru_stime));
  raise(record_.mem_peak_bytes, static_cast<uint64_t>(std::max(0L, usage.ru_maxrss)) * 1024);
  raise(record_.pages, static_cast<uint64_t>(std::max(0L, usage.ru_majflt)));
  raise(record_.fs_disk_read_bytes, static_cast<uint64_t>(std::max(0L, usage.ru_inblock)) * 512);
}

void TaskUsageTracker::addGpuMem(uint64_t bytes) { raise(record_.gpu_mem_bytes, std::optional<uint64_t>(bytes)); }

}  // namespace gantry::stepd
