// The node agent's gRPC service: only root or SlurmUser (the controller) may
// call it. Each call maps onto the StepLauncher; nothing here blocks for
// longer than starting a process.
#pragma once

#include "common/auth/identity.h"
#include "gantry/v1/agent.grpc.pb.h"
#include "nodeagent/launch/step_launcher.h"
#include "nodeagent/reconfigure_requests.h"

namespace gantry::agent {

class AgentService final : public v1::Agent::Service {
 public:
  AgentService(StepLauncher& launcher, const auth::Authenticator& authenticator, uint32_t slurmUserUid,
               std::string nodeName, int64_t bootTime, ReconfigureRequests* reconfigures = nullptr)
      : launcher_(launcher),
        authenticator_(authenticator),
        slurmUserUid_(slurmUserUid),
        nodeName_(std::move(nodeName)),
        bootTime_(bootTime),
        reconfigures_(reconfigures) {}

  grpc::Status LaunchStep(grpc::ServerContext*, const v1::LaunchStepRequest*, v1::LaunchStepResponse*) override;
  grpc::Status SignalJob(grpc::ServerContext*, const v1::SignalJobRequest*, v1::AgentReply*) override;
  grpc::Status SuspendJob(grpc::ServerContext*, const v1::AgentJobRequest*, v1::AgentReply*) override;
  grpc::Status ResumeJob(grpc::ServerContext*, const v1::AgentJobRequest*, v1::AgentReply*) override;
  grpc::Status TerminateJob(grpc::ServerContext*, const v1::AgentJobRequest*, v1::AgentReply*) override;
  grpc::Status Ping(grpc::ServerContext*, const v1::PingRequest*, v1::PingResponse*) override;
  // Answered once the reload it asked for (the SIGHUP path) has ended.
  grpc::Status Reconfigure(grpc::ServerContext*, const v1::AgentReconfigureRequest*, v1::AgentReply*) override;

 private:
  grpc::Status authorize(grpc::ServerContext* context) const;

  StepLauncher& launcher_;
  const auth::Authenticator& authenticator_;
  uint32_t slurmUserUid_;
  std::string nodeName_;
  int64_t bootTime_;
  ReconfigureRequests* reconfigures_;  // null: Reconfigure is refused
};

}  // namespace gantry::agent
