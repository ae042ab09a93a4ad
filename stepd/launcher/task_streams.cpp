#include "stepd/launcher/task_streams.h"

#include <unistd.h>

#include "stepd/core/output_pattern.h"

namespace gantry::stepd {
namespace {

OutputPatternValues patternValues(const StepSpec& spec, int task_id) {
  return {.job_id = spec.job_id, .user = spec.user, .job_name = spec.job_name, .node_name = spec.node_name,
          .step_id = spec.step_id, .task_id = task_id, .node_id = spec.node_id, .work_dir = spec.work_dir,
          .array_job_id = spec.array_job_id, .array_task_id = spec.array_task_id};
}

// Opens one output name for a task, reusing the shared file when the name
// has no %t.
class OutputOpener {
 public:
  OutputOpener(const StepSpec& spec, const TaskIdentity& identity, std::string pattern, std::vector<int>& owned)
      : spec_(spec), identity_(identity), pattern_(std::move(pattern)), owned_(owned) {}

  Result<int> forTask(int task_id) {
    if (pattern_.empty()) return -1;
    const bool per_task = patternIsPerTask(pattern_);
    if (!per_task && shared_ >= 0) return shared_;
    auto fd = openOutputAsUser(expandOutputPattern(pattern_, patternValues(spec_, task_id)), identity_,
                               spec_.open_append);
    if (!fd) return fd;
    owned_.push_back(*fd);
    if (!per_task) shared_ = *fd;
    return fd;
  }

 private:
  const StepSpec& spec_;
  const TaskIdentity& identity_;
  std::string pattern_;
  std::vector<int>& owned_;
  int shared_ = -1;
};

}  // namespace

Result<StepStreams> StepStreams::open(const StepSpec& spec, const TaskIdentity& identity) {
  StepStreams streams;
  std::string out_pattern = spec.stdout_pattern;
  if (out_pattern.empty() && spec.isBatch()) out_pattern = "slurm-%j.out";
  OutputOpener out(spec, identity, out_pattern, streams.owned_);
  OutputOpener err(spec, identity, spec.stderr_pattern, streams.owned_);
  const bool per_task_input = patternIsPerTask(spec.stdin_path);
  for (int local = 0; local < spec.tasks_on_node; ++local) {
    const int task_id = spec.first_task_id + local;
    TaskStreams task;
    const std::string input = per_task_input || task_id == 0
                                  ? expandOutputPattern(spec.stdin_path, patternValues(spec, task_id))
                                  : "/dev/null";
    auto in = openInputAsUser(input, identity);
    if (!in) return Error{in.error()};
    streams.owned_.push_back(*in);
    task.in = *in;
    auto out_fd = out.forTask(task_id);
    if (!out_fd) return Error{out_fd.error()};
    task.out = *out_fd;
    if (spec.stderr_pattern.empty()) {
      task.err = task.out;
    } else {
      auto err_fd = err.forTask(task_id);
      if (!err_fd) return Error{err_fd.error()};
      task.err = *err_fd;
    }
    streams.tasks_.push_back(task);
  }
  return streams;
}

StepStreams::~StepStreams() {
  for (int fd : owned_) ::close(fd);
}

}  // namespace gantry::stepd
