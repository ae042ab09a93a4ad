// ControllerCore's job arrays: which records a request for an array acts
// on, and how a pending task becomes a record of its own.
//
// An array is submitted as one record (id == arrayJobId) holding every
// task's index in arrayPending. A task gets a record of its own, with a
// new job id, when it starts or when a request names it alone; the
// array's record becomes the last task. So a 100,000-task array costs one
// record (and a bitset) until its tasks run.
#include "controller/core/controller_core.h"


namespace gantry::core {
namespace {

// The largest MaxArraySize Slurm accepts (and gantry.conf's bound): no
// index a request names can be above it, so no request makes a bitset
// larger than half a megabyte.
constexpr uint32_t kLargestArraySize = 4000001;

}  // namespace

void CoreState::addJob(JobRecord record) {
  uint64_t id = record.id;
  if (record.arrayJobId != 0) arrayMembers[record.arrayJobId].insert(id);
  jobs.insert_or_assign(id, std::move(record));
}

const JobRecord* CoreState::arrayTaskRecord(uint64_t array, uint32_t task) const {
  auto members = arrayMembers.find(array);
  if (members == arrayMembers.end()) return nullptr;
  for (uint64_t member : members->second) {
    const JobRecord* record = findJob(member);
    if (record == nullptr) continue;
    if (record->arrayTaskId == task || (record->holdsArrayTasks() && record->arrayPending.contains(task))) {
      return record;
    }
  }
  return nullptr;
}

void CoreState::eraseJob(uint64_t id) {
  auto found = jobs.find(id);
  if (found == jobs.end()) return;
  if (uint64_t array = found->second.arrayJobId; array != 0) {
    auto members = arrayMembers.find(array);
    if (members != arrayMembers.end()) {
      members->second.erase(id);
      if (members->second.empty()) arrayMembers.erase(members);
    }
  }
  jobs.erase(found);
}

JobRecord& ControllerCore::splitArrayTask(JobRecord& array, uint32_t index) {
  array.arrayPending.erase(index);
  if (array.arrayPending.empty()) {
    // The last pending task: the array's record is that task from now on.
    array.arrayTaskId = index;
    array.arrayThrottle = 0;
    executor_.persistJob(array);
    return array;
  }
  JobRecord task = array;
  task.id = state_.nextJobId++;
  task.arrayTaskId = index;
  task.arrayPending = TaskSet{};
  task.arrayThrottle = 0;
  task.plannedStart = 0;
  task.plannedNodes.clear();
  uint64_t id = task.id;
  state_.addJob(std::move(task));
  JobRecord& stored = state_.jobs.at(id);
  // The task first: a controller that stops between the two writes finds
  // the task's record and drops its index from the array's (recover()),
  // so a task never runs twice.
  executor_.persistJob(stored);
  executor_.persistJob(array);
  return stored;
}

int ControllerCore::activeArrayTasks(uint64_t arrayJobId) const {
  auto members = state_.arrayMembers.find(arrayJobId);
  if (members == state_.arrayMembers.end()) return 0;
  int active = 0;
  for (uint64_t id : members->second) {
    const JobRecord* task = state_.findJob(id);
    if (task != nullptr && (task->holdsResources || task->state == JobState::Configuring)) ++active;
  }
  return active;
}

Result<std::vector<JobRecord*>> ControllerCore::targetRecords(
    uint64_t id, const std::string& arrayTasks, const std::function<Status(const JobRecord&)>& allowed) {
  const std::string named = std::to_string(id) + (arrayTasks.empty() ? "" : "_" + arrayTasks);
  auto invalid = [&named] { return Error{ErrorCode::NotFound, "Invalid job id specified: " + named}; };
  auto members = state_.arrayMembers.find(id);
  std::vector<JobRecord*> records;
  if (members == state_.arrayMembers.end()) {
    // Not an array's job id: the job itself (a task named by its own id
    // included), never with task indexes.
    JobRecord* job = state_.findJob(id);
    if (job == nullptr || !arrayTasks.empty()) return invalid();
    if (auto ok = allowed(*job); !ok) return Error{ok.failure()};
    records.push_back(job);
    return records;
  }
  JobRecord* any = state_.findJob(*members->second.begin());
  if (any == nullptr) return invalid();
  if (auto ok = allowed(*any); !ok) return Error{ok.failure()};
  if (arrayTasks.empty()) {
    for (uint64_t member : members->second) {
      if (JobRecord* job = state_.findJob(member)) records.push_back(job);
    }
    return records;
  }
  auto wanted = TaskSet::parse(arrayTasks, kLargestArraySize);
  if (!wanted) return invalid();
  std::map<uint32_t, JobRecord*> ownRecords;
  JobRecord* array = nullptr;
  for (uint64_t member : members->second) {
    JobRecord* job = state_.findJob(member);
    if (job == nullptr) continue;
    if (job->arrayTaskId) {
      ownRecords[*job->arrayTaskId] = job;
    } else if (job->holdsArrayTasks()) {
      array = job;
    }
  }
  for (uint32_t index : wanted->indexes()) {
    if (auto own = ownRecords.find(index); own != ownRecords.end()) {
      records.push_back(own->second);
    } else if (array != nullptr && array->state == JobState::Pending && array->arrayPending.contains(index)) {
      bool last = array->arrayPending.size() == 1;
      records.push_back(&splitArrayTask(*array, index));
      if (last) array = nullptr;
    }
  }
  if (records.empty()) return invalid();
  return records;
}

}  // namespace gantry::core
