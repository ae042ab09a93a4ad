#include "stepd/core/task_affinity.h"

#include <algorithm>

namespace gantry::stepd {

std::optional<std::vector<int>> taskCpuSlice(std::vector<int> stepCpus, int tasksOnNode, int cpusPerTask,
                                             int localTask) {
  if (tasksOnNode <= 0 || cpusPerTask <= 0 || localTask < 0 || localTask >= tasksOnNode) return std::nullopt;
  if (stepCpus.size() != static_cast<size_t>(tasksOnNode) * static_cast<size_t>(cpusPerTask)) return std::nullopt;
  std::sort(stepCpus.begin(), stepCpus.end());
  if (std::adjacent_find(stepCpus.begin(), stepCpus.end()) != stepCpus.end()) return std::nullopt;
  auto first = stepCpus.begin() + static_cast<std::ptrdiff_t>(localTask) * cpusPerTask;
  return std::vector<int>(first, first + cpusPerTask);
}

}  // namespace gantry::stepd
