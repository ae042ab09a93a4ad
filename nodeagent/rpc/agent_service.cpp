#include "nodeagent/rpc/agent_service.h"

#include <csignal>
#include <spdlog/spdlog.h>

#include "common/rpc/channel.h"
#include "common/rpc/error_status.h"

namespace gantry::agent {

grpc::Status AgentService::authorize(grpc::ServerContext* context) const {
  auto caller = rpc::callerIdentity(*context, authenticator_);
  if (!caller) {
    return rpc::toGrpcStatus(Error{caller.errorCode(), "authentication failed: " + caller.error()});
  }
  if (caller->uid != 0 && caller->uid != slurmUserUid_) {
    return rpc::toGrpcStatus(
        Error{ErrorCode::Denied, "only the controller (root or SlurmUser) may call the node agent"});
  }
  return grpc::Status::OK;
}

grpc::Status AgentService::LaunchStep(grpc::ServerContext* context, const v1::LaunchStepRequest* request,
                                      v1::LaunchStepResponse*) {
  if (auto status = authorize(context); !status.ok()) return status;
  auto launched = launcher_.launch(*request);
  if (!launched) {
    spdlog::error("job {} step {}: {}", request->job_id(), request->step_id(), launched.error());
    return rpc::toGrpcStatus(launched.failure());
  }
  spdlog::info("job {} step {}: started", request->job_id(), request->step_id());
  return grpc::Status::OK;
}

// A user's signal (scancel -s): for the tasks, never for gantrystepd.
grpc::Status AgentService::SignalJob(grpc::ServerContext* context, const v1::SignalJobRequest* request,
                                     v1::AgentReply*) {
  if (auto status = authorize(context); !status.ok()) return status;
  if (request->signal() <= 0 || request->signal() >= NSIG) {
    return rpc::toGrpcStatus(Error{ErrorCode::Invalid, "invalid signal " + std::to_string(request->signal())});
  }
  if (!v1::SignalScope_IsValid(request->scope())) {
    return rpc::toGrpcStatus(Error{ErrorCode::Invalid, "invalid signal scope " + std::to_string(request->scope())});
  }
  auto sent = launcher_.signalJob(request->job_id(), request->signal(), request->scope(), request->step_id());
  if (!sent) return rpc::toGrpcStatus(sent.failure());
  return grpc::Status::OK;
}

grpc::Status AgentService::SuspendJob(grpc::ServerContext* context, const v1::AgentJobRequest* request,
                                      v1::AgentReply*) {
  if (auto status = authorize(context); !status.ok()) return status;
  auto done = launcher_.suspendJob(request->job_id());
  if (!done) return rpc::toGrpcStatus(done.failure());
  return grpc::Status::OK;
}
grpc::Status AgentService::ResumeJob(grpc::ServerContext* context, const v1::AgentJobRequest* request,
                                     v1::AgentReply*) {
  if (auto status = authorize(context); !status.ok()) return status;
  auto done = launcher_.resumeJob(request->job_id());
  if (!done) return rpc::toGrpcStatus(done.failure());
  return grpc::Status::OK;
}
grpc::Status AgentService::TerminateJob(grpc::ServerContext* context, const v1::AgentJobRequest* request,
                                        v1::AgentReply*) {
  if (auto status = authorize(context); !status.ok()) return status;
  spdlog::info("job {}: terminate", request->job_id());
  // Every job end reaches here (completions too), so this is where the
  // Epilog starts; a repeat for an ended job is harmless.
  auto ended = launcher_.endJob(request->job_id());
  if (!ended) return rpc::toGrpcStatus(ended.failure());
  return grpc::Status::OK;
}

grpc::Status AgentService::Ping(grpc::ServerContext* context, const v1::PingRequest*, v1::PingResponse* response) {
  if (auto status = authorize(context); !status.ok()) return status;
  response->set_node_name(nodeName_);
  response->set_boot_time(bootTime_);
  return grpc::Status::OK;
}

grpc::Status AgentService::Reconfigure(grpc::ServerContext* context, const v1::AgentReconfigureRequest*,
                                       v1::AgentReply*) {
  if (auto status = authorize(context); !status.ok()) return status;
  if (reconfigures_ == nullptr) {
    return rpc::toGrpcStatus(Error{ErrorCode::Internal, "this agent cannot be reconfigured remotely"});
  }
  // Detection and resctrl setup may take a while; the controller's call
  // allows 20 s, and scontrol waits 30 s for the controller.
  auto done = reconfigures_->requestAndWait(std::chrono::seconds(15));
  if (!done) return rpc::toGrpcStatus(done.failure());
  return grpc::Status::OK;
}

}  // namespace gantry::agent
