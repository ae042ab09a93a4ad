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
    cancelSteps(request, caller, response);
    // What each id or array task list names (job_arrays.cpp); an array's
    // tasks that already ended are passed over, as Slurm does.
    struct Target {
      std::string named;
      std::vector<JobRecord*> records;
    };
    std::vector<Target> targets;
    auto mayCancel = [&](const JobRecord& job) -> Status {
      if (job.uid != caller.uid && !isAdministrator(caller)) return Error{ErrorCode::Denied, "Access/permission denied"};
      return okStatus();
    };
    auto collect = [&](uint64_t id, const std::string& tasks) {
      std::string named = std::to_string(id) + (tasks.empty() ? "" : "_" + tasks);
      auto records = targetRecords(id, tasks, mayCancel);
      if (!records) {
        response.add_errors("Kill job error on job id " + named + ": " +
                            (records.errorCode() == ErrorCode::Denied ? records.error() : "Invalid job id specified"));
        return;
      }
      targets.push_back({std::move(named), std::move(*records)});
    };
    for (uint64_t id : ids) collect(id, "");
    for (const v1::ArrayTaskRef& ref : request.array_tasks()) collect(ref.array_job_id(), ref.tasks());
    uint64_t lastChanged = 0;
    for (Target& target : targets) {
      bool anyLive = false;
      for (JobRecord* job : target.records) {
        if (isEnded(job->state)) continue;
        anyLive = true;
        if (request.signal() != 0) {
          SignalScope scope = request.signal_scope() == v1::SIGNAL_SCOPE_BATCH  ? SignalScope::Batch
                              : request.signal_scope() == v1::SIGNAL_SCOPE_FULL ? SignalScope::Full
                                                                                : SignalScope::Steps;
          executor_.execute({SignalOnNodes{job->id, job->nodeNames, request.signal(), scope}});
          noteStopOrContinue(*job, request.signal());
          continue;
        }
        if (applyJob(*job, job_event::Cancelled{.byUid = caller.uid})) lastChanged = job->id;
      }
      if (!anyLive) {
        response.add_errors("Kill job error on job id " + target.named + ": Job/step already completing or completed");
      }
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

void ControllerCore::jobAction(JobAction action, uint64_t jobId, std::string arrayTasks, auth::Identity caller,
                               Reply<Ok> reply) {
  onStrand([this, action, jobId, arrayTasks = std::move(arrayTasks), caller = std::move(caller),
            reply = std::move(reply)]() mutable {
    bool admin = isAdministrator(caller);
    auto allowed = [&](const JobRecord& job) -> Status {
      bool owner = job.uid == caller.uid;
      if (action == JobAction::Suspend || action == JobAction::Resume) {
        if (!admin) return Error{ErrorCode::Denied, "Access/permission denied: suspend and resume are for root or SlurmUser"};
      } else if (!owner && !admin) {
        // As Slurm: the owner may hold, release and requeue a job of theirs.
        return Error{ErrorCode::Denied, "Access/permission denied"};
      }
      return okStatus();
    };
    auto records = targetRecords(jobId, arrayTasks, allowed);
    if (!records) return reply(Error{records.failure()});
    // One record: its answer. Several (an array): each that the action
    // suits, answered once the last change is durable; none suiting gives
    // the first refusal.
    const bool several = records->size() > 1;
    std::optional<Error> firstRefusal;
    JobRecord* last = nullptr;
    for (JobRecord* job : *records) {
      if (several && isEnded(job->state)) continue;
      JobEvent event = job_event::Suspend{};
      if (action == JobAction::Hold) event = job_event::Hold{.byAdmin = admin && job->uid != caller.uid};
      if (action == JobAction::Release) event = job_event::Release{};
      if (action == JobAction::Requeue) event = job_event::Requeue{};
      if (action == JobAction::Resume) event = job_event::Resume{};
      std::function<void(const Status&)> answer;
      if (!several) {
        answer = [reply](const Status& status) {
          if (!status) return reply(Error{ErrorCode::Internal, status.error()});
          reply(Ok{});
        };
      }
      Result<Ok> applied = action == JobAction::Suspend  ? suspendByAdmin(*job, answer)
                           : action == JobAction::Resume ? resumeByAdmin(*job, answer)
                                                         : applyJob(*job, event, answer);
      if (!applied && !several) return reply(Error{applied.failure()});
      if (!applied && !firstRefusal) firstRefusal = applied.failure();
      if (applied) last = job;
    }
    if (!several) return;
    if (last == nullptr) {
      return reply(firstRefusal ? *firstRefusal : Error{ErrorCode::NotNow, "Job/step already completing or completed"});
    }
    executor_.persistJob(*last, [reply](const Status& status) {
      if (!status) return reply(Error{ErrorCode::Internal, status.error()});
      reply(Ok{});
    });
  });
}

}  // namespace gantry::core
