// ControllerCore's job updates (scontrol update JobId=N Key=Value...): who
// may change what, checked with the rules a submission meets; the new value
// is durable before the answer, and a refused update changes nothing.
#include "controller/core/controller_core.h"

#include "controller/core/job_request.h"

namespace gantry::core {

void ControllerCore::updateJob(v1::UpdateJobRequest request, auth::Identity caller,
                               Reply<v1::UpdateJobResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller), reply = std::move(reply)]() mutable {
    JobRecord* job = state_.findJob(request.job_id());
    if (job == nullptr) {
      return reply(Error{ErrorCode::NotFound, "Invalid job id specified: " + std::to_string(request.job_id())});
    }
    if (job->uid != caller.uid && !isAdministrator(caller)) {
      return reply(Error{ErrorCode::Denied, "Access/permission denied"});
    }
    if (isEnded(job->state)) return reply(Error{"Job/step already completing or completed"});
    if (request.has_tres_bind()) {
      // Later steps follow the new binding; running ones keep theirs.
      if (auto status = checkTresBindValue(request.tres_bind()); !status) return reply(Error{status.failure()});
      job->spec.set_tres_bind(request.tres_bind());
    }
    executor_.persistJob(*job, [reply](const Status& status) {
      if (!status) return reply(Error{ErrorCode::Internal, "cannot store the job: " + status.error()});
      reply(v1::UpdateJobResponse{});
    });
  });
}

}  // namespace gantry::core
