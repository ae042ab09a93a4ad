// The standard streams of a step's tasks, opened before any task starts.
// Output files are created by the task's user; a name without %t is one
// file shared by all tasks of the node (opened once, in append mode), a name
// with %t is one file per task. An empty stderr name means "with stdout".
// Standard input goes to task 0, or to every task when its name has %t; the
// others read /dev/null. An empty stdout name means slurm-%j.out for a
// batch step and gantrystepd's own stdout for the others.
#pragma once

#include <vector>

#include "common/util/result.h"
#include "stepd/core/step_spec.h"
#include "stepd/launcher/task_launcher.h"

namespace gantry::stepd {

// File descriptors of one task's standard streams; -1 = inherit ours.
struct TaskStreams {
  int in = -1;
  int out = -1;
  int err = -1;
};

// Owns the descriptors of every task of the step on this node.
class StepStreams {
 public:
  static Result<StepStreams> open(const StepSpec& spec, const TaskIdentity& identity);

  StepStreams(StepStreams&& other) noexcept : tasks_(std::move(other.tasks_)), owned_(std::move(other.owned_)) {
    other.owned_.clear();
  }
  StepStreams(const StepStreams&) = delete;
  StepStreams& operator=(const StepStreams&) = delete;
  ~StepStreams();

  // local_task_id in 0 .. tasks_on_node-1.
  const TaskStreams& forTask(int local_task_id) const { return tasks_.at(local_task_id); }

 private:
  StepStreams() = default;
  std::vector<TaskStreams> tasks_;
  std::vector<int> owned_;
};

}  // namespace gantry::stepd
