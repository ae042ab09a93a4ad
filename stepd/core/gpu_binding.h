// --gpu-bind on a node: which of the step's GPUs each local task is bound
// to, and so which devices its CUDA_VISIBLE_DEVICES (and the ROCm and oneAPI
// equivalents) names. Pure: the step's spec and the task in, positions out.
//
// A task's CPUs are its block of the step's cores on the node (the cores in
// order, split evenly over the tasks, the first ones taking one more when
// they do not divide; with fewer cores than tasks, cores are shared round
// robin). A GPU is close to a task when they share a socket, or when either
// socket is unknown. Where a binding names no GPU of the step for a task
// (an id the step does not hold), the task gets the step's first GPU and a
// note saying so.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/gres/gpu_bind.h"
#include "stepd/core/step_spec.h"

namespace gantry::stepd {

struct TaskGpuBinding {
  // Positions among the step's distinct GPUs in node-index order (as
  // stepGpuIndexes lists them), ascending.
  std::vector<size_t> positions;
  std::string note;  // why the binding was not followed; "" when it was
};

// The node indexes of the step's distinct GPUs, ascending (shares of one
// device count once).
std::vector<int> stepGpuIndexes(const StepSpec& spec);

// The cores of local task `local_task` (see above).
std::vector<int> taskCores(const std::vector<int>& step_cores, int tasks_on_node, int local_task);

// `ids_relative`: map_gpu/mask_gpu ids are positions among the step's GPUs
// (devices confined) rather than node indexes.
TaskGpuBinding bindTaskGpus(const StepSpec& spec, const gres::GpuBind& bind, int local_task, bool ids_relative);

// The line a verbose binding prints on the task's standard error.
std::string describeBinding(const StepSpec& spec, int local_task, const TaskGpuBinding& binding);

}  // namespace gantry::stepd
