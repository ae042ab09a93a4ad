// How the controller core reaches node agents. Every call is asynchronous:
// the core hands over a request and a callback and moves on, so a slow or
// dead node never stalls the core's strand. Callbacks run on the gateway's
// threads; the core re-posts them onto its strand.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "common/auth/identity.h"
#include "common/util/result.h"
#include "gantry/v1/agent.pb.h"

namespace gantry::core {

// Which of a job's processes a user's signal reaches (scancel -b/-f).
enum class SignalScope {
  Steps,  // every step's tasks, not the batch shell (SIGKILL reaches it too)
  Batch,  // the batch shell itself only
  Full,   // every step, the batch shell and its children
};

struct AgentAddress {
  std::string node;
  std::string addr;
  int port = 0;
};

class AgentGateway {
 public:
  using Callback = std::function<void(const Status&)>;
  virtual ~AgentGateway() = default;
  virtual void launchStep(const AgentAddress& to, v1::LaunchStepRequest request, Callback done) = 0;
  virtual void terminateJob(const AgentAddress& to, uint64_t jobId, Callback done) = 0;
  // `stepId` non-empty: that step's tasks only; otherwise `scope` decides.
  virtual void signalJob(const AgentAddress& to, uint64_t jobId, const std::string& stepId, int signal,
                         SignalScope scope, Callback done) = 0;
  virtual void suspendJob(const AgentAddress& to, uint64_t jobId, Callback done) = 0;
  virtual void resumeJob(const AgentAddress& to, uint64_t jobId, Callback done) = 0;
  // Asks the agent to re-read its configuration (scontrol reconfigure);
  // answered once it has, with its failure message when it could not.
  virtual void reconfigure(const AgentAddress& to, Callback done) = 0;
};

// The real gateway: gRPC calls made on a small thread pool. A launch may
// wait for the node's Prolog, so its deadline is `launchTimeout`; a
// reconfigure may rerun hardware detection and gets 20 s; other calls 10 s.
std::unique_ptr<AgentGateway> makeGrpcAgentGateway(const auth::Authenticator& authenticator, int threads,
                                                   std::chrono::seconds launchTimeout);

}  // namespace gantry::core
