// TaskPlugin=task/affinity: which CPUs each task of a step is bound to on
// its node. Pure; gantrystepd applies the answer with sched_setaffinity in
// the task's child process.
//
// The rule (docs/steps.md, "CPU binding of tasks"): a step whose CPUs on
// the node are exactly its local tasks times its CPUs per task is cut in
// order, task i getting CPUs [i*c, (i+1)*c) of the sorted list. Any other
// step (it was given the whole allocation, e.g. srun
// --exclusive=allocation, or more CPUs than its tasks ask) leaves every
// task on all of the step's CPUs, as Slurm's tests expect of
// --exclusive=allocation.
#pragma once

#include <optional>
#include <vector>

namespace gantry::stepd {

// The CPUs local task `localTask` is bound to, or nullopt when the step's
// tasks are not bound one by one.
std::optional<std::vector<int>> taskCpuSlice(std::vector<int> stepCpus, int tasksOnNode, int cpusPerTask,
                                             int localTask);

}  // namespace gantry::stepd
