// A drain that a step asks for (switch/lua's postfini) reaches the
// controller with a heartbeat before the step's end is reported, against a
// stand-in controller on loopback that records the calls in order.
#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <mutex>
#include <string>
#include <vector>

#include "common/auth/identity.h"
#include "gantry/v1/controller.grpc.pb.h"
#include "nodeagent/launch/step_launcher.h"
#include "nodeagent/rpc/controller_link.h"
#include "tests/unit/support/scratch.h"

using namespace gantry;
using testing::TempDir;
using testing::waitFor;

namespace {

class AnyToken : public auth::Authenticator {
 public:
  Result<std::string> makeToken() const override { return std::string("test"); }
  Result<auth::Identity> verify(const std::string&) const override { return auth::Identity{}; }
};

class RecordingController final : public v1::ControllerAgent::Service {
 public:
  grpc::Status Register(grpc::ServerContext*, const v1::RegisterRequest*, v1::RegisterResponse*) override {
    return grpc::Status::OK;
  }
  grpc::Status Heartbeat(grpc::ServerContext*, const v1::HeartbeatRequest* request, v1::HeartbeatResponse*) override {
    std::string call = "heartbeat";
    for (const auto& reason : request->drain_reasons()) call += " drain=" + reason;
    record(call);
    return grpc::Status::OK;
  }
  grpc::Status StepComplete(grpc::ServerContext*, const v1::StepCompleteRequest* request,
                            v1::StepCompleteResponse*) override {
    record("complete " + std::to_string(request->job_id()) + "." + request->step_id());
    return grpc::Status::OK;
  }
  std::vector<std::string> calls() {
    std::lock_guard lock(mutex_);
    return calls_;
  }

 private:
  void record(std::string call) {
    std::lock_guard lock(mutex_);
    calls_.push_back(std::move(call));
  }
  std::mutex mutex_;
  std::vector<std::string> calls_;
};

}  // namespace

TEST_CASE("a step's drain reason goes with a heartbeat before the step's end is reported") {
  RecordingController controller;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&controller);
  auto server = builder.BuildAndStart();
  REQUIRE(server);
  REQUIRE(port > 0);

  TempDir dir;
  agent::LauncherOptions options;
  options.spoolDir = dir.path() / "spool";
  options.stepdPath = dir.script(
      "stepd", "echo '{\"exit_code\": 0, \"drain_reason\": \"switch_g_job_postfini failed\"}' > \"$2/result.tmp\" && mv \"$2/result.tmp\" \"$2/result.json\"");
  agent::StepLauncher launcher(options);
  v1::LaunchStepRequest step;
  step.set_job_id(41);
  step.set_step_id("3");
  step.add_argv("true");
  step.set_tasks_on_node(1);
  REQUIRE(launcher.launch(step).ok());
  REQUIRE(waitFor([&] { return launcher.finished().size() == 1; }));

  AnyToken token;
  agent::LinkOptions link_options;
  link_options.controllerAddr = "127.0.0.1";
  link_options.controllerPort = port;
  link_options.nodeName = "fab1";
  // No periodic heartbeat within the test: any heartbeat is the drain's own.
  link_options.heartbeatInterval = std::chrono::minutes(10);
  link_options.pollInterval = std::chrono::milliseconds(20);
  agent::ControllerLink link(link_options, launcher, token);
  link.start();
  CHECK(waitFor([&] { return controller.calls().size() >= 2; }));
  link.stop();
  server->Shutdown();
  const std::vector<std::string> expected = {"heartbeat drain=switch_g_job_postfini failed", "complete 41.3"};
  CHECK(controller.calls() == expected);
  CHECK(launcher.drainReasons().empty());
}
