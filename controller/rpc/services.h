// gRPC adapters of the controller: authenticate the caller, hand the request
// to the ControllerCore, wait for its answer, translate its Error into the
// gRPC status of the Error's kind (common/rpc/error_status.h). No logic.
#pragma once

#include <functional>

#include "common/auth/identity.h"
#include "controller/config_reload.h"
#include "controller/core/controller_core.h"
#include "controller/rpc/accounting_queries.h"
#include "gantry/v1/controller.grpc.pb.h"

namespace gantry::ctlrpc {

class ControllerService final : public v1::Controller::Service {
 public:
  // Without a reloader, Reconfigure is refused (in-process tests).
  ControllerService(core::ControllerCore& core, const auth::Authenticator& authenticator,
                    ctl::ConfigReloader* reloader = nullptr)
      : core_(core), authenticator_(authenticator), reloader_(reloader) {}

  grpc::Status SubmitJob(grpc::ServerContext*, const v1::SubmitJobRequest*, v1::SubmitJobResponse*) override;
  grpc::Status CancelJob(grpc::ServerContext*, const v1::CancelJobRequest*, v1::CancelJobResponse*) override;
  grpc::Status ListJobs(grpc::ServerContext*, const v1::ListJobsRequest*, v1::ListJobsResponse*) override;
  grpc::Status GetBatchScript(grpc::ServerContext*, const v1::GetBatchScriptRequest*,
                              v1::GetBatchScriptResponse*) override;
  grpc::Status ListNodes(grpc::ServerContext*, const v1::ListNodesRequest*, v1::ListNodesResponse*) override;
  grpc::Status ListPartitions(grpc::ServerContext*, const v1::ListPartitionsRequest*, v1::ListPartitionsResponse*) override;
  grpc::Status ListShares(grpc::ServerContext*, const v1::ListSharesRequest*, v1::ListSharesResponse*) override;
  grpc::Status GetConfig(grpc::ServerContext*, const v1::GetConfigRequest*, v1::GetConfigResponse*) override;
  grpc::Status UpdateNode(grpc::ServerContext*, const v1::UpdateNodeRequest*, v1::UpdateNodeResponse*) override;
  grpc::Status UpdateTres(grpc::ServerContext*, const v1::UpdateTresRequest*, v1::UpdateTresResponse*) override;
  grpc::Status ListDrainedTres(grpc::ServerContext*, const v1::ListDrainedTresRequest*,
                               v1::ListDrainedTresResponse*) override;
  grpc::Status SuspendJob(grpc::ServerContext*, const v1::JobActionRequest*, v1::JobActionResponse*) override;
  grpc::Status ResumeJob(grpc::ServerContext*, const v1::JobActionRequest*, v1::JobActionResponse*) override;
  grpc::Status HoldJob(grpc::ServerContext*, const v1::JobActionRequest*, v1::JobActionResponse*) override;
  grpc::Status ReleaseJob(grpc::ServerContext*, const v1::JobActionRequest*, v1::JobActionResponse*) override;
  grpc::Status RequeueJob(grpc::ServerContext*, const v1::JobActionRequest*, v1::JobActionResponse*) override;
  grpc::Status CreateStep(grpc::ServerContext*, const v1::CreateStepRequest*, v1::CreateStepResponse*) override;
  grpc::Status GetStep(grpc::ServerContext*, const v1::GetStepRequest*, v1::GetStepResponse*) override;
  grpc::Status CompleteAllocation(grpc::ServerContext*, const v1::CompleteAllocationRequest*,
                                  v1::CompleteAllocationResponse*) override;
  grpc::Status KeepAllocation(grpc::ServerContext*, const v1::KeepAllocationRequest*,
                              v1::KeepAllocationResponse*) override;
  grpc::Status Reconfigure(grpc::ServerContext*, const v1::ReconfigureRequest*, v1::ReconfigureResponse*) override;
  // sacct and sacctmgr show event (accounting_service.cpp): answered on the
  // handler thread from the accounting store, never on the core's strand.
  grpc::Status ListAccountingJobs(grpc::ServerContext*, const v1::ListAccountingJobsRequest*,
                                  v1::ListAccountingJobsResponse*) override;
  grpc::Status ListNodeEvents(grpc::ServerContext*, const v1::ListNodeEventsRequest*,
                              v1::ListNodeEventsResponse*) override;
  grpc::Status PingController(grpc::ServerContext*, const v1::PingControllerRequest*,
                              v1::PingControllerResponse*) override;
  // Refused unless stopWith() was given a way to stop (in-process tests).
  grpc::Status Shutdown(grpc::ServerContext*, const v1::ShutdownRequest*, v1::ShutdownResponse*) override;
  grpc::Status UpdateJob(grpc::ServerContext*, const v1::UpdateJobRequest*, v1::UpdateJobResponse*) override;

  // Set once, before the server starts; without it the accounting calls
  // answer that accounting is off.
  void serveAccounting(AccountingAccess access) { accounting_ = std::move(access); }

  // Set once, before the server starts: what Shutdown runs once it has
  // checked the caller (it must only start the stop, not wait for it, as
  // the call still has to be answered).
  void stopWith(std::function<void()> stop) { stop_ = std::move(stop); }

 private:
  grpc::Status jobAction(grpc::ServerContext*, core::ControllerCore::JobAction, const v1::JobActionRequest& request);
  core::ControllerCore& core_;
  const auth::Authenticator& authenticator_;
  ctl::ConfigReloader* reloader_;
  AccountingAccess accounting_;
  std::function<void()> stop_;
};

// Only root or SlurmUser (the agents) may call these.
class ControllerAgentService final : public v1::ControllerAgent::Service {
 public:
  ControllerAgentService(core::ControllerCore& core, const auth::Authenticator& authenticator)
      : core_(core), authenticator_(authenticator) {}

  grpc::Status Register(grpc::ServerContext*, const v1::RegisterRequest*, v1::RegisterResponse*) override;
  grpc::Status Heartbeat(grpc::ServerContext*, const v1::HeartbeatRequest*, v1::HeartbeatResponse*) override;
  grpc::Status StepComplete(grpc::ServerContext*, const v1::StepCompleteRequest*, v1::StepCompleteResponse*) override;

 private:
  grpc::Status checkAgent(grpc::ServerContext* context);
  core::ControllerCore& core_;
  const auth::Authenticator& authenticator_;
};

}  // namespace gantry::ctlrpc
