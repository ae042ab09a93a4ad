#include "controller/rpc/services.h"

#include <future>

#include "common/rpc/channel.h"
#include "common/rpc/error_status.h"
#include "controller/rpc/request_checks.h"

namespace gantry::ctlrpc {
namespace {

// The core always answers; the bound only protects a handler thread from a
// core that is shutting down.
constexpr auto kCoreTimeout = std::chrono::seconds(60);

// Calls `start(reply)` and waits for the reply; copies the value into `out`.
template <typename T, typename Start>
grpc::Status await(Start start, T* out) {
  auto promise = std::make_shared<std::promise<Result<T>>>();
  auto future = promise->get_future();
  start([promise](Result<T> result) { promise->set_value(std::move(result)); });
  if (future.wait_for(kCoreTimeout) != std::future_status::ready) {
    return rpc::toGrpcStatus(Error{ErrorCode::Unavailable, "controller busy, try again"});
  }
  Result<T> result = future.get();
  if (!result) return rpc::toGrpcStatus(result.failure());
  if (out != nullptr) *out = std::move(result).value();
  return grpc::Status::OK;
}

Result<auth::Identity> identify(grpc::ServerContext* context, const auth::Authenticator& authenticator) {
  return rpc::callerIdentity(*context, authenticator);
}

// A caller we cannot identify is refused (Denied), unless the check itself
// could not be made (munged unreachable: Unavailable, worth a retry).
grpc::Status unauthenticated(const Error& why) {
  return rpc::toGrpcStatus(Error{why.code, "authentication failed: " + why.message});
}

// A request with a field no handler can act on is refused before the core
// sees it (request_checks.h).
template <typename Request>
grpc::Status refusal(const Request& request) {
  Status checked = checkRequest(request);
  return checked ? grpc::Status::OK : rpc::toGrpcStatus(checked.failure());
}

}  // namespace

grpc::Status ControllerService::SubmitJob(grpc::ServerContext* context, const v1::SubmitJobRequest* request,
                                          v1::SubmitJobResponse* response) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (auto refused = refusal(*request); !refused.ok()) return refused;
  return await<v1::SubmitJobResponse>(
      [&](auto reply) { core_.submitJob(*request, *caller, std::move(reply)); }, response);
}

grpc::Status ControllerService::CancelJob(grpc::ServerContext* context, const v1::CancelJobRequest* request,
                                          v1::CancelJobResponse* response) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (auto refused = refusal(*request); !refused.ok()) return refused;
  return await<v1::CancelJobResponse>(
      [&](auto reply) { core_.cancelJob(*request, *caller, std::move(reply)); }, response);
}

grpc::Status ControllerService::ListJobs(grpc::ServerContext* context, const v1::ListJobsRequest* request,
                                         v1::ListJobsResponse* response) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (auto refused = refusal(*request); !refused.ok()) return refused;
  return await<v1::ListJobsResponse>([&](auto reply) { core_.listJobs(*request, *caller, std::move(reply)); },
                                     response);
}

grpc::Status ControllerService::GetBatchScript(grpc::ServerContext* context, const v1::GetBatchScriptRequest* request,
                                               v1::GetBatchScriptResponse* response) {
  if (auto refused = refusal(*request); !refused.ok()) return refused;
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  return await<v1::GetBatchScriptResponse>(
      [&](auto reply) { core_.getBatchScript(*request, *caller, std::move(reply)); }, response);
}

grpc::Status ControllerService::ListNodes(grpc::ServerContext* context, const v1::ListNodesRequest* request,
                                          v1::ListNodesResponse* response) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  return await<v1::ListNodesResponse>([&](auto reply) { core_.listNodes(*request, *caller, std::move(reply)); },
                                      response);
}

grpc::Status ControllerService::ListShares(grpc::ServerContext* context, const v1::ListSharesRequest* request,
                                           v1::ListSharesResponse* response) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (request->users_size() > 1000) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "users: at most 1000 names, got " +
                                                                std::to_string(request->users_size()));
  }
  return await<v1::ListSharesResponse>([&](auto reply) { core_.listShares(*request, *caller, std::move(reply)); },
                                       response);
}

grpc::Status ControllerService::ListPartitions(grpc::ServerContext* context,
                                               const v1::ListPartitionsRequest* request,
                                               v1::ListPartitionsResponse* response) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  return await<v1::ListPartitionsResponse>(
      [&](auto reply) { core_.listPartitions(*request, std::move(reply)); }, response);
}

grpc::Status ControllerService::GetConfig(grpc::ServerContext* context, const v1::GetConfigRequest*,
                                          v1::GetConfigResponse* response) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  return await<v1::GetConfigResponse>([&](auto reply) { core_.getConfig(*caller, std::move(reply)); }, response);
}

grpc::Status ControllerService::UpdateNode(grpc::ServerContext* context, const v1::UpdateNodeRequest* request,
                                           v1::UpdateNodeResponse* response) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (auto refused = refusal(*request); !refused.ok()) return refused;
  return await<v1::UpdateNodeResponse>(
      [&](auto reply) { core_.updateNode(*request, *caller, std::move(reply)); }, response);
}

grpc::Status ControllerService::UpdateTres(grpc::ServerContext* context, const v1::UpdateTresRequest* request,
                                           v1::UpdateTresResponse* response) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (auto refused = refusal(*request); !refused.ok()) return refused;
  return await<v1::UpdateTresResponse>(
      [&](auto reply) { core_.updateTres(*request, *caller, std::move(reply)); }, response);
}

grpc::Status ControllerService::ListDrainedTres(grpc::ServerContext* context,
                                                const v1::ListDrainedTresRequest* request,
                                                v1::ListDrainedTresResponse* response) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (auto refused = refusal(*request); !refused.ok()) return refused;
  return await<v1::ListDrainedTresResponse>(
      [&](auto reply) { core_.listDrainedTres(*request, *caller, std::move(reply)); }, response);
}

grpc::Status ControllerService::jobAction(grpc::ServerContext* context, core::ControllerCore::JobAction action,
                                          const v1::JobActionRequest& request) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (auto refused = refusal(request); !refused.ok()) return refused;
  return await<Ok>(
      [&](auto reply) { core_.jobAction(action, request.job_id(), request.array_tasks(), *caller, std::move(reply)); },
      static_cast<Ok*>(nullptr));
}

grpc::Status ControllerService::SuspendJob(grpc::ServerContext* context, const v1::JobActionRequest* request,
                                           v1::JobActionResponse*) {
  return jobAction(context, core::ControllerCore::JobAction::Suspend, *request);
}
grpc::Status ControllerService::ResumeJob(grpc::ServerContext* context, const v1::JobActionRequest* request,
                                          v1::JobActionResponse*) {
  return jobAction(context, core::ControllerCore::JobAction::Resume, *request);
}
grpc::Status ControllerService::HoldJob(grpc::ServerContext* context, const v1::JobActionRequest* request,
                                        v1::JobActionResponse*) {
  return jobAction(context, core::ControllerCore::JobAction::Hold, *request);
}
grpc::Status ControllerService::ReleaseJob(grpc::ServerContext* context, const v1::JobActionRequest* request,
                                           v1::JobActionResponse*) {
  return jobAction(context, core::ControllerCore::JobAction::Release, *request);
}

grpc::Status ControllerService::RequeueJob(grpc::ServerContext* context, const v1::JobActionRequest* request,
                                           v1::JobActionResponse*) {
  return jobAction(context, core::ControllerCore::JobAction::Requeue, *request);
}

grpc::Status ControllerService::CreateStep(grpc::ServerContext* context, const v1::CreateStepRequest* request,
                                           v1::CreateStepResponse* response) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (auto refused = refusal(*request); !refused.ok()) return refused;
  return await<v1::CreateStepResponse>(
      [&](auto reply) { core_.createStep(*request, *caller, std::move(reply)); }, response);
}

grpc::Status ControllerService::GetStep(grpc::ServerContext* context, const v1::GetStepRequest* request,
                                        v1::GetStepResponse* response) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (auto refused = refusal(*request); !refused.ok()) return refused;
  return await<v1::GetStepResponse>([&](auto reply) { core_.getStep(*request, *caller, std::move(reply)); },
                                    response);
}

grpc::Status ControllerService::CompleteAllocation(grpc::ServerContext* context,
                                                   const v1::CompleteAllocationRequest* request,
                                                   v1::CompleteAllocationResponse* response) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (auto refused = refusal(*request); !refused.ok()) return refused;
  return await<v1::CompleteAllocationResponse>(
      [&](auto reply) { core_.completeAllocation(*request, *caller, std::move(reply)); }, response);
}

grpc::Status ControllerService::KeepAllocation(grpc::ServerContext* context, const v1::KeepAllocationRequest* request,
                                               v1::KeepAllocationResponse* response) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (auto refused = refusal(*request); !refused.ok()) return refused;
  return await<v1::KeepAllocationResponse>(
      [&](auto reply) { core_.keepAllocation(*request, *caller, std::move(reply)); }, response);
}

grpc::Status ControllerService::Reconfigure(grpc::ServerContext* context, const v1::ReconfigureRequest*,
                                            v1::ReconfigureResponse* response) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (!core_.isAdministrator(*caller)) {
    return rpc::toGrpcStatus(Error{ErrorCode::Denied, "Access/permission denied"});
  }
  if (reloader_ == nullptr) {
    return rpc::toGrpcStatus(Error{ErrorCode::Internal, "this controller cannot re-read its configuration"});
  }
  // Reads files and waits for the agents: on this handler thread, never on
  // the core's strand.
  auto reloaded = reloader_->reload();
  if (!reloaded) return rpc::toGrpcStatus(reloaded.failure());
  for (const auto& problem : *reloaded) response->add_node_errors(problem);
  return grpc::Status::OK;
}

grpc::Status ControllerService::UpdateJob(grpc::ServerContext* context, const v1::UpdateJobRequest* request,
                                          v1::UpdateJobResponse*) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (auto refused = refusal(*request); !refused.ok()) return refused;
  return await<Ok>([&](auto reply) { core_.updateJob(*request, *caller, std::move(reply)); },
                   static_cast<Ok*>(nullptr));
}

grpc::Status ControllerService::PingController(grpc::ServerContext*, const v1::PingControllerRequest*,
                                               v1::PingControllerResponse*) {
  return grpc::Status::OK;
}

grpc::Status ControllerService::Shutdown(grpc::ServerContext* context, const v1::ShutdownRequest*,
                                         v1::ShutdownResponse*) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (!core_.isAdministrator(*caller)) {
    return rpc::toGrpcStatus(Error{ErrorCode::Denied, "Access/permission denied"});
  }
  if (!stop_) return rpc::toGrpcStatus(Error{ErrorCode::Internal, "this controller cannot be shut down by a call"});
  stop_();
  return grpc::Status::OK;
}

grpc::Status ControllerAgentService::checkAgent(grpc::ServerContext* context) {
  auto caller = identify(context, authenticator_);
  if (!caller) return unauthenticated(caller.failure());
  if (!core_.isAdministrator(*caller)) {
    return rpc::toGrpcStatus(Error{ErrorCode::Denied,
                                   "only root or SlurmUser may speak for a node agent (caller uid " +
                                       std::to_string(caller->uid) + ")"});
  }
  return grpc::Status::OK;
}

grpc::Status ControllerAgentService::Register(grpc::ServerContext* context, const v1::RegisterRequest* request,
                                              v1::RegisterResponse* response) {
  if (auto status = checkAgent(context); !status.ok()) return status;
  if (auto refused = refusal(*request); !refused.ok()) return refused;
  return await<v1::RegisterResponse>([&](auto reply) { core_.registerNode(*request, std::move(reply)); },
                                     response);
}

grpc::Status ControllerAgentService::Heartbeat(grpc::ServerContext* context, const v1::HeartbeatRequest* request,
                                               v1::HeartbeatResponse* response) {
  if (auto status = checkAgent(context); !status.ok()) return status;
  if (auto refused = refusal(*request); !refused.ok()) return refused;
  return await<v1::HeartbeatResponse>([&](auto reply) { core_.heartbeat(*request, std::move(reply)); },
                                      response);
}

grpc::Status ControllerAgentService::StepComplete(grpc::ServerContext* context,
                                                  const v1::StepCompleteRequest* request,
                                                  v1::StepCompleteResponse* response) {
  if (auto status = checkAgent(context); !status.ok()) return status;
  if (auto refused = refusal(*request); !refused.ok()) return refused;
  return await<v1::StepCompleteResponse>(
      [&](auto reply) { core_.stepComplete(*request, std::move(reply)); }, response);
}

}  // namespace gantry::ctlrpc
