// Every state change of a job and of a node, and what must follow from it.
// Read top to bottom: the job's transitions (placement, launch, end,
// requeue, suspension, holds), then the node's.
#include "controller/core/lifecycle.h"

#include <csignal>

namespace gantry::core {

std::string_view toString(JobState state) {
  switch (state) {
    case JobState::Pending: return "PENDING";
    case JobState::Configuring: return "CONFIGURING";
    case JobState::Running: return "RUNNING";
    case JobState::Suspended: return "SUSPENDED";
    case JobState::Completing: return "COMPLETING";
    case JobState::Completed: return "COMPLETED";
    case JobState::Failed: return "FAILED";
    case JobState::Cancelled: return "CANCELLED";
    case JobState::Timeout: return "TIMEOUT";
    case JobState::NodeFail: return "NODE_FAIL";
  }
  return "UNKNOWN";
}

std::string_view toString(NodeAdminState state) {
  switch (state) {
    case NodeAdminState::None: return "";
    case NodeAdminState::Drain: return "DRAIN";
    case NodeAdminState::Down: return "DOWN";
    case NodeAdminState::DownDrain: return "DOWN+DRAIN";
    case NodeAdminState::Fail: return "FAIL";
  }
  return "";
}

std::string reasonText(JobReason reason, const std::string& detail) {
  switch (reason) {
    case JobReason::None: return "None";
    case JobReason::Resources: return detail.empty() ? "Resources" : detail;
    case JobReason::ReqNodeNotAvail: return "ReqNodeNotAvail";
    case JobReason::JobHeldUser: return "JobHeldUser";
    case JobReason::JobHeldAdmin: return "JobHeldAdmin";
    case JobReason::TimeLimit: return "TimeLimit";
    case JobReason::NonZeroExitCode: return "NonZeroExitCode";
    case JobReason::RaisedSignal: return "RaisedSignal:" + detail;
    case JobReason::StepFailed: return detail;
    case JobReason::NodeNotResponding: return "Node " + detail + " not responding";
    case JobReason::NodeSetDown: return "Node " + detail + " set DOWN";
    case JobReason::BatchStepLost: return "batch step lost when node " + detail + " restarted";
    case JobReason::LaunchFailed: return "launch failed: " + detail;
    case JobReason::StoreFailed: return "cannot store the job start: " + detail;
    case JobReason::BadConstraints: return "BadConstraints: " + detail;
    case JobReason::InactiveLimit: return "InactiveLimit";
    case JobReason::GangTimeslice: return "GangTimeslice";
    case JobReason::SwitchSetup: return detail;
    case JobReason::BeginTime: return "BeginTime";
    case JobReason::Dependency: return "Dependency";
    case JobReason::DependencyNeverSatisfied: return "DependencyNeverSatisfied";
    case JobReason::Priority: return "Priority";
    case JobReason::JobArrayTaskLimit: return "JobArrayTaskLimit";
  }
  return "None";
}

namespace {

using namespace job_event;

bool holdsNodes(JobState state) {
  return state == JobState::Configuring || state == JobState::Running || state == JobState::Suspended ||
         state == JobState::Completing;
}

Error notNow(std::string message) { return Error{ErrorCode::NotNow, std::move(message)}; }

// Steps still running end with their job (their nodes end them).
void endOpenSteps(JobRecord& job, int64_t now) {
  for (auto& [id, step] : job.steps) {
    if (step.ended()) continue;
    step.nodesLeft.clear();
    step.endTime = now;
  }
}

// Every end: the job's nodes end what still runs and run the Epilog (also
// after a normal completion: a TerminateJob for steps that ended already is
// harmless), its resources go back, its open steps end with it.
Effects endJob(JobRecord& job, JobState state, JobReason reason, std::string detail, int exitCode,
               int signal, int64_t now) {
  Effects effects;
  if (!job.nodeNames.empty()) effects.push_back(TerminateOnNodes{job.id, job.nodeNames});
  if (job.holdsResources) {
    effects.push_back(ReleaseResources{job.id});
    effects.push_back(Schedule{});
    job.holdsResources = false;
  }
  if (job.state == JobState::Running) job.runSecondsBefore += now - job.segmentStart();
  if (job.state == JobState::Suspended) job.suspendedSeconds += now - job.suspendTime;
  job.state = state;
  job.reason = reason;
  job.reasonDetail = std::move(detail);
  job.exitCode = exitCode;
  job.termSignal = signal;
  job.endTime = now;
  if (job.startTime == 0) job.startTime = now;
  job.launchInFlight = false;
  job.launchDeferred = false;
  job.suspendedBy = SuspendedBy::None;
  endOpenSteps(job, now);
  effects.push_back(PersistJob{job.id});
  return effects;
}

bool requeueable(const JobRecord& job, const LifecyclePolicy& policy) {
  return policy.jobRequeue ? !job.spec.no_requeue() : job.spec.requeue();
}

// Back to PENDING with its resources released (and the job stopped on
// `stopOn`), or NODE_FAIL when the job may not be requeued.
Effects requeue(JobRecord& job, JobReason reason, std::string detail, std::vector<std::string> stopOn,
                const LifecyclePolicy& policy, int64_t now) {
  if (!requeueable(job, policy)) {
    Effects effects = endJob(job, JobState::NodeFail, reason, std::move(detail), 1, 0, now);
    // endJob stops the job everywhere; a lost node is not to be asked.
    for (auto& effect : effects) {
      if (auto* terminate = std::get_if<TerminateOnNodes>(&effect)) terminate->nodes = stopOn;
    }
    return effects;
  }
  Effects effects;
  if (!stopOn.empty()) effects.push_back(TerminateOnNodes{job.id, std::move(stopOn)});
  if (job.holdsResources) effects.push_back(ReleaseResources{job.id});
  job.holdsResources = false;
  job.state = JobState::Pending;
  job.reason = reason;
  job.reasonDetail = std::move(detail);
  job.restartCount += 1;
  // Each run needs a time of its own (accounting keys a run by it), even
  // one requeued within the second it was submitted or last requeued.
  job.requeueTime = std::max(now, std::max(job.submitTime, job.requeueTime) + 1);
  // Not again before the delay: the last run's processes and credentials
  // must be gone from its nodes first (Slurm's requeue_delay).
  job.eligibleTime = job.held() ? 0 : now + policy.requeueDelaySec;
  job.nodeNames.clear();
  job.startTime = 0;
  job.runSecondsBefore = 0;
  job.launchInFlight = false;
  job.launchDeferred = false;
  job.suspendedBy = SuspendedBy::None;
  endOpenSteps(job, now);
  effects.push_back(PersistJob{job.id});
  effects.push_back(Schedule{});
  return effects;
}

std::vector<std::string> nodesExcept(const JobRecord& job, const std::string& node) {
  std::vector<std::string> others;
  for (const auto& name : job.nodeNames) {
    if (name != node) others.push_back(name);
  }
  return others;
}

struct JobTransition {
  JobRecord& job;
  int64_t now;
  const LifecyclePolicy& policy;

  Result<Effects> operator()(const Placed& placed) {
    if (job.state != JobState::Pending || job.held()) return notNow("job is not eligible to start");
    job.allocation = placed.allocation;
    job.nodeNames = placed.nodeNames;
    job.holdsResources = true;
    job.reasonDetail.clear();
    job.dependency = {};  // met: a singleton entry stays until the start (dependency.h)
    job.startTime = now;
    job.runSecondsBefore = 0;
    if (placed.configureNetwork) {
      // Nothing runs until switch.lua has set the interconnect up; a gang
      // turn that comes meanwhile is only remembered (launchDeferred).
      job.state = JobState::Configuring;
      job.reason = JobReason::None;
      job.launchDeferred = placed.startSuspended;
      job.suspendedBy = placed.startSuspended ? SuspendedBy::Gang : SuspendedBy::None;
      return Effects{HoldResources{job.id}, PersistJob{job.id}};
    }
    if (placed.startSuspended) {
      // Holds its resources (memory and GPUs are never timesliced) but
      // runs nothing until the timeslicer gives it its turn.
      job.state = JobState::Suspended;
      job.suspendedBy = SuspendedBy::Gang;
      job.suspendTime = now;
      job.reason = JobReason::GangTimeslice;
      job.launchDeferred = true;
      return Effects{HoldResources{job.id}, PersistJob{job.id}};
    }
    job.state = JobState::Running;
    job.reason = JobReason::None;
    job.launchInFlight = true;
    // The batch step is sent only once the RUNNING record is durable, so a
    // restarted controller never finds a job running that it thinks pending.
    return Effects{HoldResources{job.id}, PersistJob{job.id}, LaunchJob{job.id}};
  }

  Result<Effects> operator()(const StillPending& pending) {
    if (job.state != JobState::Pending) return notNow("job is not pending");
    // Reasons change with every pass; they are not worth a disk write.
    job.reason = pending.reason;
    job.reasonDetail = pending.detail;
    return Effects{};
  }

  Result<Effects> operator()(const DependencyChecked& checked) {
    if (job.state != JobState::Pending) return notNow("job is not pending");
    bool changed = checked.remaining != job.dependency;
    job.dependency = checked.remaining;
    JobReason reason = JobReason::Dependency;
    if (checked.verdict == DependencyVerdict::Satisfied) reason = JobReason::None;
    if (checked.verdict == DependencyVerdict::Never) {
      if (checked.cancelIfNever) {
        return endJob(job, JobState::Cancelled, JobReason::DependencyNeverSatisfied, "", 0, 0, now);
      }
      reason = JobReason::DependencyNeverSatisfied;
    }
    job.reason = reason;
    job.reasonDetail.clear();
    // Stored only when what is left changed (an entry satisfied or failed),
    // not on every pass that finds it still waiting.
    return changed ? Effects{PersistJob{job.id}} : Effects{};
  }

  Result<Effects> operator()(const LaunchAnswered& answer) {
    job.launchInFlight = false;
    if (answer.ok || job.state != JobState::Running) return Effects{};
    // A node that cannot start a step would fail every job sent to it:
    // drain it so this job (and the rest) go elsewhere.
    Effects effects{DrainNode{job.batchHost(), "batch job launch failed: " + answer.error}};
    Effects back = requeue(job, JobReason::LaunchFailed, answer.error, job.nodeNames, policy, now);
    effects.insert(effects.end(), back.begin(), back.end());
    return effects;
  }

  Result<Effects> operator()(const StartNotStored& failure) {
    if (job.state != JobState::Running) return Effects{};
    return requeue(job, JobReason::StoreFailed, failure.error, {}, policy, now);
  }

  Result<Effects> operator()(const BatchEnded& ended) {
    if (!holdsNodes(job.state)) return notNow("job is not running");
    bool ok = ended.exitCode == 0 && ended.signal == 0;
    JobReason reason = JobReason::None;
    std::string detail;
    if (!ok && !ended.message.empty()) {
      reason = JobReason::StepFailed;
      detail = ended.message;
    } else if (ended.signal != 0) {
      reason = JobReason::RaisedSignal;
      detail = std::to_string(ended.signal);
    } else if (!ok) {
      reason = JobReason::NonZeroExitCode;
    }
    Effects effects = endJob(job, ok ? JobState::Completed : JobState::Failed, reason, std::move(detail),
                             ended.exitCode, ended.signal, now);
    if (ended.endTime > 0) job.endTime = ended.endTime;
    return effects;
  }

  Result<Effects> operator()(const AllocationCompleted& completed) {
    if (isEnded(job.state)) return Effects{};  // srun retrying after a lost answer
    if (job.state == JobState::Pending) return endJob(job, JobState::Cancelled, JobReason::None, "", 0, 0, now);
    bool ok = completed.exitCode == 0;
    return endJob(job, ok ? JobState::Completed : JobState::Failed,
                  ok ? JobReason::None : JobReason::NonZeroExitCode, "", completed.exitCode, 0, now);
  }

  Result<Effects> operator()(const Cancelled& cancelled) {
    if (isEnded(job.state)) return notNow("Job/step already completing or completed");
    bool started = job.state != JobState::Pending;
    job.cancelledBy = cancelled.byUid;
    return endJob(job, JobState::Cancelled, JobReason::None, "", 0, started ? SIGTERM : 0, now);
  }

  // The salloc or srun that holds an allocation is gone (killed, its host
  // lost): nobody will use or give back the allocation, so it ends. A
  // started one ends as a time limit does (its nodes signal the tasks, then
  // kill them after KillWait); one still waiting is cancelled.
  Result<Effects> operator()(const ClientGone&) {
    if (isEnded(job.state)) return notNow("job already ended");
    if (job.isBatch()) return notNow("a batch job has no allocating client");
    if (job.state == JobState::Pending) {
      return endJob(job, JobState::Cancelled, JobReason::InactiveLimit, "", 0, 0, now);
    }
    return endJob(job, JobState::Timeout, JobReason::InactiveLimit, "", 0, SIGTERM, now);
  }

  Result<Effects> operator()(const TimeLimitReached&) {
    if (job.state != JobState::Running) return notNow("job is not running");
    return endJob(job, JobState::Timeout, JobReason::TimeLimit, "", 0, SIGTERM, now);
  }

  Result<Effects> operator()(const NodeLost& lost) {
    if (!holdsNodes(job.state)) return notNow("job is not running");
    // A node that stopped answering is not asked; the others end the job.
    std::vector<std::string> stopOn =
        lost.why == JobReason::NodeNotResponding ? nodesExcept(job, lost.node) : job.nodeNames;
    return requeue(job, lost.why, lost.node, std::move(stopOn), policy, now);
  }

  Result<Effects> operator()(const Suspend&) {
    if (job.state == JobState::Suspended && job.suspendedBy == SuspendedBy::Gang) {
      // Already stopped by the timeslicer: now it stays stopped until the
      // administrator resumes it.
      job.suspendedBy = SuspendedBy::Admin;
      job.reason = JobReason::None;
      return Effects{PersistJob{job.id}};
    }
    if (job.state != JobState::Running) return notNow("Job is not running");
    suspendRunning(SuspendedBy::Admin, JobReason::None);
    return Effects{SuspendOnNodes{job.id, job.nodeNames}, PersistJob{job.id}};
  }

  Result<Effects> operator()(const Resume& resume) {
    if (job.state != JobState::Suspended) return notNow("Job is not suspended");
    if (resume.waitForTurn) {
      job.suspendedBy = SuspendedBy::Gang;
      job.reason = JobReason::GangTimeslice;
      return Effects{PersistJob{job.id}};
    }
    return resumeSuspended();
  }

  Result<Effects> operator()(const SwitchConfigured&) {
    if (job.state != JobState::Configuring) return notNow("job is not configuring");
    if (job.launchDeferred) {
      // The timeslicer has it suspended: it launches at its first resume.
      job.state = JobState::Suspended;
      job.suspendedBy = SuspendedBy::Gang;
      job.suspendTime = now;
      job.reason = JobReason::GangTimeslice;
      return Effects{PersistJob{job.id}};
    }
    job.state = JobState::Running;
    job.reason = JobReason::None;
    job.startTime = now;  // its time limit counts from here, not from the placement
    job.launchInFlight = true;
    return Effects{PersistJob{job.id}, LaunchJob{job.id}};
  }

  Result<Effects> operator()(const SwitchSetupFailed& failed) {
    if (job.state != JobState::Configuring) return notNow("job is not configuring");
    // Nothing was launched, so there is nothing to stop on the nodes.
    if (job.isBatch() && requeueable(job, policy)) {
      return requeue(job, JobReason::SwitchSetup, failed.reason, {}, policy, now);
    }
    Effects effects = endJob(job, JobState::Cancelled, JobReason::SwitchSetup, failed.reason, 0, 0, now);
    std::erase_if(effects, [](const Effect& effect) { return std::holds_alternative<TerminateOnNodes>(effect); });
    return effects;
  }

  Result<Effects> operator()(const GangSuspend&) {
    if (job.state == JobState::Configuring) {
      job.launchDeferred = true;
      job.suspendedBy = SuspendedBy::Gang;
      return Effects{PersistJob{job.id}};
    }
    if (job.state != JobState::Running) return notNow("Job is not running");
    suspendRunning(SuspendedBy::Gang, JobReason::GangTimeslice);
    return Effects{SuspendOnNodes{job.id, job.nodeNames}, PersistJob{job.id}};
  }

  Result<Effects> operator()(const GangResume&) {
    if (job.state == JobState::Configuring) {
      job.launchDeferred = false;
      job.suspendedBy = SuspendedBy::None;
      return Effects{PersistJob{job.id}};
    }
    if (job.state != JobState::Suspended || job.suspendedBy != SuspendedBy::Gang) {
      return notNow("Job is not suspended by gang scheduling");
    }
    return resumeSuspended();
  }

  // Running -> Suspended: the run clock stops, the resources stay held.
  void suspendRunning(SuspendedBy by, JobReason reason) {
    job.runSecondsBefore += now - job.segmentStart();
    job.suspendTime = now;
    job.state = JobState::Suspended;
    job.suspendedBy = by;
    job.reason = reason;
    job.reasonDetail.clear();
  }

  // Suspended -> Running. A job allocated suspended starts now; any other
  // is thawed on its nodes.
  Effects resumeSuspended() {
    job.suspendedSeconds += now - job.suspendTime;
    job.suspendTime = now;  // the run clock goes on from here
    job.state = JobState::Running;
    job.suspendedBy = SuspendedBy::None;
    job.reason = JobReason::None;
    job.reasonDetail.clear();
    if (job.launchDeferred) {
      job.launchDeferred = false;
      job.launchInFlight = true;
      return Effects{PersistJob{job.id}, LaunchJob{job.id}};
    }
    return Effects{ResumeOnNodes{job.id, job.nodeNames}, PersistJob{job.id}};
  }

  Result<Effects> operator()(const Hold& hold) {
    if (job.state != JobState::Pending) return notNow("Job is no longer pending execution");
    job.spec.set_hold(true);
    job.eligibleTime = 0;
    job.reason = hold.byAdmin ? JobReason::JobHeldAdmin : JobReason::JobHeldUser;
    job.reasonDetail.clear();
    return Effects{PersistJob{job.id}};
  }

  Result<Effects> operator()(const Requeue&) {
    if (!job.isBatch()) return Error{ErrorCode::Invalid, "Only batch jobs are accepted or processed"};
    if (job.state == JobState::Pending) return notNow("Job is pending execution");
    if (job.state == JobState::Completing) return notNow("Job is completing");  // its nodes still clean up
    if (!requeueable(job, policy)) return notNow("Requested operation is presently disabled");
    // An ended run's outcome belongs to that run; the new one starts clean.
    bool ended = isEnded(job.state);
    if (ended) {
      job.endTime = 0;
      job.exitCode = 0;
      job.termSignal = 0;
      job.cancelledBy.reset();
    }
    return requeue(job, JobReason::None, "", ended ? std::vector<std::string>{} : job.nodeNames, policy, now);
  }

  Result<Effects> operator()(const Release&) {
    if (job.state != JobState::Pending) return notNow("Job is no longer pending execution");
    job.spec.set_hold(false);
    job.eligibleTime = std::max(now, job.spec.begin_time());
    job.reason = JobReason::None;
    job.reasonDetail.clear();
    return Effects{PersistJob{job.id}, Schedule{}};
  }
};

// ---------------------------------------------------------------- nodes

// An administrator's DOWN or DRAIN on a node that is already the other
// keeps both, as Slurm does; FAIL replaces either.
NodeAdminState adminStateAfter(NodeAdminState current, node_event::AdminUpdate::To to) {
  using To = node_event::AdminUpdate::To;
  bool wasDown = current == NodeAdminState::Down || current == NodeAdminState::DownDrain;
  bool wasDrained = current == NodeAdminState::Drain || current == NodeAdminState::DownDrain;
  switch (to) {
    case To::Down: return wasDrained ? NodeAdminState::DownDrain : NodeAdminState::Down;
    case To::Drain: return wasDown ? NodeAdminState::DownDrain : NodeAdminState::Drain;
    case To::Fail: return NodeAdminState::Fail;
    case To::Resume: return NodeAdminState::None;
  }
  return current;
}

void drain(NodeRecord& node, const std::string& reason, const std::string& user, int64_t now) {
  node.admin = adminStateAfter(node.admin, node_event::AdminUpdate::To::Drain);
  node.reason = reason;
  node.reasonUser = user;
  node.reasonTime = now;
}

struct NodeTransition {
  NodeRecord& node;
  int64_t now;

  Effects operator()(const node_event::Registered& registered) {
    node.registered = true;
    node.notResponding = false;
    node.lastHeartbeat = now;
    if (!registered.addr.empty()) node.addr = registered.addr;
    if (registered.port != 0) node.port = registered.port;
    node.hardware = registered.hardware;
    node.hardwareKnown = true;
    if (registered.agentStartTime > 0) node.agentStartTime = registered.agentStartTime;
    if (node.lastBusyTime == 0) node.lastBusyTime = now;
    // A good registration leaves an earlier drain in place: such a node
    // returns only through `scontrol update State=RESUME`, which clears
    // these (a still-bad node drains again at its next registration).
    if (registered.clearsOrderMismatch) std::erase(node.registrationErrors, std::string(drain::kOrderMismatchReason));
    if (!registered.problems.empty()) node.registrationErrors = registered.problems;
    if (registered.drains) node.drainedTres = *registered.drains;
    return Effects{RefreshNode{node.conf.name, true}, PersistNode{node.conf.name}, Schedule{}};
  }

  Effects operator()(const node_event::HeartbeatSeen& beat) {
    node.lastHeartbeat = now;
    Effects effects;
    for (const auto& reason : beat.drainReasons) drain(node, reason, "root", now);
    if (!beat.drainReasons.empty()) effects.push_back(PersistNode{node.conf.name});
    if (node.notResponding) {
      node.notResponding = false;
      effects.push_back(Schedule{});
    }
    if (!effects.empty()) effects.insert(effects.begin(), RefreshNode{node.conf.name});
    return effects;
  }

  Effects operator()(const node_event::HeartbeatMissed&) {
    if (node.notResponding) return {};
    node.notResponding = true;
    node.reasonTime = now;
    return Effects{RefreshNode{node.conf.name}};
  }

  Effects operator()(const node_event::AdminUpdate& update) {
    using To = node_event::AdminUpdate::To;
    if (update.to == To::Resume && update.keepsFail && node.failing()) {
      // UNDRAIN of a failing node: only the drains of its registration go.
      node.registrationErrors.clear();
      return Effects{RefreshNode{node.conf.name}, PersistNode{node.conf.name}, Schedule{}};
    }
    if (update.to == To::Resume && update.keepsFail && node.admin == NodeAdminState::DownDrain) {
      // UNDRAIN of a DOWN node that was drained too: only the drain goes.
      node.admin = NodeAdminState::Down;
      node.registrationErrors.clear();
      return Effects{RefreshNode{node.conf.name}, PersistNode{node.conf.name}, Schedule{}};
    }
    if (update.to == To::Resume) {
      node.admin = NodeAdminState::None;
      node.reason.clear();
      node.registrationErrors.clear();
    } else {
      node.admin = adminStateAfter(node.admin, update.to);
      node.reason = update.reason;
    }
    node.reasonUser = update.user;
    node.reasonTime = now;
    return Effects{RefreshNode{node.conf.name}, PersistNode{node.conf.name}, Schedule{}};
  }

  Effects operator()(const node_event::Drain& request) {
    drain(node, request.reason, "root", now);
    return Effects{RefreshNode{node.conf.name}, PersistNode{node.conf.name}};
  }
};

}  // namespace

Result<Effects> onJobEvent(JobRecord& job, const JobEvent& event, int64_t now, const LifecyclePolicy& policy) {
  // Transitions change the record only once they know they succeed, so a
  // refused event leaves it as it was.
  return std::visit(JobTransition{job, now, policy}, event);
}

Effects onNodeEvent(NodeRecord& node, const NodeEvent& event, int64_t now) {
  return std::visit(NodeTransition{node, now}, event);
}

}  // namespace gantry::core
