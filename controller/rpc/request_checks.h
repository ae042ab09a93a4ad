// Field checks of the controller's requests, made by the service adapters
// before a request reaches the core: values no handler can act on (job id
// 0, an empty node name, a signal number out of range, a negative port)
// are refused as Invalid with a message naming the field, e.g.
// "job_id: must be a job id (1 or more), got 0". Checks that need the
// core's state or configuration (partitions, limits, what a node could
// serve) stay in the core.
#pragma once

#include "common/util/result.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::ctlrpc {

Status checkRequest(const v1::SubmitJobRequest& request);
Status checkRequest(const v1::CancelJobRequest& request);
Status checkRequest(const v1::ListJobsRequest& request);
Status checkRequest(const v1::UpdateNodeRequest& request);
// Exactly one of words and json, within the sizes below; what they say is
// the drain model's to judge.
Status checkRequest(const v1::UpdateTresRequest& request);
Status checkRequest(const v1::ListDrainedTresRequest& request);
Status checkRequest(const v1::JobActionRequest& request);
// A job id, and a name and comment no longer than a submission's may be.
Status checkRequest(const v1::UpdateJobRequest& request);
Status checkRequest(const v1::GetBatchScriptRequest& request);
Status checkRequest(const v1::CreateStepRequest& request);
Status checkRequest(const v1::GetStepRequest& request);
Status checkRequest(const v1::CompleteAllocationRequest& request);
Status checkRequest(const v1::KeepAllocationRequest& request);
Status checkRequest(const v1::RegisterRequest& request);
Status checkRequest(const v1::HeartbeatRequest& request);
Status checkRequest(const v1::StepCompleteRequest& request);

}  // namespace gantry::ctlrpc
