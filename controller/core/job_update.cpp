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
    JobRecord* job = state_.findJob(request.job_id());
    if (job == nullptr) return reply(Error{ErrorCode::NotFound, "Invalid job id specified"});
    JobUpdateFacts facts{.owner = job->uid == caller.uid,
                         .admin = isAdministrator(caller),
                         .pending = job->state == JobState::Pending,
                         .ended = isEnded(job->state) || job->state == JobState::Completing,
                         .timeLimitSeconds = job->timeLimitSeconds};
    if (auto allowed = checkJobUpdate(request, facts); !allowed) return reply(Error{allowed.failure()});
    if (request.has_tres_bind()) {
      if (auto bind = checkTresBindValue(request.tres_bind()); !bind) return reply(Error{bind.failure()});
    }
    std::optional<Dependency> dependency;
    if (request.has_dependency()) {
      auto checked = checkedDependency(request.dependency());
      if (!checked) return reply(Error{checked.failure()});
      // Jobs waiting for each other would wait for ever.
      auto dependencyOf = [this](uint64_t id) -> const Dependency* {
        const JobRecord* named = state_.findJob(id);
        return named == nullptr || named->dependency.empty() ? nullptr : &named->dependency;
      };
      if (closesCircle(*checked, job->id, dependencyOf)) {
        return reply(Error{ErrorCode::Invalid, "Circular job dependency"});
      }
      dependency = std::move(*checked);
    }
    v1::JobSpec spec = updatedSpec(job->spec, request);
    const config::PartitionConf* partition = conf_.findPartition(spec.partition());
    if (partition == nullptr) return reply(Error{ErrorCode::Invalid, "Invalid partition name specified"});
    int64_t limit = job->timeLimitSeconds;
    if (request.has_time_limit_minutes() || request.has_partition()) {
      auto computed = effectiveTimeLimit(spec, *partition);
      if (!computed) return reply(Error{computed.failure()});
      limit = *computed;
    }
    if (request.has_partition() || request.has_num_nodes() || request.has_gres_per_node()) {
      if (partition->state != "UP" && request.has_partition()) {
        return reply(Error{ErrorCode::NotNow, "Partition " + partition->name + " is not accepting jobs (State=" +
                                                  partition->state + ")"});
      }
      auto selectRequest = toSelectRequest(spec);
      if (!selectRequest) return reply(Error{selectRequest.failure()});
      if (auto ever = checkEverRuns(*selectRequest, *partition); !ever) return reply(Error{ever.failure()});
    }
    job->spec = std::move(spec);
    job->timeLimitSeconds = limit;
    if (dependency) {
      // A new dependency is judged afresh, so a failed one can be replaced.
      job->dependency = std::move(*dependency);
      if (job->reason == JobReason::Dependency || job->reason == JobReason::DependencyNeverSatisfied) {
        job->reason = JobReason::None;
      }
    }
    if (request.has_begin_time() && !job->held()) {
      job->eligibleTime = std::max(job->submitTime, job->spec.begin_time());
      if (job->reason == JobReason::BeginTime) job->reason = JobReason::None;
    }
    executor_.persistJob(*job, [reply = std::move(reply)](const Status& stored) {
      if (!stored) return reply(Error{ErrorCode::Internal, "cannot store the job: " + stored.error()});
      reply(Ok{});
    });
    requestSchedule();
  });
}

}  // namespace gantry::core
