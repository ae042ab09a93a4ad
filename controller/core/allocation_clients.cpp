// Allocations held by a client: salloc, and srun outside a job, submit a job
// without a script and give it back when they end. A client that dies
// without giving it back (kill -9, its host lost) would hold the resources
// for ever, so such clients call KeepAllocation every few seconds and the
// core ends the allocation when the calls stop.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "controller/core/controller_core.h"
#include "controller/rpc/views.h"

namespace gantry::core {

void ControllerCore::keepAllocation(v1::KeepAllocationRequest request, auth::Identity caller,
                                    Reply<v1::KeepAllocationResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller), reply = std::move(reply)] {
    JobRecord* job = state_.findJob(request.job_id());
    if (job == nullptr) {
      return reply(Error{ErrorCode::NotFound, "Invalid job id specified: " + std::to_string(request.job_id())});
    }
    if (job->uid != caller.uid && !isAdministrator(caller)) {
      return reply(Error{ErrorCode::Denied, "Access/permission denied"});
    }
    // Not stored: losing it costs at most one timeout after a restart.
    job->clientSeenAt = now();
    v1::KeepAllocationResponse response;
    response.set_job_state(views::toWire(job->state));
    reply(std::move(response));
  });
}

void ControllerCore::checkAllocationClients() {
  const int64_t t = now();
  const int64_t limit = options_.allocationClientTimeoutSeconds;
  if (limit <= 0) return;
  for (auto& [id, job] : state_.jobs) {
    if (!job.spec.client_keepalive() || job.isBatch() || isEnded(job.state)) continue;
    // Counted from the last call, the submission, or this controller's
    // start, whichever came last: a restarted controller gives every
    // client a full period to call again.
    int64_t seen = std::max({job.clientSeenAt, job.submitTime, startTime_});
    if (t - seen < limit) continue;
    spdlog::info("job {}: no word from its salloc/srun for {} s; ending the allocation (InactiveLimit)", id,
                 t - seen);
    (void)applyJob(job, job_event::ClientGone{});
  }
}

}  // namespace gantry::core
