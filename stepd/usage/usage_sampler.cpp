#include "stepd/usage/usage_sampler.h"

#include <algorithm>
#include <iterator>

namespace gantry::stepd {

UsageSampler::UsageSampler(const StepSpec& spec, const detect::GpuLibraryHold* library, UsageLogLine log,
                           std::string proc_root)
    : interval_sec_(spec.accounting ? spec.accounting->interval_sec : 0),
      plan_(gpuUsagePlanFor(spec)),
      log_(std::move(log)),
      proc_root_(std::move(proc_root)) {
  if (!plan_.needsLibrary()) return;
  if (library == nullptr) {
    log_("accounting: no GPU library is held for the step; no GPU usage from NVML or ROCm SMI");
    return;
  }
  if (library->plugin() == "nvml" && (!plan_.nvml_mem_bus_ids.empty() || !plan_.nvml_util_bus_ids.empty()))
    nvml_ = std::make_unique<NvmlProcessUsage>(library->library(), plan_.nvml_mem_bus_ids,
                                               plan_.nvml_util_bus_ids, log_);
  if (library->plugin() == "rsmi" && (plan_.rsmi_mem || plan_.rsmi_util))
    rsmi_ = std::make_unique<RsmiProcessUsage>(library->library(), log_);
}

std::optional<std::chrono::seconds> UsageSampler::interval() const {
  if (interval_sec_ == 0) return std::nullopt;
  return std::chrono::seconds(interval_sec_);
}

void UsageSampler::addTask(uint32_t rank, pid_t group) {
  tasks_.push_back({.group = group, .running = true, .tracker = TaskUsageTracker(rank)});
}

ProcessGpuUsage UsageSampler::vendorGpuUsage(const std::vector<ProcStat>& processes,
                                             const std::map<pid_t, ProcessGpuUsage>& nvml_seen) {
  std::vector<ProcessGpuUsage> samples;
  if (nvml_) {
    for (const auto& process : processes)
      if (auto it = nvml_seen.find(process.pid); it != nvml_seen.end()) samples.push_back(it->second);
  }
  if (rsmi_) {
    std::vector<accounting::RsmiProcessRead> reads;
    for (const auto& process : processes)
      if (auto read = rsmi_->read(process.pid)) reads.push_back(*read);
    accounting::RsmiPoll polled = accounting::rsmiPollFrom(reads);
    for (const auto& line : polled.logLines) log_(line);
    for (const auto& sample : polled.samples) {
      samples.push_back({.mem_bytes = plan_.rsmi_mem ? sample.gpuMemBytes : std::nullopt,
                         .util_percent = plan_.rsmi_util ? sample.gpuUtilPercent : std::nullopt});
    }
  }
  return addUp(samples);
}

std::optional<uint64_t> UsageSampler::dmemBytes(const std::map<std::string, uint64_t>& by_region) const {
  std::optional<uint64_t> total;
  for (const auto& region : plan_.dmem_regions)
    if (auto it = by_region.find(region); it != by_region.end()) total = total.value_or(0) + it->second;
  return total;
}

// The step's dmem counters cannot be split between its tasks (they share
// one cgroup), so the whole figure goes to the node's first task.
UsageSampler::SampledTask* UsageSampler::firstTask() { return tasks_.empty() ? nullptr : &tasks_.front(); }

void UsageSampler::poll(const std::map<std::string, uint64_t>& dmem_current) {
  std::vector<pid_t> groups;
  for (const auto& task : tasks_)
    if (task.running) groups.push_back(task.group);
  if (groups.empty()) return;
  const std::vector<ProcStat> processes = processesInGroups(proc_root_, groups);
  const std::map<pid_t, ProcessGpuUsage> nvml_seen = nvml_ ? nvml_->poll() : std::map<pid_t, ProcessGpuUsage>{};
  for (auto& task : tasks_) {
    if (!task.running) continue;
    std::vector<ProcStat> own;
    std::copy_if(processes.begin(), processes.end(), std::back_inserter(own),
                 [&](const ProcStat& p) { return p.pgrp == task.group; });
    TaskPoll poll = sumProcesses(own);
    ProcessGpuUsage gpu = vendorGpuUsage(own, nvml_seen);
    if (&task == firstTask()) {
      if (auto dmem = dmemBytes(dmem_current)) gpu = addUp({gpu, {.mem_bytes = dmem}});
    }
    poll.gpu_mem_bytes = gpu.mem_bytes;
    poll.gpu_util_percent = gpu.util_percent;
    task.tracker.addPoll(poll);
  }
}

void UsageSampler::taskExited(pid_t group, const rusage& usage) {
  for (auto& task : tasks_) {
    if (task.group != group) continue;
    task.running = false;
    task.tracker.addExit(usage);
  }
}

std::vector<TaskUsageRecord> UsageSampler::finish(const std::map<std::string, uint64_t>& dmem_peak) {
  if (auto* first = firstTask()) {
    if (auto dmem = dmemBytes(dmem_peak)) first->tracker.addGpuMem(*dmem);
  }
  std::vector<TaskUsageRecord> records;
  for (const auto& task : tasks_) records.push_back(task.tracker.record());
  std::sort(records.begin(), records.end(),
            [](const TaskUsageRecord& a, const TaskUsageRecord& b) { return a.task < b.task; });
  return records;
}

}  // namespace gantry::stepd
