// The per-task usage gantrystepd leaves in result.json reaches the
// controller in the StepComplete report, field by field, with the GPU
// figures unset where the task had no sample. A stand-in controller on
// loopback keeps the request.
#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <mutex>
#include <optional>
#include <string>

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

class KeepingController final : public v1::ControllerAgent::Service {
 public:
  grpc::Status Register(grpc::ServerContext*, const v1::RegisterRequest*, v1::RegisterResponse*) override {
    return grpc::Status::OK;
  }
  grpc::Status Heartbeat(grpc::ServerContext*, const v1::HeartbeatRequest*, v1::HeartbeatResponse*) override {
    return grpc::Status::OK;
  }
  grpc::Status StepComplete(grpc::ServerContext*, const v1::StepCompleteRequest* request,
                            v1::StepCompleteResponse*) override {
    std::lock_guard lock(mutex_);
    kept_ = *request;
    return grpc::Status::OK;
  }
  std::optional<v1::StepCompleteRequest> kept() {
    std::lock_guard lock(mutex_);
    return kept_;
  }

 private:
  std::mutex mutex_;
  std::optional<v1::StepCompleteRequest> kept_;
};

// Runs one step whose stand-in launcher writes `result` and returns what
// the controller was told.
std::optional<v1::StepCompleteRequest> reportOf(const std::string& result) {
  KeepingController controller;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&controller);
  auto server = builder.BuildAndStart();
  REQUIRE(server);
  TempDir dir;
  agent::LauncherOptions options;
  options.spoolDir = dir.path() / "spool";
  options.stepdPath = dir.script("stepd", "cat > \"$2/result.tmp\" <<'END'\n" + result + "\nEND\nmv \"$2/result.tmp\" \"$2/result.json\"");
  agent::StepLauncher launcher(options);
  v1::LaunchStepRequest step;
  step.set_job_id(83);
  step.set_step_id("2");
  step.add_argv("true");
  step.set_tasks_on_node(2);
  REQUIRE(launcher.launch(step).ok());
  REQUIRE(waitFor([&] { return launcher.finished().size() == 1; }));
  AnyToken token;
  agent::LinkOptions link_options;
  link_options.controllerAddr = "127.0.0.1";
  link_options.controllerPort = port;
  link_options.nodeName = "lab7";
  link_options.heartbeatInterval = std::chrono::minutes(10);
  link_options.pollInterval = std::chrono::milliseconds(20);
  agent::ControllerLink link(link_options, launcher, token);
  link.start();
  waitFor([&] { return controller.kept().has_value(); });
  link.stop();
  server->Shutdown();
  return controller.kept();
}

}  // namespace

TEST_CASE("result.json's task usage is reported to the controller per task", "[agent][accounting]") {
  auto report = reportOf(R"({"exit_code": 0, "task_usage": [
    {"task": 6, "cpu_usec": 4250000, "mem_peak_bytes": 73400320, "vmem_peak_bytes": 209715200, "pages": 3,
     "fs_disk_read_bytes": 8192, "energy_joules": 0, "gpu_mem_bytes": 1468006400, "gpu_util_percent": 37},
    {"task": 7, "cpu_usec": 15, "mem_peak_bytes": 4096, "vmem_peak_bytes": 8192, "pages": 0,
     "fs_disk_read_bytes": 0, "energy_joules": 0}]})");
  REQUIRE(report);
  REQUIRE(report->task_usage_size() == 2);
  const auto& first = report->task_usage(0);
  CHECK(first.task() == 6);
  CHECK(first.cpu_usec() == 4250000);
  CHECK(first.mem_peak_bytes() == 73400320);
  CHECK(first.vmem_peak_bytes() == 209715200);
  CHECK(first.pages() == 3);
  CHECK(first.fs_disk_read_bytes() == 8192);
  REQUIRE(first.has_gpu_mem_bytes());
  CHECK(first.gpu_mem_bytes() == 1468006400);
  REQUIRE(first.has_gpu_util_percent());
  CHECK(first.gpu_util_percent() == 37);
  const auto& second = report->task_usage(1);
  CHECK(second.task() == 7);
  CHECK_FALSE(second.has_gpu_mem_bytes());  // no sample is not a zero sample
  CHECK_FALSE(second.has_gpu_util_percent());
}

TEST_CASE("a result without task usage reports none", "[agent][accounting]") {
  auto report = reportOf(R"({"exit_code": 0})");
  REQUIRE(report);
  CHECK(report->task_usage_size() == 0);
}
