#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <map>
#include <mutex>

#include "common/rpc/channel.h"
#include "common/rpc/error_status.h"
#include "controller/core/agent_gateway.h"
#include "gantry/v1/agent.grpc.pb.h"

namespace gantry::core {
namespace {

// Thread-safe: the stub cache is guarded by a mutex; calls run on the pool.
class GrpcAgentGateway final : public AgentGateway {
 public:
  GrpcAgentGateway(const auth::Authenticator& authenticator, int threads, std::chrono::seconds launchTimeout)
      : authenticator_(authenticator), pool_(threads), reconfigurePool_(threads), launchTimeout_(launchTimeout) {}
  ~GrpcAgentGateway() override {
    pool_.join();
    reconfigurePool_.join();
  }

  void launchStep(const AgentAddress& to, v1::LaunchStepRequest request, Callback done) override {
    // The agent runs the Prolog before answering a job's first launch on
    // the node, so this call may take up to the Prolog timeout.
    call(to, std::move(done), launchTimeout_, [request = std::move(request)](v1::Agent::Stub& stub,
                                                              grpc::ClientContext* context) {
      v1::LaunchStepResponse response;
      return stub.LaunchStep(context, request, &response);
    });
  }
  void terminateJob(const AgentAddress& to, uint64_t jobId, Callback done) override {
    call(to, std::move(done), kControlTimeout, [jobId](v1::Agent::Stub& stub, grpc::ClientContext* context) {
      v1::AgentJobRequest request;
      request.set_job_id(jobId);
      v1::AgentReply reply;
      return stub.TerminateJob(context, request, &reply);
    });
  }
  void signalJob(const AgentAddress& to, uint64_t jobId, const std::string& stepId, int signal, SignalScope scope,
                 Callback done) override {
    call(to, std::move(done), kControlTimeout, [jobId, stepId, signal, scope](v1::Agent::Stub& stub, grpc::ClientContext* context) {
      v1::SignalJobRequest request;
      request.set_job_id(jobId);
      request.set_step_id(stepId);
      request.set_signal(signal);
      request.set_scope(scope == SignalScope::Batch  ? v1::SIGNAL_SCOPE_BATCH
                        : scope == SignalScope::Full ? v1::SIGNAL_SCOPE_FULL
                                                     : v1::SIGNAL_SCOPE_STEPS);
      v1::AgentReply reply;
      return stub.SignalJob(context, request, &reply);
    });
  }
  void suspendJob(const AgentAddress& to, uint64_t jobId, Callback done) override {
    call(to, std::move(done), kControlTimeout, [jobId](v1::Agent::Stub& stub, grpc::ClientContext* context) {
      v1::AgentJobRequest request;
      request.set_job_id(jobId);
      v1::AgentReply reply;
      return stub.SuspendJob(context, request, &reply);
    });
  }
  void resumeJob(const AgentAddress& to, uint64_t jobId, Callback done) override {
    call(to, std::move(done), kControlTimeout, [jobId](v1::Agent::Stub& stub, grpc::ClientContext* context) {
      v1::AgentJobRequest request;
      request.set_job_id(jobId);
      v1::AgentReply reply;
      return stub.ResumeJob(context, request, &reply);
    });
  }
  void reconfigure(const AgentAddress& to, Callback done) override {
    // A pool of their own: every agent is asked at once and each may take
    // seconds to answer; launches and terminations must not queue behind.
    call(reconfigurePool_, to, std::move(done), kReconfigureTimeout, [](v1::Agent::Stub& stub, grpc::ClientContext* context) {
      v1::AgentReconfigureRequest request;
      v1::AgentReply reply;
      return stub.Reconfigure(context, request, &reply);
    });
  }

 private:
  static constexpr std::chrono::seconds kControlTimeout{10};
  static constexpr std::chrono::seconds kReconfigureTimeout{20};

  template <typename Invoke>
  void call(const AgentAddress& to, Callback done, std::chrono::seconds timeout, Invoke invoke) {
    call(pool_, to, std::move(done), timeout, std::move(invoke));
  }
  template <typename Invoke>
  void call(boost::asio::thread_pool& pool, const AgentAddress& to, Callback done, std::chrono::seconds timeout,
            Invoke invoke) {
    boost::asio::post(pool, [this, to, done = std::move(done), timeout, invoke = std::move(invoke)] {
      auto context = rpc::makeCallContext(authenticator_, timeout);
      Status result = okStatus();
      if (!context) {
        result = context.failure();
      } else {
        grpc::Status status = invoke(stub(to), context->get());
        if (!status.ok()) {
          result = rpc::fromGrpcStatus(status, "node " + to.node + " at " + rpc::endpoint(to.addr, to.port));
        }
      }
      if (done) done(result);
    });
  }

  v1::Agent::Stub& stub(const AgentAddress& to) {
    std::lock_guard lock(mutex_);
    std::string key = rpc::endpoint(to.addr, to.port);
    auto found = stubs_.find(key);
    if (found == stubs_.end()) {
      found = stubs_.emplace(key, v1::Agent::NewStub(rpc::makeChannel(to.addr, to.port))).first;
    }
    return *found->second;
  }

  const auth::Authenticator& authenticator_;
  boost::asio::thread_pool pool_;
  boost::asio::thread_pool reconfigurePool_;
  std::chrono::seconds launchTimeout_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<v1::Agent::Stub>> stubs_;
};

}  // namespace

std::unique_ptr<AgentGateway> makeGrpcAgentGateway(const auth::Authenticator& authenticator, int threads,
                                                   std::chrono::seconds launchTimeout) {
  return std::make_unique<GrpcAgentGateway>(authenticator, threads, launchTimeout);
}

}  // namespace gantry::core
