#include "cli/array_ids.h"

#include <algorithm>
#include <cstdlib>

#include "common/util/task_set.h"

namespace gantry::cli {
namespace {

// Slurm's largest MaxArraySize: no task list a user types needs more.
constexpr uint32_t kLargestArraySize = 4000001;
// Slurm's default for SLURM_BITSTR_LEN: how much of a task list is shown.
constexpr size_t kShownTaskListLength = 64;

Error invalid(std::string_view text) { return Error{"Invalid job id: " + std::string(text)}; }

std::string shownTaskList(std::string list) {
  size_t limit = kShownTaskListLength;
  if (const char* env = std::getenv("SLURM_BITSTR_LEN"); env != nullptr && *env != '\0') {
    long value = std::strtol(env, nullptr, 10);
    if (value <= 0) return list;  // 0 (or nonsense): the whole list
    limit = static_cast<size_t>(std::min(value, 4096L));
  }
  if (limit >= 4 && list.size() > limit - 3) list = list.substr(0, limit - 4) + "...";
  return list;
}

std::string pendingTaskList(const gantry::v1::Job& job) {
  std::string list = shownTaskList(job.array_pending());
  if (job.array_throttle() > 0) list += "%" + std::to_string(job.array_throttle());
  return list;
}

bool holdsPendingTasks(const gantry::v1::Job& job) {
  return job.array_job_id() != 0 && !job.has_array_task_id() && !job.array_pending().empty();
}

}  // namespace

Result<JobTarget> parseJobTarget(std::string_view text) {
  size_t underscore = text.find('_');
  std::string_view idText = text.substr(0, underscore);
  if (idText.empty() || idText.size() > 19 ||
      !std::all_of(idText.begin(), idText.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return invalid(text);
  }
  JobTarget target;
  target.id = std::stoull(std::string(idText));
  if (target.id == 0) return invalid(text);
  if (underscore == std::string_view::npos) return target;
  std::string_view tasks = text.substr(underscore + 1);
  if (tasks.size() >= 2 && tasks.front() == '[' && tasks.back() == ']') tasks = tasks.substr(1, tasks.size() - 2);
  auto parsed = TaskSet::parse(tasks, kLargestArraySize);
  if (!parsed) return invalid(text);
  target.tasks = std::string(tasks);
  return target;
}

std::vector<std::string> splitJobList(std::string_view text) {
  std::vector<std::string> pieces;
  std::string piece;
  int depth = 0;
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']' && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      if (!piece.empty()) pieces.push_back(piece);
      piece.clear();
      continue;
    }
    piece += c;
  }
  if (!piece.empty()) pieces.push_back(piece);
  return pieces;
}

std::string arrayJobIdText(const gantry::v1::Job& job) {
  if (job.array_job_id() == 0) return std::to_string(job.job_id());
  if (job.has_array_task_id()) return std::to_string(job.array_job_id()) + "_" + std::to_string(job.array_task_id());
  return std::to_string(job.array_job_id()) + "_[" + pendingTaskList(job) + "]";
}

std::string arrayTaskText(const gantry::v1::Job& job) {
  if (job.array_job_id() == 0) return "N/A";
  if (job.has_array_task_id()) return std::to_string(job.array_task_id());
  return pendingTaskList(job);
}

uint64_t arrayJobIdOf(const gantry::v1::Job& job) {
  return job.array_job_id() != 0 ? job.array_job_id() : job.job_id();
}

bool jobMatches(const gantry::v1::Job& job, const JobTarget& target) {
  if (target.tasks.empty()) return job.job_id() == target.id || job.array_job_id() == target.id;
  if (job.array_job_id() != target.id) return false;
  auto wanted = TaskSet::parse(target.tasks, kLargestArraySize);
  if (!wanted) return false;
  if (job.has_array_task_id()) return wanted->contains(job.array_task_id());
  auto pending = TaskSet::parse(job.array_pending(), kLargestArraySize);
  if (!pending) return false;
  for (uint32_t index : wanted->indexes()) {
    if (pending->contains(index)) return true;
  }
  return false;
}

std::vector<gantry::v1::Job> expandArrayRecords(const std::vector<gantry::v1::Job>& jobs) {
  std::vector<gantry::v1::Job> expanded;
  expanded.reserve(jobs.size());
  for (const auto& job : jobs) {
    auto pending = holdsPendingTasks(job) ? TaskSet::parse(job.array_pending(), kLargestArraySize)
                                          : Result<TaskSet>(Error{"not an array's record"});
    if (!pending) {
      expanded.push_back(job);
      continue;
    }
    for (uint32_t index : pending->indexes()) {
      gantry::v1::Job task = job;
      task.set_array_task_id(index);
      task.clear_array_pending();
      expanded.push_back(std::move(task));
    }
  }
  return expanded;
}

}  // namespace gantry::cli
