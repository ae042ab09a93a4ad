// ControllerCore's user and administrator actions: cancel, node updates,
// hold/release and suspend/resume. Who may do what is decided here; what
// the action changes is the lifecycle's.
#include "controller/core/controller_core.h"

#include <csignal>

#include "common/hostlist/hostlist.h"
#include "controller/drain/node_drain_state.h"

namespace gantry::core {

namespace {

std::string upper(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

void ControllerCore::cancelJob(v1::CancelJobRequest request, auth::Identity caller,
                               Reply<v1::CancelJobResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller), reply = std::move(reply)]() mutable {
    v1::CancelJobResponse response;
    std::vector<uint64_t> ids(request.job_ids().begin(), request.job_ids().end());
    if (ids.empty() && !request.user().empty()) {
      for (const auto& [id, job] : state_.jobs) {
        if (job.user == request.user() && !isEnded(job.state)) ids.push_back(id);
      }
    }
    auto refuse = [&](uint64_t id, const std::string& why) {
      response.add_errors("Kill job error on job id " + std::to_string(id) + ": " + why);
    };
    cancelSteps(request, caller, response);
    uint64_t lastChanged = 0;
    for (uint64_t id : ids) {
      JobRecord* job = state_.findJob(id);
      if (job == nullptr) {
        refuse(id, "Invalid job id specified");
        continue;
      }
      if (job->uid != caller.uid && !isAdministrator(caller)) {
        refuse(id, "Access/permission denied");
        continue;
      }
      if (isEnded(job->state)) {
        refuse(id, "Job/step already completing or completed");
        continue;
      }
      if (request.signal() != 0) {
        SignalScope scope = request.signal_scope() == v1::SIGNAL_SCOPE_BATCH  ? SignalScope::Batch
                            : request.signal_scope() == v1::SIGNAL_SCOPE_FULL ? SignalScope::Full
                                                                              : SignalScope::Steps;
        executor_.execute({SignalOnNodes{id, job->nodeNames, request.signal(), scope}});
        noteStopOrContinue(*job, request.signal());
        continue;
      }
      if (applyJob(*job, job_event::Cancelled{.byUid = caller.uid})) lastChanged = id;
    }
    if (lastChanged == 0) return reply(std::move(response));
    // Answer once the cancellations are durable: flush ordering is FIFO, so
    // waiting for a save of the last job covers every earlier one.
    auto shared = std::make_shared<v1::CancelJobResponse>(std::move(response));
    executor_.persistJob(*state_.findJob(lastChanged), [shared, reply = std::move(reply)](const Status& status) {
      if (!status) return reply(Error{ErrorCode::Internal, "cannot store the cancellation: " + status.error()});
      reply(std::move(*shared));
    });
  });
}

// scancel <job>.<step>: the step's tasks get the signal (SIGKILL to
// cancel, as Slurm ends a step); the step then ends as its nodes report,
// and the job goes on. Best effort, like a job signal.
void ControllerCore::cancelSteps(const v1::CancelJobRequest& request, const auth::Identity& caller,
                                 v1::CancelJobResponse& response) {
  for (const v1::StepRef& ref : request.steps()) {
    auto refuse = [&](const std::string& why) {
      response.add_errors("Kill job error on job step id " + std::to_string(ref.job_id()) + "." +
                          std::to_string(ref.step_id()) + ": " + why);
    };
    JobRecord* job = state_.findJob(ref.job_id());
    if (job == nullptr) {
      refuse("Invalid job id specified");
      continue;
    }
    if (job->uid != caller.uid && !isAdministrator(caller)) {
      refuse("Access/permission denied");
      continue;
    }
    auto step = job->steps.find(ref.step_id());
    if (isEnded(job->state) || step == job->steps.end() || step->second.ended()) {
      refuse(step == job->steps.end() && !isEnded(job->state) ? "Invalid job id specified"
                                                              : "Job/step already completing or completed");
      continue;
    }
    int signal = request.signal() != 0 ? request.signal() : SIGKILL;
    std::vector<std::string> nodes(step->second.nodesLeft.begin(), step->second.nodesLeft.end());
    executor_.execute({SignalOnNodes{job->id, std::move(nodes), signal, SignalScope::Steps,
                                     std::to_string(ref.step_id())}});
    noteStopOrContinue(*job, signal);
  }
}

// As Slurm: SIGSTOP to a running job's tasks (or one step's) marks the job
// STOPPED and SIGCONT clears it. Signals are best effort, so the mark is
// set when the signal goes out rather than when every node confirmed it.
void ControllerCore::noteStopOrContinue(JobRecord& job, int signal) {
  if (job.state != JobState::Running || (signal != SIGSTOP && signal != SIGCONT)) return;
  bool stopped = signal == SIGSTOP;
  if (job.stopped == stopped) return;
  job.stopped = stopped;
  executor_.execute({PersistJob{job.id}});
}

void ControllerCore::updateNode(v1::UpdateNodeRequest request, auth::Identity caller,
                                Reply<v1::UpdateNodeResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller), reply = std::move(reply)]() mutable {
    if (!isAdministrator(caller)) {
      return reply(Error{ErrorCode::Denied, "Access/permission denied: node updates are for root or SlurmUser"});
    }
    auto names = hostlist::expand(request.node_names());
    if (!names) return reply(Error{names.failure()});
    std::string state = upper(request.state());
    using To = node_event::AdminUpdate::To;
    To to = To::Resume;
    // What a return to service does to the node's TRES drains: only RESUME
    // resumes them too (node_drain_state.h).
    drain::NodeStateUpdate tresUpdate = drain::NodeStateUpdate::Undrain;
    if (state == "DOWN") {
      to = To::Down;
    } else if (state == "DRAIN") {
      to = To::Drain;
    } else if (state == "FAIL") {
      to = To::Fail;
    } else if (state == "RESUME") {
      tresUpdate = drain::NodeStateUpdate::Resume;
    } else if (state == "IDLE") {
      tresUpdate = drain::NodeStateUpdate::Idle;
    } else if (state == "RESUME_KEEP_TRES") {
      tresUpdate = drain::NodeStateUpdate::ResumeKeepTres;
    } else if (state != "UNDRAIN") {
      return reply(Error{"Invalid node state specified: " + request.state() +
                         " (use DOWN, DRAIN, FAIL, RESUME, RESUME_KEEP_TRES, IDLE or UNDRAIN)"});
    }
    if (to != To::Resume && request.reason().empty()) {
      return reply(Error{"You must specify a reason when changing a node's state to " + state});
    }
    std::vector<NodeRecord*> targets;
    for (const auto& name : *names) {
      NodeRecord* node = state_.findNode(name);
      if (node == nullptr) return reply(Error{ErrorCode::NotFound, "Invalid node name specified: " + name});
      targets.push_back(node);
    }
    if (targets.empty()) return reply(Error{"no node names given"});
    v1::UpdateNodeResponse response;
    for (NodeRecord* node : targets) {
      drain::DrainedTres before = node->drainedTres;
      bool layoutChanged = false;
      if (to == To::Resume) {
        drain::NodeStateOutcome outcome = drain::applyNodeStateUpdate(node->drainedTres, tresUpdate, node->conf.name);
        node->drainedTres = std::move(outcome.record);
        layoutChanged = !outcome.droppedOrders.empty();
        for (auto& line : outcome.leftDrained) response.add_left_drained(std::move(line));
      }
      applyNode(*node, node_event::AdminUpdate{
                           .to = to, .reason = request.reason(), .user = caller.user, .keepsFail = state == "UNDRAIN"});
      if (to == To::Down) loseJobsOn(*node, JobReason::NodeSetDown);
      drainedTresChanged(*node, before, layoutChanged);
    }
    // The last node's write covers the earlier ones (the store is FIFO).
    executor_.persistNode(*targets.back(), [reply, response = std::move(response)](const Status& status) mutable {
      if (!status) return reply(Error{ErrorCode::Internal, status.error()});
      reply(std::move(response));
    });
  });
}

void ControllerCore::jobAction(JobAction action, uint64_t jobId, auth::Identity caller, Reply<Ok> reply) {
  onStrand([this, action, jobId, caller = std::move(caller), reply = std::move(reply)]() mutable {
    JobRecord* job = state_.findJob(jobId);
    if (job == nullptr) return reply(Error{ErrorCode::NotFound, "Invalid job id specified: " + std::to_string(jobId)});
    bool owner = job->uid == caller.uid;
    bool admin = isAdministrator(caller);
    JobEvent event = job_event::Suspend{};
    switch (action) {
      case JobAction::Hold:
      case JobAction::Release:
        if (!owner && !admin) return reply(Error{ErrorCode::Denied, "Access/permission denied"});
        if (action == JobAction::Hold) {
          event = job_event::Hold{.byAdmin = admin && !owner};
        } else {
          event = job_event::Release{};
        }
        break;
      case JobAction::Requeue:
        // As Slurm: the owner may requeue a job of theirs.
        if (!owner && !admin) return reply(Error{ErrorCode::Denied, "Access/permission denied"});
        event = job_event::Requeue{};
        break;
      case JobAction::Suspend:
      case JobAction::Resume:
        if (!admin) {
          return reply(Error{ErrorCode::Denied, "Access/permission denied: suspend and resume are for root or SlurmUser"});
        }
        if (action == JobAction::Resume) event = job_event::Resume{};
        break;
    }
    auto answer = [reply](const Status& status) {
      if (!status) return reply(Error{ErrorCode::Internal, status.error()});
      reply(Ok{});
    };
    Result<Ok> applied = action == JobAction::Suspend  ? suspendByAdmin(*job, answer)
                         : action == JobAction::Resume ? resumeByAdmin(*job, answer)
                                                       : applyJob(*job, event, answer);
    if (!applied) reply(Error{applied.failure()});
  });
}

}  // namespace gantry::core
