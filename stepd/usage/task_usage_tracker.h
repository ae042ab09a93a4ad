// The usage of one task over the step: what each poll saw, and at the end
// what wait4() reported for the task. Keeps the peak of memory and GPU
// figures over the polls (as Slurm keeps the highest gpumem and gpuutil
// seen) and the largest of the counters that only grow. Pure.
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "stepd/usage/proc_stat.h"
#include "stepd/usage/task_usage_record.h"

namespace gantry::stepd {

// One poll of one task: its processes summed.
struct TaskPoll {
  uint64_t cpu_usec = 0;
  uint64_t rss_bytes = 0;
  uint64_t vmem_bytes = 0;
  uint64_t major_faults = 0;
  uint64_t read_bytes = 0;
  std::optional<uint64_t> gpu_mem_bytes{};   // unset: no GPU sample this poll
  std::optional<uint64_t> gpu_util_percent{};
};

// The sum over the processes of one task.
TaskPoll sumProcesses(const std::vector<ProcStat>& processes);

class TaskUsageTracker {
 public:
  explicit TaskUsageTracker(uint32_t task) { record_.task = task; }

  void addPoll(const TaskPoll& poll);
  // What the kernel kept for the task and the children it waited for
  // (ru_utime + ru_stime, ru_maxrss in KiB, ru_majflt, ru_inblock in
  // 512-byte blocks); it can only raise what the polls saw.
  void addExit(const rusage& usage);
  // A GPU memory figure that belongs to the task without a poll (the
  // kernel's dmem peak at the end of the step).
  void addGpuMem(uint64_t bytes);

  const TaskUsageRecord& record() const { return record_; }

 private:
  TaskUsageRecord record_;
};

}  // namespace gantry::stepd
