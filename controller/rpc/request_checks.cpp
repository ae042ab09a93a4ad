#include "controller/rpc/request_checks.h"

#include <string>

#include "common/util/sluid.h"
#include "common/util/task_set.h"

namespace gantry::ctlrpc {
namespace {

// Signals a job may be sent: 1..64 (SIGRTMAX on Linux); 0 means none.
constexpr int kMaxSignal = 64;
constexpr int kMaxPort = 65535;
// A TRES update is one short command: these bounds keep a hostile request
// from making the controller parse megabytes on its strand.
constexpr int kMaxTresWords = 64;
constexpr size_t kMaxTresWordBytes = 4096;
constexpr size_t kMaxTresJsonBytes = 64 * 1024;
constexpr size_t kMaxNodeNamesBytes = 64 * 1024;
// Array task lists ("1-3,7"): short, and below Slurm's largest MaxArraySize.
constexpr size_t kMaxArrayTasksBytes = 4096;
constexpr uint32_t kLargestArraySize = 4000001;

Status jobId(uint64_t id, const char* field) {
  if (id == 0) return Error{std::string(field) + ": must be a job id (1 or more), got 0"};
  return okStatus();
}

Status notEmpty(const std::string& value, const char* field) {
  if (value.empty()) return Error{std::string(field) + ": must not be empty"};
  return okStatus();
}

Status inRange(int64_t value, int64_t low, int64_t high, const char* field) {
  if (value < low || value > high) {
    return Error{std::string(field) + ": must be between " + std::to_string(low) + " and " + std::to_string(high) +
                 ", got " + std::to_string(value)};
  }
  return okStatus();
}

// The step a request names: a number, or "batch"/"extern" from an agent.
Status stepId(const std::string& id, const char* field) {
  if (id.empty()) return Error{std::string(field) + ": must name a step, got nothing"};
  return okStatus();
}

Status atMost(size_t size, size_t limit, const char* field) {
  if (size > limit) {
    return Error{std::string(field) + ": must be at most " + std::to_string(limit) + " bytes, got " +
                 std::to_string(size)};
  }
  return okStatus();
}

Status hardware(const v1::NodeHardware& hw) {
  for (auto [value, field] : std::initializer_list<std::pair<int64_t, const char*>>{
           {hw.cpus(), "hardware.cpus"},
           {hw.boards(), "hardware.boards"},
           {hw.sockets(), "hardware.sockets"},
           {hw.cores_per_socket(), "hardware.cores_per_socket"},
           {hw.threads_per_core(), "hardware.threads_per_core"}}) {
    if (value < 0) return Error{std::string(field) + ": must be 0 or more, got " + std::to_string(value)};
  }
  for (const auto& device : hw.gres()) {
    if (device.name().empty()) return Error{"hardware.gres.name: must not be empty"};
  }
  return okStatus();
}

Status arrayTasks(const std::string& tasks, const char* field, bool required) {
  if (tasks.empty() && !required) return okStatus();
  if (auto status = atMost(tasks.size(), kMaxArrayTasksBytes, field); !status) return status;
  if (auto parsed = TaskSet::parse(tasks, kLargestArraySize); !parsed) {
    return Error{std::string(field) + ": " + parsed.error()};
  }
  return okStatus();
}

}  // namespace

Status checkRequest(const v1::SubmitJobRequest& request) {
  if (!request.has_spec()) return Error{"spec: the request carries no job"};
  // Kept in every accounting record of the job: bounded like names.
  if (request.spec().account().size() > 256) return Error{"spec.account: longer than 256 bytes"};
  if (request.spec().comment().size() > 8192) return Error{"spec.comment: longer than 8192 bytes"};
  return atMost(request.spec().array().size(), kMaxArrayTasksBytes, "spec.array");
}

Status checkRequest(const v1::CancelJobRequest& request) {
  for (uint64_t id : request.job_ids()) {
    if (auto status = jobId(id, "job_ids"); !status) return status;
  }
  for (const auto& ref : request.array_tasks()) {
    if (auto status = jobId(ref.array_job_id(), "array_tasks.array_job_id"); !status) return status;
    if (auto status = arrayTasks(ref.tasks(), "array_tasks.tasks", true); !status) return status;
  }
  return inRange(request.signal(), 0, kMaxSignal, "signal");
}

Status checkRequest(const v1::ListJobsRequest& request) {
  for (int i = 0; i < request.sluids_size(); ++i) {
    if (!canonicalSluid(request.sluids(i))) {
      return Error{"sluids[" + std::to_string(i) + "]: not a SLUID (\"s\" and 13 base32 digits): " +
                   request.sluids(i).substr(0, 64)};
    }
  }
  return okStatus();
}

Status checkRequest(const v1::UpdateNodeRequest& request) {
  if (auto status = notEmpty(request.node_names(), "node_names"); !status) return status;
  return notEmpty(request.state(), "state");
}

Status checkRequest(const v1::UpdateTresRequest& request) {
  bool hasWords = request.words_size() > 0;
  bool hasJson = !request.json().empty();
  if (hasWords && hasJson) return Error{"words, json: give one form of the request, not both"};
  if (!hasWords && !hasJson) return Error{"words, json: the request is empty; give words or json"};
  if (request.words_size() > kMaxTresWords) {
    return Error{"words: must be at most " + std::to_string(kMaxTresWords) + " words, got " +
                 std::to_string(request.words_size())};
  }
  for (int i = 0; i < request.words_size(); ++i) {
    std::string field = "words[" + std::to_string(i) + "]";
    if (auto status = atMost(request.words(i).size(), kMaxTresWordBytes, field.c_str()); !status) return status;
  }
  return atMost(request.json().size(), kMaxTresJsonBytes, "json");
}

Status checkRequest(const v1::ListDrainedTresRequest& request) {
  return atMost(request.node_names().size(), kMaxNodeNamesBytes, "node_names");
}

Status checkRequest(const v1::JobActionRequest& request) {
  if (auto status = jobId(request.job_id(), "job_id"); !status) return status;
  return arrayTasks(request.array_tasks(), "array_tasks", false);
}

Status checkRequest(const v1::UpdateJobRequest& request) {
  if (auto status = jobId(request.job_id(), "job_id"); !status) return status;
  if (auto status = arrayTasks(request.array_tasks(), "array_tasks", false); !status) return status;
  if (auto status = atMost(request.name().size(), 1024, "name"); !status) return status;
  if (auto status = atMost(request.tres_bind().size(), kMaxTresWordBytes, "tres_bind"); !status) return status;
  // What a node could be asked for: a handful of GRES names, each named.
  const auto& gres = request.gres_per_node().items();
  if (gres.size() > 64) return Error{"gres_per_node.items: at most 64, got " + std::to_string(gres.size())};
  for (const auto& item : gres) {
    if (item.name().empty()) return Error{"gres_per_node.items.name: must not be empty"};
    if (auto status = atMost(item.name().size() + item.type().size(), 256, "gres_per_node.items.name"); !status) {
      return status;
    }
  }
  return atMost(request.comment().size(), 8192, "comment");
}

Status checkRequest(const v1::GetBatchScriptRequest& request) { return jobId(request.job_id(), "job_id"); }

Status checkRequest(const v1::CreateStepRequest& request) {
  if (auto status = jobId(request.job_id(), "job_id"); !status) return status;
  if (request.argv_size() == 0) return Error{"argv: the step has no command to run"};
  if (request.argv(0).empty()) return Error{"argv: the step's command is empty"};
  return inRange(request.io().port(), 0, kMaxPort, "io.port");
}

Status checkRequest(const v1::GetStepRequest& request) {
  if (auto status = jobId(request.job_id(), "job_id"); !status) return status;
  return stepId(request.step_id(), "step_id");
}

Status checkRequest(const v1::CompleteAllocationRequest& request) { return jobId(request.job_id(), "job_id"); }

Status checkRequest(const v1::KeepAllocationRequest& request) { return jobId(request.job_id(), "job_id"); }

Status checkRequest(const v1::RegisterRequest& request) {
  if (auto status = notEmpty(request.node_name(), "node_name"); !status) return status;
  if (auto status = inRange(request.port(), 0, kMaxPort, "port"); !status) return status;
  for (const auto& step : request.running()) {
    if (auto status = jobId(step.job_id(), "running.job_id"); !status) return status;
    if (auto status = stepId(step.step_id(), "running.step_id"); !status) return status;
  }
  return hardware(request.hardware());
}

Status checkRequest(const v1::HeartbeatRequest& request) {
  if (auto status = notEmpty(request.node_name(), "node_name"); !status) return status;
  for (const auto& step : request.running()) {
    if (auto status = jobId(step.job_id(), "running.job_id"); !status) return status;
    if (auto status = stepId(step.step_id(), "running.step_id"); !status) return status;
  }
  return okStatus();
}

Status checkRequest(const v1::StepCompleteRequest& request) {
  if (auto status = notEmpty(request.node_name(), "node_name"); !status) return status;
  if (auto status = jobId(request.job_id(), "job_id"); !status) return status;
  if (auto status = stepId(request.step_id(), "step_id"); !status) return status;
  return inRange(request.term_signal(), 0, kMaxSignal, "term_signal");
}

}  // namespace gantry::ctlrpc
