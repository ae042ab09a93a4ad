#include "nodeagent/rpc/controller_link.h"

#include <csignal>
#include <string>
#include <spdlog/spdlog.h>

#include "common/rpc/channel.h"
#include "common/rpc/error_status.h"

namespace gantry::agent {
namespace {

// result.json's per-task usage into the report's wire form.
void fillTaskUsage(const stepd::TaskUsageRecord& usage, v1::TaskUsage* wire) {
  wire->set_task(usage.task);
  wire->set_cpu_usec(usage.cpu_usec);
  wire->set_mem_peak_bytes(usage.mem_peak_bytes);
  wire->set_vmem_peak_bytes(usage.vmem_peak_bytes);
  wire->set_pages(usage.pages);
  wire->set_fs_disk_read_bytes(usage.fs_disk_read_bytes);
  wire->set_energy_joules(usage.energy_joules);
  if (usage.gpu_mem_bytes) wire->set_gpu_mem_bytes(*usage.gpu_mem_bytes);
  if (usage.gpu_util_percent) wire->set_gpu_util_percent(*usage.gpu_util_percent);
}

// "cpu_usec=... gpu_mem_bytes=none ...": what the report says of one task,
// for the agent's debug log.
std::string describeTaskUsage(const v1::TaskUsage& usage) {
  auto optional = [](bool has, uint64_t value) { return has ? std::to_string(value) : std::string("none"); };
  return "cpu_usec=" + std::to_string(usage.cpu_usec()) + " mem_peak_bytes=" + std::to_string(usage.mem_peak_bytes()) +
         " vmem_peak_bytes=" + std::to_string(usage.vmem_peak_bytes()) + " pages=" + std::to_string(usage.pages()) +
         " fs_disk_read_bytes=" + std::to_string(usage.fs_disk_read_bytes()) +
         " gpu_mem_bytes=" + optional(usage.has_gpu_mem_bytes(), usage.gpu_mem_bytes()) +
         " gpu_util_percent=" + optional(usage.has_gpu_util_percent(), usage.gpu_util_percent());
}

}  // namespace

ControllerLink::ControllerLink(LinkOptions options, StepLauncher& launcher,
                               const auth::Authenticator& authenticator)
    : options_(std::move(options)),
      launcher_(launcher),
      authenticator_(authenticator),
      stub_(v1::ControllerAgent::NewStub(rpc::makeChannel(options_.controllerAddr, options_.controllerPort))) {}

ControllerLink::~ControllerLink() { stop(); }

void ControllerLink::start() {
  thread_ = std::thread([this] { run(); });
}

void ControllerLink::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

void ControllerLink::updateHardware(v1::NodeHardware hardware, std::vector<std::string> hardwareErrors) {
  {
    std::lock_guard lock(hardwareMutex_);
    options_.hardware = std::move(hardware);
    options_.hardwareErrors = std::move(hardwareErrors);
  }
  hardwareChanged_ = true;
}

void ControllerLink::run() {
  auto nextHeartbeat = std::chrono::steady_clock::now();
  while (!stopping_) {
    if (hardwareChanged_.exchange(false)) registered_ = false;
    if (!registered_) {
      registered_ = registerNode();
      if (!registered_) {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        continue;
      }
      nextHeartbeat = std::chrono::steady_clock::now() + options_.heartbeatInterval;
    }
    reportFinished();
    if (std::chrono::steady_clock::now() >= nextHeartbeat) {
      sendHeartbeat();
      nextHeartbeat = std::chrono::steady_clock::now() + options_.heartbeatInterval;
    }
    std::this_thread::sleep_for(options_.pollInterval);
  }
}

bool ControllerLink::registerNode() {
  auto context = rpc::makeCallContext(authenticator_, std::chrono::seconds(10));
  if (!context) {
    spdlog::error("cannot register: {}", context.error());
    return false;
  }
  v1::RegisterRequest request;
  request.set_node_name(options_.nodeName);
  request.set_addr(options_.listenAddr);
  request.set_port(options_.listenPort);
  {
    std::lock_guard lock(hardwareMutex_);
    *request.mutable_hardware() = options_.hardware;
    for (const auto& error : options_.hardwareErrors) request.add_errors(error);
  }
  request.set_boot_time(options_.bootTime);
  for (const auto& key : launcher_.known()) {
    v1::RunningStep* step = request.add_running();
    step->set_job_id(key.jobId);
    step->set_step_id(key.stepId);
  }
  v1::RegisterResponse response;
  grpc::Status status = stub_->Register(context->get(), request, &response);
  if (!status.ok()) {
    // Every kind is retried: an unreachable controller comes back, and a
    // refusal (e.g. the agent does not run as root or SlurmUser) is for an
    // administrator to fix while the agent keeps asking.
    Error failure = rpc::fromGrpcStatus(status, controllerName());
    spdlog::warn("registration failed ({}): {}", toString(failure.code), failure.message);
    return false;
  }
  spdlog::info("registered with the controller ({} steps known)", request.running_size());
  terminateOrphans(response.orphan_jobs());
  return true;
}

void ControllerLink::sendHeartbeat() {
  auto context = rpc::makeCallContext(authenticator_, std::chrono::seconds(5));
  if (!context) return;
  v1::HeartbeatRequest request;
  request.set_node_name(options_.nodeName);
  for (const auto& key : launcher_.running()) {
    v1::RunningStep* step = request.add_running();
    step->set_job_id(key.jobId);
    step->set_step_id(key.stepId);
  }
  std::vector<std::string> drains = launcher_.drainReasons();
  for (const auto& reason : drains) request.add_drain_reasons(reason);
  v1::HeartbeatResponse response;
  grpc::Status status = stub_->Heartbeat(context->get(), request, &response);
  if (!status.ok()) {
    Error failure = rpc::fromGrpcStatus(status, controllerName());
    spdlog::debug("heartbeat failed ({}): {}", toString(failure.code), failure.message);
    return;
  }
  launcher_.forgetDrainReasons(drains.size());
  if (response.reregister()) registered_ = false;
  terminateOrphans(response.orphan_jobs());
}

void ControllerLink::reportFinished() {
  std::vector<FinishedStep> steps = launcher_.finished();
  // A drain a step asked for (switch/lua's postfini) goes before the step's
  // end: the end may end the job, and the node must not be free for the
  // next one in between.
  if (!launcher_.drainReasons().empty()) sendHeartbeat();
  for (const auto& step : steps) {
    auto context = rpc::makeCallContext(authenticator_, std::chrono::seconds(5));
    if (!context) return;
    v1::StepCompleteRequest request;
    request.set_node_name(options_.nodeName);
    request.set_job_id(step.key.jobId);
    request.set_step_id(step.key.stepId);
    request.set_exit_code(step.exitCode);
    request.set_term_signal(step.signal);
    request.set_start_time(step.startTime);
    request.set_end_time(step.endTime);
    request.set_message(step.message);
    for (const auto& [region, bytes] : step.dmemPeakBytes) (*request.mutable_dmem_peak_bytes())[region] = bytes;
    for (const auto& usage : step.taskUsage) fillTaskUsage(usage, request.add_task_usage());
    v1::StepCompleteResponse response;
    grpc::Status status = stub_->StepComplete(context->get(), request, &response);
    if (!status.ok()) {
      // Kept on disk and retried on the next round, whatever the kind:
      // the controller must hear every step's end.
      Error failure = rpc::fromGrpcStatus(status, controllerName());
      spdlog::debug("job {} step {}: report failed ({}): {}", step.key.jobId, step.key.stepId,
                    toString(failure.code), failure.message);
      return;
    }
    spdlog::info("job {} step {}: exit {} signal {} reported", step.key.jobId, step.key.stepId,
                 step.exitCode, step.signal);
    for (const auto& usage : request.task_usage()) {
      spdlog::debug("job {} step {}: task {} usage reported: {}", step.key.jobId, step.key.stepId, usage.task(),
                    describeTaskUsage(usage));
    }
    launcher_.acknowledge(step.key);
  }
}

std::string ControllerLink::controllerName() const {
  return "controller at " + rpc::endpoint(options_.controllerAddr, options_.controllerPort);
}

void ControllerLink::terminateOrphans(const google::protobuf::RepeatedField<uint64_t>& jobs) {
  for (uint64_t jobId : jobs) {
    spdlog::warn("job {}: unknown to the controller, terminating its steps", jobId);
    (void)launcher_.terminateSteps(jobId);
  }
}

}  // namespace gantry::agent
