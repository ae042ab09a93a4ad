#include "stepd/core/gpu_binding.h"

#include <algorithm>
#include <set>

namespace gantry::stepd {
namespace {

std::vector<size_t> allPositions(size_t count) {
  std::vector<size_t> positions(count);
  for (size_t i = 0; i < count; ++i) positions[i] = i;
  return positions;
}

std::set<int> socketsOfCores(const std::vector<int>& cores, const std::vector<std::vector<int>>& socket_cores) {
  std::set<int> sockets;
  for (size_t socket = 0; socket < socket_cores.size(); ++socket) {
    for (int core : cores) {
      if (std::find(socket_cores[socket].begin(), socket_cores[socket].end(), core) != socket_cores[socket].end())
        sockets.insert(static_cast<int>(socket));
    }
  }
  return sockets;
}

// The step's GPUs that share a socket with the task's CPUs; all of them
// when none does (as a task on a socket without GPUs still needs one).
std::vector<size_t> closestPositions(const StepSpec& spec, const std::vector<int>& gpus, int local_task) {
  const std::set<int> taskSockets =
      socketsOfCores(taskCores(spec.cores, spec.tasks_on_node, local_task), spec.socket_cores);
  std::vector<size_t> close;
  for (size_t p = 0; p < gpus.size(); ++p) {
    const int index = gpus[p];
    const bool known = index >= 0 && index < static_cast<int>(spec.gpu_sockets.size()) &&
                       !spec.gpu_sockets[index].empty();
    bool shares = !known || taskSockets.empty();
    if (known) {
      for (int socket : spec.gpu_sockets[index]) shares = shares || taskSockets.count(socket) > 0;
    }
    if (shares) close.push_back(p);
  }
  return close.empty() ? allPositions(gpus.size()) : close;
}

// The position of the GPU with binding id `id`, or gpus.size() when the
// step holds none.
size_t positionOfId(const std::vector<int>& gpus, int id, bool ids_relative) {
  if (ids_relative) return id >= 0 && static_cast<size_t>(id) < gpus.size() ? static_cast<size_t>(id) : gpus.size();
  auto found = std::find(gpus.begin(), gpus.end(), id);
  return static_cast<size_t>(found - gpus.begin());
}

std::string idsText(const std::vector<int>& gpus, const std::vector<size_t>& positions) {
  std::string out;
  for (size_t p : positions) out += (out.empty() ? "" : ",") + std::to_string(gpus[p]);
  return out;
}

}  // namespace

std::vector<int> stepGpuIndexes(const StepSpec& spec) {
  std::set<int> indexes;
  for (const auto& gpu : spec.gpus) indexes.insert(gpu.index);
  return {indexes.begin(), indexes.end()};
}

std::vector<int> taskCores(const std::vector<int>& step_cores, int tasks_on_node, int local_task) {
  std::vector<int> cores = step_cores;
  std::sort(cores.begin(), cores.end());
  const int tasks = std::max(tasks_on_node, 1);
  const int count = static_cast<int>(cores.size());
  if (count == 0 || local_task < 0) return {};
  if (count < tasks) return {cores[local_task % count]};
  const int base = count / tasks, extra = count % tasks;
  const int first = local_task * base + std::min(local_task, extra);
  const int size = base + (local_task < extra ? 1 : 0);
  if (first + size > count) return {};
  return {cores.begin() + first, cores.begin() + first + size};
}

TaskGpuBinding bindTaskGpus(const StepSpec& spec, const gres::GpuBind& bind, int local_task, bool ids_relative) {
  const std::vector<int> gpus = stepGpuIndexes(spec);
  TaskGpuBinding binding;
  if (gpus.empty()) return binding;
  const size_t task = static_cast<size_t>(std::max(local_task, 0));
  std::set<size_t> chosen;
  switch (bind.mode) {
    case gres::GpuBindMode::None:
      return {allPositions(gpus.size()), ""};
    case gres::GpuBindMode::Closest:
      return {closestPositions(spec, gpus, local_task), ""};
    case gres::GpuBindMode::Single: {
      const auto close = closestPositions(spec, gpus, local_task);
      const size_t block = task / static_cast<size_t>(std::max(bind.count, 1));
      return {{close[block % close.size()]}, ""};
    }
    case gres::GpuBindMode::PerTask:
      for (int k = 0; k < bind.count; ++k) chosen.insert((task * bind.count + k) % gpus.size());
      break;
    case gres::GpuBindMode::MapGpu:
      if (!bind.gpuIds.empty()) {
        size_t p = positionOfId(gpus, bind.gpuIds[task % bind.gpuIds.size()], ids_relative);
        if (p < gpus.size()) chosen.insert(p);
      }
      break;
    case gres::GpuBindMode::MaskGpu:
      if (!bind.masks.empty()) {
        const uint64_t mask = bind.masks[task % bind.masks.size()];
        for (int bit = 0; bit < 64; ++bit) {
          if ((mask >> bit) & 1U) {
            size_t p = positionOfId(gpus, bit, ids_relative);
            if (p < gpus.size()) chosen.insert(p);
          }
        }
      }
      break;
  }
  if (chosen.empty()) {
    binding.positions = {0};
    binding.note = "gpu-bind: the binding names no GPU of the step for task " + std::to_string(local_task) +
                   " on this node; it is bound to the step's first GPU (" + std::to_string(gpus[0]) + ")";
    return binding;
  }
  binding.positions.assign(chosen.begin(), chosen.end());
  return binding;
}

std::string describeBinding(const StepSpec& spec, int local_task, const TaskGpuBinding& binding) {
  const std::vector<int> gpus = stepGpuIndexes(spec);
  return "gpu-bind: " + spec.node_name + " task " + std::to_string(spec.first_task_id + local_task) +
         " (local " + std::to_string(local_task) + "): GPU(s) " + idsText(gpus, binding.positions) + " of the step's " +
         idsText(gpus, allPositions(gpus.size()));
}

}  // namespace gantry::stepd
