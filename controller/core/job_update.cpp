// scontrol update JobId=...: the rules (job_update_rules.h) first, then a
// new partition or node count is checked as a submission is, and only when
// every field passes is the job changed and stored.
#include <algorithm>
#include <optional>

#include "controller/core/controller_core.h"
#include "controller/core/job_request.h"
#include "controller/core/job_update_rules.h"

namespace gantry::core {
namespace {

// The job's spec with the request's fields laid over it.
v1::JobSpec updatedSpec(v1::JobSpec spec, const v1::UpdateJobRequest& request) {
  if (request.has_name()) spec.set_name(request.name());
  if (request.has_comment()) spec.set_comment(request.comment());
  if (request.has_priority()) spec.set_priority(request.priority());
  if (request.has_nice()) spec.set_nice(request.nice());
  if (request.has_partition()) spec.set_partition(request.partition());
  // Later steps follow a new binding; running ones keep theirs.
  if (request.has_tres_bind()) spec.set_tres_bind(request.tres_bind());
  if (request.has_gres_per_node()) {
    spec.clear_gres();
    for (const auto& item : request.gres_per_node().items()) *spec.add_gres() = item;
    spec.set_gpus_per_node(0);
    // The GPU type belonged to --gpus-per-node alone when no other GPU
    // option is left to carry it.
    if (spec.gpus() == 0 && spec.gpus_per_task() == 0 && spec.gpus_per_socket() == 0) spec.clear_gpu_type();
  }
  if (request.has_num_nodes()) {
    spec.set_min_nodes(request.num_nodes());
    spec.set_max_nodes(request.num_nodes());
  }
  if (request.has_dependency()) spec.set_dependency(request.dependency());
  if (request.has_begin_time()) spec.set_begin_time(request.begin_time());
  if (request.has_time_limit_minutes()) {
    spec.set_time_limit_minutes(request.time_limit_minutes());
    spec.set_time_limit_seconds(0);  // the minutes given replace a finer limit
  }
  return spec;
}

}  // namespace

void ControllerCore::updateJob(v1::UpdateJobRequest request, auth::Identity caller, Reply<Ok> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller), reply = std::move(reply)]() mutable {
    const bool admin = isAdministrator(caller);
    auto ownerOrAdmin = [&](const JobRecord& job) -> Status {
      if (job.uid != caller.uid && !admin) return Error{ErrorCode::Denied, "Access/permission denied"};
      return okStatus();
    };
    auto records = targetRecords(request.job_id(), request.array_tasks(), ownerOrAdmin);
    if (!records) {
      if (records.errorCode() == ErrorCode::NotFound) return reply(Error{ErrorCode::NotFound, "Invalid job id specified"});
      return reply(Error{records.failure()});
    }
    // An array: its tasks that ended are left as they are. Every record
    // is checked before any changes, so a refusal changes nothing.
    const bool several = records->size() > 1;
    struct Change {
      JobRecord* job;
      v1::JobSpec spec;
      int64_t limit;
      std::optional<Dependency> dependency;
    };
    std::vector<Change> changes;
    for (JobRecord* job : *records) {
      if (several && (isEnded(job->state) || job->state == JobState::Completing)) continue;
      auto change = checkedUpdate(*job, request, caller);
      if (!change) return reply(Error{change.failure()});
      changes.push_back({job, std::move(change->spec), change->limit, std::move(change->dependency)});
    }
    if (changes.empty()) return reply(Error{ErrorCode::Invalid, "Job has already finished"});
    for (Change& change : changes) {
      JobRecord* job = change.job;
      job->spec = std::move(change.spec);
      job->timeLimitSeconds = change.limit;
      if (change.dependency) {
        // A new dependency is judged afresh, so a failed one can be replaced.
        job->dependency = std::move(*change.dependency);
        if (job->reason == JobReason::Dependency || job->reason == JobReason::DependencyNeverSatisfied) {
          job->reason = JobReason::None;
        }
      }
      if (request.has_begin_time() && !job->held()) {
        job->eligibleTime = std::max(job->submitTime, job->spec.begin_time());
        if (job->reason == JobReason::BeginTime) job->reason = JobReason::None;
      }
      // ArrayTaskThrottle= belongs to the record that starts the array's tasks.
      if (request.has_array_throttle() && job->holdsArrayTasks()) {
        job->arrayThrottle = request.array_throttle();
        if (job->reason == JobReason::JobArrayTaskLimit) job->reason = JobReason::None;
      }
      if (&change != &changes.back()) executor_.persistJob(*job);
    }
    executor_.persistJob(*changes.back().job, [reply = std::move(reply)](const Status& stored) {
      if (!stored) return reply(Error{ErrorCode::Internal, "cannot store the job: " + stored.error()});
      reply(Ok{});
    });
    requestSchedule();
  });
}

Result<ControllerCore::CheckedUpdate> ControllerCore::checkedUpdate(const JobRecord& job,
                                                                    const v1::UpdateJobRequest& request,
                                                                    const auth::Identity& caller) const {
  JobUpdateFacts facts{.owner = job.uid == caller.uid,
                       .admin = isAdministrator(caller),
                       .pending = job.state == JobState::Pending,
                       .ended = isEnded(job.state) || job.state == JobState::Completing,
                       .timeLimitSeconds = job.timeLimitSeconds};
  if (auto allowed = checkJobUpdate(request, facts); !allowed) return Error{allowed.failure()};
  if (request.has_tres_bind()) {
    if (auto bind = checkTresBindValue(request.tres_bind()); !bind) return Error{bind.failure()};
  }
  CheckedUpdate checked;
  if (request.has_dependency()) {
    auto dependency = checkedDependency(request.dependency());
    if (!dependency) return Error{dependency.failure()};
    // Jobs waiting for each other would wait for ever.
    auto dependencyOf = [this](uint64_t id) -> const Dependency* {
      const JobRecord* named = state_.findJob(id);
      return named == nullptr || named->dependency.empty() ? nullptr : &named->dependency;
    };
    if (closesCircle(*dependency, job.id, dependencyOf)) return Error{ErrorCode::Invalid, "Circular job dependency"};
    checked.dependency = std::move(*dependency);
  }
  checked.spec = updatedSpec(job.spec, request);
  const config::PartitionConf* partition = conf_.findPartition(checked.spec.partition());
  if (partition == nullptr) return Error{ErrorCode::Invalid, "Invalid partition name specified"};
  checked.limit = job.timeLimitSeconds;
  if (request.has_time_limit_minutes() || request.has_partition()) {
    auto computed = effectiveTimeLimit(checked.spec, *partition);
    if (!computed) return Error{computed.failure()};
    checked.limit = *computed;
  }
  if (request.has_partition() || request.has_num_nodes() || request.has_gres_per_node()) {
    if (partition->state != "UP" && request.has_partition()) {
      return Error{ErrorCode::NotNow,
                   "Partition " + partition->name + " is not accepting jobs (State=" + partition->state + ")"};
    }
    auto selectRequest = toSelectRequest(checked.spec);
    if (!selectRequest) return Error{selectRequest.failure()};
    if (auto ever = checkEverRuns(*selectRequest, *partition); !ever) return Error{ever.failure()};
  }
  return checked;
}

}  // namespace gantry::core
