#include "common/accounting/tres_usage.h"

#include <utility>

namespace gantry::accounting {

namespace {

// The TRES values of one task that are present, keyed by TRES name.
std::map<std::string, uint64_t> valuesOf(const TaskUsageSample& task, const TrackedTres& tracked) {
  std::map<std::string, uint64_t> values = {
      {"cpu", task.cpuSeconds}, {"energy", task.energyJoules}, {"fs/disk", task.fsDiskBytes},
      {"mem", task.memBytes},   {"pages", task.pages},         {"vmem", task.vmemBytes},
  };
  if (tracked.tracksGpuMem() && task.gpuMemBytes) values["gres/gpumem"] = *task.gpuMemBytes;
  if (tracked.tracksGpuUtil() && task.gpuUtilPercent) values["gres/gpuutil"] = *task.gpuUtilPercent;
  return values;
}

}  // namespace

StepTresUsage stepTresUsage(const std::vector<TaskUsageSample>& tasks, const TrackedTres& tracked) {
  StepTresUsage usage;
  std::map<std::string, uint64_t> sampled;  // tasks with a sample, per TRES
  for (const TaskUsageSample& task : tasks) {
    for (const auto& [name, value] : valuesOf(task, tracked)) {
      TresExtreme here{value, task.node, task.task};
      auto [minIt, firstMin] = usage.min.try_emplace(name, here);
      if (!firstMin && value < minIt->second.value) minIt->second = here;
      auto [maxIt, firstMax] = usage.max.try_emplace(name, here);
      if (!firstMax && value > maxIt->second.value) maxIt->second = std::move(here);
      usage.tot[name] += value;
      ++sampled[name];
    }
  }
  for (const auto& [name, total] : usage.tot) usage.ave[name] = total / sampled[name];
  return usage;
}

}  // namespace gantry::accounting
