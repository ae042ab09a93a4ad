// Interactive steps: srun asks for a step inside a running job; the core
// places it inside the job's allocation with Cluster::selectStep, starts one
// gantrystepd per node of the step through the executor, and learns from
// their StepComplete reports when it ended. Steps are part of the job's
// record and stored with it, so a restarted controller still lists them and
// goes on numbering after the last one.
#include <algorithm>
#include <set>

#include "common/gres/gpu_bind.h"
#include "common/gres/tres_bind.h"
#include "common/hostlist/hostlist.h"
#include "controller/core/core_helpers.h"
#include "controller/core/controller_core.h"
#include "controller/core/job_request.h"
#include "controller/core/overcommit.h"
#include "controller/core/step_gres.h"
#include "controller/rpc/views.h"

namespace gantry::core {

namespace {

// srun retries both: they say the step may start later.
constexpr const char* kStepCreationDisabled = "Job step creation temporarily disabled, retrying";
constexpr const char* kNodesBusy = "Requested nodes are busy";

// A step that names no task count runs one task per node when it names a
// node count, otherwise as many tasks as the job, spread over all of the
// job's nodes. A step that names a task count and no node count spreads
// over as many of the job's nodes as it has tasks, up to all of them.
// These are srun's defaults inside an allocation.
v1::JobSpec withJobDefaults(v1::JobSpec step, const JobRecord& job) {
  if (step.ntasks() > 0 && step.min_nodes() == 0 && step.ntasks_per_node() == 0 && !job.nodeNames.empty()) {
    step.set_min_nodes(std::min(step.ntasks(), static_cast<int32_t>(job.nodeNames.size())));
  }
  if (step.ntasks() == 0 && step.ntasks_per_node() == 0 && step.min_nodes() > 0) {
    // srun -N k without -n runs one task on each of k nodes, as in Slurm.
    step.set_ntasks(step.min_nodes());
  } else if (step.ntasks() == 0 && step.ntasks_per_node() == 0) {
    int nodes = static_cast<int>(job.nodeNames.size());
    int jobTasks = job.spec.ntasks() > 0 ? job.spec.ntasks() : nodes;
    step.set_ntasks(std::max(jobTasks, 1));
    if (step.min_nodes() == 0) step.set_min_nodes(nodes);
  }
  // Slurm's srun inside an -O job overcommits too (SLURM_OVERCOMMIT).
  if (job.spec.overcommit()) step.set_overcommit(true);
  return step;
}

// Step ids on the wire are decimal numbers; "batch" and "extern" are not ours.
bool parseStepNumber(const std::string& text, uint32_t* out) {
  if (text.empty() || text.size() > 9) return false;
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  *out = static_cast<uint32_t>(std::stoul(text));
  return true;
}

// srun --exclusive=allocation: each node's grant of the step becomes every
// CPU the job holds there (cores and cpu ids alike). A step that is not
// --exclusive shares CPUs with the job's other steps anyway (docs/steps.md).
void takeWholeNodes(select::Allocation& step, const select::Allocation& job) {
  for (select::NodeGrant& grant : step.nodes) {
    auto held = std::find_if(job.nodes.begin(), job.nodes.end(),
                             [&](const select::NodeGrant& g) { return g.node == grant.node; });
    if (held == job.nodes.end()) continue;
    std::set<int> cores(grant.cores.begin(), grant.cores.end()), cpus(grant.cpus.begin(), grant.cpus.end());
    cores.insert(held->cores.begin(), held->cores.end());
    cpus.insert(held->cpus.begin(), held->cpus.end());
    grant.cores.assign(cores.begin(), cores.end());
    grant.cpus.assign(cpus.begin(), cpus.end());
  }
}

}  // namespace

void ControllerCore::createStep(v1::CreateStepRequest request, auth::Identity caller,
                                Reply<v1::CreateStepResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller), reply = std::move(reply)]() mutable {
    const uint64_t jobId = request.job_id();
    JobRecord* job = state_.findJob(jobId);
    if (job == nullptr) return reply(Error{ErrorCode::NotFound, "Invalid job id specified: " + std::to_string(jobId)});
    if (job->uid != caller.uid && !isAdministrator(caller)) {
      return reply(Error{ErrorCode::Denied, "Access/permission denied"});
    }
    // Suspended, or still being set up (switch/lua): srun retries.
    if (job->state == JobState::Suspended || job->state == JobState::Configuring) {
      return reply(Error{ErrorCode::NotNow, kStepCreationDisabled});
    }
    if (job->state == JobState::Pending) {
      return reply(Error{ErrorCode::NotNow, "Job " + std::to_string(jobId) + " is pending execution"});
    }
    if (job->state != JobState::Running || !job->holdsResources) {
      return reply(Error{ErrorCode::Invalid, "Job/step already completing or completed"});
    }
    if (request.argv_size() == 0) return reply(Error{"argv: the step has no command to run"});
    std::string gpuBind = gres::effectiveGpuBind(request.spec().tres_bind(), request.spec().gpu_bind());
    if (gpuBind.empty()) gpuBind = gres::effectiveGpuBind(job->spec.tres_bind(), job->spec.gpu_bind());
    if (!request.spec().tres_bind().empty()) {
      if (auto status = checkTresBindValue(request.spec().tres_bind()); !status) return reply(Error{status.failure()});
    }
    if (auto bind = gres::parseGpuBind(gpuBind); !gpuBind.empty() && !bind) {
      return reply(Error{"--gpu-bind: " + bind.error()});
    }

    auto jobRequest = toSelectRequest(job->spec);
    if (!jobRequest) return reply(Error{jobRequest.failure()});
    *request.mutable_spec() = withJobDefaults(request.spec(), *job);
    const v1::JobSpec asked = request.spec();
    auto stepRequest = toSelectRequest(withJobGresRequest(request.spec(), *job), NodeListUse::Step);
    if (!stepRequest) return reply(Error{stepRequest.failure()});

    // What the running steps hold, unless this step overlaps them all;
    // an overlapping step holds nothing against the others.
    std::vector<select::Allocation> running;
    for (const auto& [number, step] : job->steps) {
      if (!request.overlap() && !step.ended() && !step.overlap) running.push_back(step.allocation);
    }
    select::Outcome outcome = state_.cluster.selectStep(*jobRequest, job->allocation, running, *stepRequest);
    if (outcome.verdict == select::Verdict::NotNow) return reply(Error{ErrorCode::NotNow, kNodesBusy});
    if (outcome.verdict == select::Verdict::Never) return reply(Error{ErrorCode::Never, outcome.reason});

    dropImplicitGres(asked, *job, outcome.allocation);
    if (request.whole()) takeWholeNodes(outcome.allocation, job->allocation);
    if (asked.overcommit()) {
      int nodes = static_cast<int>(outcome.allocation.nodes.size());
      int tasks = asked.ntasks() > 0 ? asked.ntasks() : asked.ntasks_per_node() * nodes;
      spreadTasks(tasks, outcome.allocation.nodes);
    }

    StepRecord step;
    step.id = job->nextStepId++;
    step.name = request.argv(0);
    step.overlap = request.overlap();
    step.allocation = std::move(outcome.allocation);
    step.startTime = now();
    for (const auto& grant : step.allocation.nodes) {
      step.nodes.push_back(state_.cluster.node(grant.node).name);
      step.nodesLeft.insert(step.nodes.back());
      step.ntasks += grant.tasks;
    }
    const StepRecord& stored = job->steps.emplace(step.id, std::move(step)).first->second;
    v1::CreateStepResponse response;
    response.set_step_id(std::to_string(stored.id));
    response.set_node_list(hostlist::compress(stored.nodes));
    response.set_num_nodes(static_cast<int>(stored.nodes.size()));
    response.set_ntasks(stored.ntasks);
    // The step is launched once its record is durable, so a restarted
    // controller knows every step that may be running.
    executor_.persistJob(*job, [this, jobId, stepId = stored.id, request = std::move(request),
                                response = std::move(response), reply = std::move(reply)](const Status& status) mutable {
      onStrand([this, jobId, stepId, status, request = std::move(request), response = std::move(response),
                reply = std::move(reply)]() mutable {
        JobRecord* job = state_.findJob(jobId);
        if (!status) return reply(Error{ErrorCode::Internal, "cannot store the step: " + status.error()});
        if (job == nullptr || job->steps.count(stepId) == 0 || job->steps.at(stepId).ended()) {
          return reply(Error{ErrorCode::Invalid, "Job/step already completing or completed"});
        }
        executor_.launchInteractive(*job, job->steps.at(stepId), request);
        reply(std::move(response));
      });
    });
  });
}

void ControllerCore::stepEndedOnNode(uint64_t jobId, uint32_t stepId, const std::string& node, int exitCode,
                                     const std::string& message, std::vector<accounting::TaskUsageSample> usage) {
  JobRecord* job = state_.findJob(jobId);
  if (job == nullptr) return;
  auto found = job->steps.find(stepId);
  if (found == job->steps.end()) return;
  StepRecord& step = found->second;
  // Reports are retried until acknowledged: count each node once.
  // A node's usage counts once, even when its report comes after the step
  // was ended for it (its job ended first: srun returned before the agent
  // reported).
  if (!usage.empty() && step.usageReported.insert(node).second) {
    step.usage.insert(step.usage.end(), std::make_move_iterator(usage.begin()),
                      std::make_move_iterator(usage.end()));
  }
  if (step.nodesLeft.erase(node) == 0) return;
  step.exitCode = std::max(step.exitCode, exitCode);
  if (!message.empty() && step.message.empty()) step.message = message;
  if (step.ended()) step.endTime = now();
}

bool ControllerCore::numberedStepComplete(const v1::StepCompleteRequest& request) {
  uint32_t stepId = 0;
  if (!parseStepNumber(request.step_id(), &stepId)) return false;
  int exitCode = request.term_signal() != 0 ? 128 + request.term_signal() : request.exit_code();
  stepEndedOnNode(request.job_id(), stepId, request.node_name(), exitCode, request.message(),
                  detail::usageSamplesOf(request));
  return true;
}

void ControllerCore::getStep(v1::GetStepRequest request, Reply<v1::GetStepResponse> reply) {
  getStep(std::move(request), auth::Identity{.uid = 0, .gid = 0, .user = "root"}, std::move(reply));
}

void ControllerCore::getStep(v1::GetStepRequest request, auth::Identity caller, Reply<v1::GetStepResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller), reply = std::move(reply)] {
    const JobRecord* job = state_.findJob(request.job_id());
    bool hidden = job != nullptr && conf_.privateData.jobs && job->uid != caller.uid && !isAdministrator(caller);
    if (job == nullptr || hidden) {
      return reply(Error{ErrorCode::NotFound, "Invalid job id specified: " + std::to_string(request.job_id())});
    }
    v1::GetStepResponse response;
    response.set_job_state(views::toWire(job->state));
    uint32_t stepId = 0;
    if (!parseStepNumber(request.step_id(), &stepId)) {
      return reply(Error{"invalid step id '" + request.step_id() + "'"});
    }
    auto found = job->steps.find(stepId);
    if (found != job->steps.end()) {
      response.set_running(!found->second.ended());
      response.set_exit_code(found->second.exitCode);
      response.set_message(found->second.message);
      return reply(std::move(response));
    }
    response.set_running(false);
    response.set_message("step " + std::to_string(request.job_id()) + "." + request.step_id() +
                         " is not known to the controller");
    reply(std::move(response));
  });
}

void ControllerCore::completeAllocation(v1::CompleteAllocationRequest request, auth::Identity caller,
                                        Reply<v1::CompleteAllocationResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller), reply = std::move(reply)]() mutable {
    JobRecord* job = state_.findJob(request.job_id());
    if (job == nullptr) {
      return reply(Error{ErrorCode::NotFound, "Invalid job id specified: " + std::to_string(request.job_id())});
    }
    if (job->uid != caller.uid && !isAdministrator(caller)) {
      return reply(Error{ErrorCode::Denied, "Access/permission denied"});
    }
    if (job->isBatch()) {
      return reply(Error{"Job " + std::to_string(request.job_id()) +
                         " is a batch job; it ends with its script (use scancel to stop it)"});
    }
    auto applied = applyJob(*job, job_event::AllocationCompleted{request.exit_code()}, [reply](const Status& status) {
      if (!status) return reply(Error{ErrorCode::Internal, "cannot store the job end: " + status.error()});
      reply(v1::CompleteAllocationResponse{});
    });
    if (!applied) reply(Error{applied.failure()});
  });
}

}  // namespace gantry::core
