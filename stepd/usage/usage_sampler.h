// Samples the usage of a step's tasks on this node while they run and once
// more as they end, and hands back one TaskUsageRecord per task for
// result.json. gantrystepd calls poll() from its event loop when the
// interval has passed (and when a task ends), so sampling never holds up
// signal handling or the reaping of tasks.
//
// A task is the process group gantrystepd started it in: CPU time, memory,
// page faults and bytes read are added up over the group's processes in
// /proc at each poll, and the task's own wait4() rusage at its end can only
// raise them. GPU figures come from the readers gpuUsagePlanFor() names.
// Not thread-safe: the launcher's one thread owns it.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nodeagent/detect/gpu_library.h"
#include "stepd/core/step_spec.h"
#include "stepd/usage/gpu_process_usage.h"
#include "stepd/usage/gpu_usage_plan.h"
#include "stepd/usage/task_usage_tracker.h"

namespace gantry::stepd {

class UsageSampler {
 public:
  // `library`: the GPU library the launcher holds for the step, or null.
  // `proc_root` is "/proc" outside tests.
  UsageSampler(const StepSpec& spec, const detect::GpuLibraryHold* library, UsageLogLine log,
               std::string proc_root = "/proc");

  // Time between polls; nullopt when the interval is 0 (only at the end).
  std::optional<std::chrono::seconds> interval() const;

  void addTask(uint32_t rank, pid_t group);
  // One poll of every task still running. `dmem_current`: the step
  // cgroup's dmem.current by region (empty without dmem counters).
  void poll(const std::map<std::string, uint64_t>& dmem_current);
  void taskExited(pid_t group, const rusage& usage);
  // The records, in rank order. `dmem_peak`: the step cgroup's dmem.peak
  // by region at the end.
  std::vector<TaskUsageRecord> finish(const std::map<std::string, uint64_t>& dmem_peak);

 private:
  struct SampledTask {
    pid_t group = 0;
    bool running = true;
    TaskUsageTracker tracker;
  };
  ProcessGpuUsage vendorGpuUsage(const std::vector<ProcStat>& processes,
                                 const std::map<pid_t, ProcessGpuUsage>& nvml_seen);
  std::optional<uint64_t> dmemBytes(const std::map<std::string, uint64_t>& by_region) const;
  SampledTask* firstTask();

  uint32_t interval_sec_ = 0;
  GpuUsagePlan plan_;
  std::unique_ptr<NvmlProcessUsage> nvml_;
  std::unique_ptr<RsmiProcessUsage> rsmi_;
  UsageLogLine log_;
  std::string proc_root_;
  std::vector<SampledTask> tasks_;
};

}  // namespace gantry::stepd
