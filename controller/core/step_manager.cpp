// Interactive steps: srun asks for a step inside a running job; the core
// places it inside the job's allocation with Cluster::selectStep, starts one
// gantrystepd per node of the step through the agents, and learns from their
// StepComplete reports when it ended. Everything runs on the core's strand.
// Steps live in memory only: a restarted controller knows none of them (the
// tasks keep running and report to the srun that started them).
#include <boost/asio/post.hpp>

#include <algorithm>
#include <cctype>

#include "common/hostlist/hostlist.h"
#include "controller/core/controller_core.h"
#include "controller/core/core_helpers.h"
#include "controller/core/job_request.h"

namespace gantry::core {

namespace {

// Both texts are what srun looks for to decide that a retry may succeed.
constexpr const char* kStepCreationDisabled = "Job step creation temporarily disabled, retrying";
constexpr const char* kNodesBusy = "Requested nodes are busy";

// A step that names no task count runs as many tasks as the job, spread
// over all of the job's nodes, as srun does inside an allocation.
v1::JobSpec withJobDefaults(v1::JobSpec step, const v1::Job& job) {
  if (step.ntasks() == 0 && step.ntasks_per_node() == 0) {
    int jobTasks = job.spec().ntasks() > 0 ? job.spec().ntasks() : job.allocation_size();
    step.set_ntasks(std::max(jobTasks, 1));
    if (step.min_nodes() == 0) step.set_min_nodes(job.allocation_size());
  }
  return step;
}

std::string toLower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Step ids on the wire are decimal numbers; "batch" and "extern" are not ours.
bool parseStepNumber(const std::string& text, uint32_t* out) {
  if (text.empty() || text.size() > 9) return false;
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  *out = static_cast<uint32_t>(std::stoul(text));
  return true;
}

// PrologFlags=Contain (a comma-separated list, any case) asks for the
// extern step.
bool wantsExternStep(const config::GantryConf& conf) {
  for (const auto& [key, value] : conf.entries) {
    if (toLower(key) != "prologflags") continue;
    std::string flags = "," + toLower(value) + ",";
    if (flags.find(",contain,") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

void ControllerCore::launchExternSteps(uint64_t jobId) {
  auto found = jobs_.find(jobId);
  if (found == jobs_.end() || found->second.job.state() != v1::RUNNING || !wantsExternStep(conf_)) return;
  const v1::Job& job = found->second.job;
  for (int i = 0; i < job.allocation_size(); ++i) {
    const v1::NodeAllocation& alloc = job.allocation(i);
    NodeEntry* node = findNode(alloc.node());
    if (node == nullptr) continue;
    v1::LaunchStepRequest launch;
    launch.set_job_id(jobId);
    launch.set_step_id("extern");
    launch.set_job_name(job.spec().name());
    launch.set_uid(job.uid());
    launch.set_gid(job.gid());
    launch.set_user(job.user());
    launch.set_work_dir("/");
    launch.set_stdin_path("/dev/null");
    launch.set_stdout_pattern("/dev/null");
    launch.set_node_list(job.node_list());
    launch.set_node_id(i);
    launch.set_num_nodes(job.allocation_size());
    launch.set_ntasks(0);
    launch.set_tasks_on_node(1);
    *launch.mutable_cores() = alloc.cores();
    launch.set_cpus_on_node(alloc.cpus_size() > 0 ? alloc.cpus_size() : alloc.cores_size());
    launch.set_memory_mb(alloc.memory_mb());
    launch.set_partition(job.spec().partition());
    launch.set_time_limit_seconds(std::max<int64_t>(job.time_limit_seconds(), 0));
    describeJobOnNode(found->second, node->selectIndex, launch);
    // The extern step only holds the job's confinement; a node that cannot
    // start it still runs the job's other steps.
    options_.agents->launchStep(addressOf(*node), std::move(launch), {});
  }
}

void ControllerCore::createStep(v1::CreateStepRequest request, auth::Identity caller,
                                Reply<v1::CreateStepResponse> reply) {
  boost::asio::post(strand_, [this, request = std::move(request), caller = std::move(caller),
                              reply = std::move(reply)]() mutable {
    const uint64_t jobId = request.job_id();
    auto found = jobs_.find(jobId);
    if (found == jobs_.end()) return reply(Error{"Invalid job id specified: " + std::to_string(jobId)});
    JobEntry& entry = found->second;
    const v1::Job& job = entry.job;
    if (job.uid() != caller.uid && !isAdministrator(caller)) return reply(Error{"Access/permission denied"});
    if (job.state() == v1::SUSPENDED) return reply(Error{kStepCreationDisabled});
    if (job.state() == v1::PENDING) return reply(Error{"Job " + std::to_string(jobId) + " is pending execution"});
    if (job.state() != v1::RUNNING || !entry.holdsResources) {
      return reply(Error{"Job/step already completing or completed"});
    }
    if (request.argv_size() == 0) return reply(Error{"argv: the step has no command to run"});

    auto jobRequest = toSelectRequest(job.spec());
    if (!jobRequest) return reply(Error{jobRequest.error()});
    *request.mutable_spec() = withJobDefaults(request.spec(), job);
    auto stepRequest = toSelectRequest(request.spec());
    if (!stepRequest) return reply(Error{stepRequest.error()});

    JobSteps& steps = steps_[jobId];
    std::vector<select::Allocation> running;
    for (const auto& [number, step] : steps.steps) {
      if (!step.ended()) running.push_back(step.allocation);
    }
    select::Outcome outcome = cluster_.selectStep(*jobRequest, entry.allocation, running, *stepRequest);
    if (outcome.verdict == select::Verdict::NotNow) return reply(Error{kNodesBusy});
    if (outcome.verdict == select::Verdict::Never) return reply(Error{outcome.reason});

    const uint32_t stepId = steps.nextStepId++;
    StepEntry& step = steps.steps[stepId];
    step.allocation = std::move(outcome.allocation);
    std::vector<std::string> names;
    int ntasks = 0;
    for (const auto& grant : step.allocation.nodes) {
      names.push_back(cluster_.node(grant.node).name);
      step.nodesLeft.insert(names.back());
      ntasks += grant.tasks;
    }
    v1::CreateStepResponse response;
    response.set_step_id(std::to_string(stepId));
    response.set_node_list(hostlist::compress(names));
    response.set_num_nodes(static_cast<int>(names.size()));
    response.set_ntasks(ntasks);
    launchInteractiveStep(jobId, stepId, request);
    reply(std::move(response));
  });
}

void ControllerCore::launchInteractiveStep(uint64_t jobId, uint32_t stepId,
                                           const v1::CreateStepRequest& request) {
  const v1::Job& job = jobs_.at(jobId).job;
  const StepEntry& step = steps_.at(jobId).steps.at(stepId);
  const v1::JobSpec& spec = request.spec();
  std::vector<std::string> names;
  int ntasks = 0;
  for (const auto& grant : step.allocation.nodes) {
    names.push_back(cluster_.node(grant.node).name);
    ntasks += grant.tasks;
  }
  int firstTask = 0;
  for (size_t i = 0; i < step.allocation.nodes.size(); ++i) {
    const select::NodeGrant& grant = step.allocation.nodes[i];
    const select::NodeInfo& info = cluster_.node(grant.node);
    NodeEntry* node = findNode(info.name);
    if (node == nullptr) continue;
    v1::LaunchStepRequest launch;
    launch.set_job_id(jobId);
    launch.set_step_id(std::to_string(stepId));
    launch.set_job_name(job.spec().name());
    launch.set_uid(job.uid());
    launch.set_gid(job.gid());
    launch.set_user(job.user());
    launch.set_work_dir(spec.work_dir().empty() ? job.spec().work_dir() : spec.work_dir());
    *launch.mutable_argv() = request.argv();
    launch.set_stdin_path("/dev/null");
    *launch.mutable_environment() = spec.environment();
    launch.set_node_list(hostlist::compress(names));
    launch.set_node_id(static_cast<int>(i));
    launch.set_num_nodes(static_cast<int>(names.size()));
    launch.set_ntasks(ntasks);
    launch.set_tasks_on_node(grant.tasks);
    launch.set_first_task_id(firstTask);
    firstTask += grant.tasks;
    launch.set_cpus_on_node(detail::cpusOf(grant, info));
    for (int core : grant.cores) launch.add_cores(core);
    // A step divides the job's memory on the node; it is not measured apart.
    for (const auto& alloc : job.allocation()) {
      if (alloc.node() == info.name) launch.set_memory_mb(alloc.memory_mb());
    }
    launch.set_partition(job.spec().partition());
    launch.set_submit_host(spec.submit_host());
    launch.set_submit_dir(spec.work_dir());
    launch.set_time_limit_seconds(std::max<int64_t>(job.time_limit_seconds(), 0));
    addStepGpus(*node, grant, launch);
    describeJobOnNode(jobs_.at(jobId), node->selectIndex, launch);
    launch.set_io_addr(request.io().addr());
    launch.set_io_port(request.io().port());
    launch.set_io_token(request.io().token());
    launch.set_io_pty(request.io().pty());
    std::string nodeName = info.name;
    options_.agents->launchStep(addressOf(*node), std::move(launch),
                                [this, jobId, stepId, nodeName](const Status& status) {
                                  if (status) return;
                                  boost::asio::post(strand_, [this, jobId, stepId, nodeName, status] {
                                    stepEndedOnNode(jobId, stepId, nodeName, 1,
                                                    "launch failed on " + nodeName + ": " + status.error());
                                  });
                                });
  }
}

void ControllerCore::stepEndedOnNode(uint64_t jobId, uint32_t stepId, const std::string& node,
                                     int exitCode, const std::string& message) {
  auto steps = steps_.find(jobId);
  if (steps == steps_.end()) return;
  auto found = steps->second.steps.find(stepId);
  if (found == steps->second.steps.end()) return;
  StepEntry& step = found->second;
  // Reports are retried until acknowledged: count each node once.
  if (step.nodesLeft.erase(node) == 0) return;
  step.exitCode = std::max(step.exitCode, exitCode);
  if (!message.empty() && step.message.empty()) step.message = message;
}

bool ControllerCore::numberedStepComplete(const v1::StepCompleteRequest& request) {
  uint32_t stepId = 0;
  if (!parseStepNumber(request.step_id(), &stepId)) return false;
  int exitCode = request.term_signal() != 0 ? 128 + request.term_signal() : request.exit_code();
  stepEndedOnNode(request.job_id(), stepId, request.node_name(), exitCode, request.message());
  return true;
}

void ControllerCore::getStep(v1::GetStepRequest request, Reply<v1::GetStepResponse> reply) {
  boost::asio::post(strand_, [this, request = std::move(request), reply = std::move(reply)] {
    auto job = jobs_.find(request.job_id());
    if (job == jobs_.end()) {
      return reply(Error{"Invalid job id specified: " + std::to_string(request.job_id())});
    }
    v1::GetStepResponse response;
    response.set_job_state(job->second.job.state());
    uint32_t stepId = 0;
    if (!parseStepNumber(request.step_id(), &stepId)) {
      return reply(Error{"invalid step id '" + request.step_id() + "'"});
    }
    auto steps = steps_.find(request.job_id());
    if (steps != steps_.end()) {
      auto found = steps->second.steps.find(stepId);
      if (found != steps->second.steps.end()) {
        response.set_running(!found->second.ended());
        response.set_exit_code(found->second.exitCode);
        response.set_message(found->second.message);
        return reply(std::move(response));
      }
    }
    // Unknown: the job ended (its steps with it) or the controller restarted.
    response.set_running(false);
    response.set_message("step " + std::to_string(request.job_id()) + "." + request.step_id() +
                         " is not known to the controller");
    reply(std::move(response));
  });
}

void ControllerCore::completeAllocation(v1::CompleteAllocationRequest request, auth::Identity caller,
                                        Reply<v1::CompleteAllocationResponse> reply) {
  boost::asio::post(strand_, [this, request = std::move(request), caller = std::move(caller),
                              reply = std::move(reply)]() mutable {
    auto found = jobs_.find(request.job_id());
    if (found == jobs_.end()) {
      return reply(Error{"Invalid job id specified: " + std::to_string(request.job_id())});
    }
    JobEntry& entry = found->second;
    if (entry.job.uid() != caller.uid && !isAdministrator(caller)) {
      return reply(Error{"Access/permission denied"});
    }
    if (!entry.job.spec().script().empty()) {
      return reply(Error{"Job " + std::to_string(request.job_id()) +
                         " is a batch job; it ends with its script (use scancel to stop it)"});
    }
    // Repeated calls (srun retrying after a lost answer) are harmless.
    if (isTerminal(entry.job.state())) return reply(v1::CompleteAllocationResponse{});
    if (entry.job.state() == v1::PENDING) {
      endJob(entry, v1::CANCELLED, "None", 0, 0);
    } else {
      bool ok = request.exit_code() == 0;
      endJob(entry, ok ? v1::COMPLETED : v1::FAILED, ok ? "None" : "NonZeroExitCode",
             request.exit_code(), 0);
    }
    persist(entry, [reply = std::move(reply)](const Status& status) {
      if (!status) return reply(Error{"cannot store the job end: " + status.error()});
      reply(v1::CompleteAllocationResponse{});
    });
  });
}

}  // namespace gantry::core
