// The job and node lifecycles (controller/core/lifecycle.cpp) as tables:
// one row per rule, named after it. No io_context, no store, no threads.
#include <catch2/catch.hpp>

#include <csignal>
#include <functional>
#include <string>
#include <vector>

#include "controller/core/lifecycle.h"

using namespace gantry;
using namespace gantry::core;

namespace {

constexpr int64_t kNow = 5'000;

// A job as a row starts it: in `state`, with an allocation on n1 and n2
// when it has started.
JobRecord jobIn(JobState state) {
  JobRecord job;
  job.id = 42;
  job.spec.set_script("#!/bin/sh\ntrue\n");
  job.state = state;
  job.submitTime = 1'000;
  if (state != JobState::Pending) {
    select::NodeGrant a, b;
    a.node = 0;
    a.cores = {0, 1};
    b.node = 1;
    b.cores = {0};
    job.allocation.nodes = {a, b};
    job.nodeNames = {"n1", "n2"};
    job.holdsResources = !isEnded(state);
    job.startTime = 2'000;
  }
  if (state == JobState::Suspended) {
    job.runSecondsBefore = 300;
    job.suspendTime = 4'000;
  }
  return job;
}

// The scheduler's verdict on a job's dependency, `left` in stored form.
job_event::DependencyChecked waitingDependency(const char* left, DependencyVerdict verdict, bool cancel = false) {
  return job_event::DependencyChecked{*parseStoredDependency(left), verdict, cancel};
}

// The effect kinds, in order, as short names: what a row expects.
std::string kindOf(const Effect& effect) {
  return std::visit(
      [](const auto& e) -> std::string {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, PersistJob>) return "persist";
        if constexpr (std::is_same_v<T, HoldResources>) return "hold";
        if constexpr (std::is_same_v<T, ReleaseResources>) return "release";
        if constexpr (std::is_same_v<T, LaunchJob>) return "launch";
        if constexpr (std::is_same_v<T, TerminateOnNodes>) return "terminate:" + std::to_string(e.nodes.size());
        if constexpr (std::is_same_v<T, SuspendOnNodes>) return "suspend:" + std::to_string(e.nodes.size());
        if constexpr (std::is_same_v<T, ResumeOnNodes>) return "resume:" + std::to_string(e.nodes.size());
        if constexpr (std::is_same_v<T, SignalOnNodes>) return "signal";
        if constexpr (std::is_same_v<T, DrainNode>) return "drain:" + e.node;
        if constexpr (std::is_same_v<T, PersistNode>) return "persist-node";
        if constexpr (std::is_same_v<T, RefreshNode>) return e.hardwareChanged ? "refresh-hw" : "refresh";
        if constexpr (std::is_same_v<T, Schedule>) return "schedule";
        return "?";
      },
      effect);
}

std::vector<std::string> kinds(const Effects& effects) {
  std::vector<std::string> out;
  for (const auto& effect : effects) out.push_back(kindOf(effect));
  return out;
}

struct JobRow {
  const char* rule;
  JobState from;
  JobEvent event;
  JobState to;
  JobReason reason;
  std::vector<std::string> effects;
  std::function<void(JobRecord&)> prepare = nullptr;
  std::function<void(const JobRecord&)> check = nullptr;
  LifecyclePolicy policy = {};
};

job_event::Placed placedOnN3() {
  select::NodeGrant grant;
  grant.node = 2;
  grant.cores = {3};
  return job_event::Placed{select::Allocation{{grant}}, {"n3"}};
}

const std::vector<JobRow>& jobRows() {
  static const std::vector<JobRow> rows = {
      {"a placed job runs, holds its allocation, and launches once stored", JobState::Pending, placedOnN3(),
       JobState::Running, JobReason::None, {"hold", "persist", "launch"}, nullptr,
       [](const JobRecord& j) {
         CHECK(j.nodeNames == std::vector<std::string>{"n3"});
         CHECK(j.startTime == kNow);
         CHECK(j.holdsResources);
         CHECK(j.launchInFlight);
       }},
      {"dependency: a placed job keeps nothing of its dependency (a met singleton)", JobState::Pending, placedOnN3(),
       JobState::Running, JobReason::None, {"hold", "persist", "launch"},
       [](JobRecord& j) { j.dependency = *parseStoredDependency("singleton(unfulfilled)"); },
       [](const JobRecord& j) { CHECK(j.dependency.empty()); }},
      {"a pending job keeps its new reason without a disk write", JobState::Pending,
       job_event::StillPending{JobReason::ReqNodeNotAvail, ""}, JobState::Pending, JobReason::ReqNodeNotAvail, {}},
      {"a clean batch exit completes the job and runs the Epilog on every node", JobState::Running,
       job_event::BatchEnded{.exitCode = 0, .signal = 0, .message = "", .endTime = 0}, JobState::Completed, JobReason::None,
       {"terminate:2", "release", "schedule", "persist"}, nullptr,
       [](const JobRecord& j) {
         CHECK(j.endTime == kNow);
         CHECK_FALSE(j.holdsResources);
         CHECK(j.runSecondsBefore == kNow - 2'000);
       }},
      {"a non-zero exit fails the job with its exit code", JobState::Running, job_event::BatchEnded{.exitCode = 3, .signal = 0, .message = "", .endTime = 0},
       JobState::Failed, JobReason::NonZeroExitCode, {"terminate:2", "release", "schedule", "persist"}, nullptr,
       [](const JobRecord& j) { CHECK(j.exitCode == 3); }},
      {"a signal fails the job as RaisedSignal", JobState::Running, job_event::BatchEnded{.exitCode = 0, .signal = 9, .message = "", .endTime = 0},
       JobState::Failed, JobReason::RaisedSignal, {"terminate:2", "release", "schedule", "persist"}, nullptr,
       [](const JobRecord& j) { CHECK(reasonText(j.reason, j.reasonDetail) == "RaisedSignal:9"); }},
      {"the launcher's message is the reason of a failed batch step", JobState::Running,
       job_event::BatchEnded{.exitCode = 1, .signal = 0, .message = "cannot chdir", .endTime = 0}, JobState::Failed, JobReason::StepFailed,
       {"terminate:2", "release", "schedule", "persist"}, nullptr,
       [](const JobRecord& j) { CHECK(reasonText(j.reason, j.reasonDetail) == "cannot chdir"); }},
      {"the node's end time wins over the controller's", JobState::Running,
       job_event::BatchEnded{.exitCode = 0, .signal = 0, .message = "", .endTime = 4'321}, JobState::Completed, JobReason::None,
       {"terminate:2", "release", "schedule", "persist"}, nullptr,
       [](const JobRecord& j) { CHECK(j.endTime == 4'321); }},
      {"a suspended job whose script ends still completes", JobState::Suspended, job_event::BatchEnded{.exitCode = 0, .signal = 0, .message = "", .endTime = 0},
       JobState::Completed, JobReason::None, {"terminate:2", "release", "schedule", "persist"}, nullptr,
       [](const JobRecord& j) { CHECK(j.suspendedSeconds == kNow - 4'000); }},
      {"cancelling a pending job needs no node", JobState::Pending, job_event::Cancelled{}, JobState::Cancelled,
       JobReason::None, {"persist"}, nullptr, [](const JobRecord& j) { CHECK(j.termSignal == 0); }},
      {"cancelling a running job terminates it on its nodes with SIGTERM", JobState::Running,
       job_event::Cancelled{}, JobState::Cancelled, JobReason::None,
       {"terminate:2", "release", "schedule", "persist"}, nullptr,
       [](const JobRecord& j) { CHECK(j.termSignal == SIGTERM); }},
      {"a running job past its limit times out", JobState::Running, job_event::TimeLimitReached{},
       JobState::Timeout, JobReason::TimeLimit, {"terminate:2", "release", "schedule", "persist"}},
      {"a failed launch drains the batch host and requeues the job everywhere", JobState::Running,
       job_event::LaunchAnswered{false, "no gantrystepd"}, JobState::Pending, JobReason::LaunchFailed,
       {"drain:n1", "terminate:2", "release", "persist", "schedule"},
       [](JobRecord& j) { j.launchInFlight = true; },
       [](const JobRecord& j) {
         CHECK(j.restartCount == 1);
         CHECK(j.nodeNames.empty());
         CHECK_FALSE(j.launchInFlight);
         CHECK(reasonText(j.reason, j.reasonDetail) == "launch failed: no gantrystepd");
       }},
      {"a good launch answer only clears the in-flight mark", JobState::Running, job_event::LaunchAnswered{true, ""},
       JobState::Running, JobReason::None, {}, [](JobRecord& j) { j.launchInFlight = true; },
       [](const JobRecord& j) { CHECK_FALSE(j.launchInFlight); }},
      {"a start that could not be stored goes back to pending", JobState::Running,
       job_event::StartNotStored{"disk full"}, JobState::Pending, JobReason::StoreFailed,
       {"release", "persist", "schedule"}},
      {"a node that stopped answering requeues the job and is not asked itself", JobState::Running,
       job_event::NodeLost{"n2", JobReason::NodeNotResponding}, JobState::Pending, JobReason::NodeNotResponding,
       {"terminate:1", "release", "persist", "schedule"}, nullptr,
       [](const JobRecord& j) { CHECK(reasonText(j.reason, j.reasonDetail) == "Node n2 not responding"); }},
      {"a node set DOWN requeues the job and stops it on every node", JobState::Running,
       job_event::NodeLost{"n1", JobReason::NodeSetDown}, JobState::Pending, JobReason::NodeSetDown,
       {"terminate:2", "release", "persist", "schedule"}},
      {"a requeued job becomes eligible Slurm's 121 s after its requeue by default", JobState::Running,
       job_event::NodeLost{"n1", JobReason::NodeSetDown}, JobState::Pending, JobReason::NodeSetDown,
       {"terminate:2", "release", "persist", "schedule"}, nullptr,
       [](const JobRecord& j) { CHECK(j.eligibleTime == kNow + 121); }},
      {"requeue_delay sets the wait of a requeued job", JobState::Running,
       job_event::NodeLost{"n2", JobReason::NodeNotResponding}, JobState::Pending, JobReason::NodeNotResponding,
       {"terminate:1", "release", "persist", "schedule"}, nullptr,
       [](const JobRecord& j) { CHECK(j.eligibleTime == kNow + 5); }, LifecyclePolicy{.requeueDelaySec = 5}},
      {"a lost node ends a --no-requeue job NODE_FAIL", JobState::Running,
       job_event::NodeLost{"n2", JobReason::NodeNotResponding}, JobState::NodeFail, JobReason::NodeNotResponding,
       {"terminate:1", "release", "schedule", "persist"}, [](JobRecord& j) { j.spec.set_no_requeue(true); },
       [](const JobRecord& j) { CHECK(j.exitCode == 1); }},
      {"without JobRequeue only --requeue jobs go back", JobState::Running,
       job_event::NodeLost{"n2", JobReason::BatchStepLost}, JobState::NodeFail, JobReason::BatchStepLost,
       {"terminate:2", "release", "schedule", "persist"}, nullptr, nullptr, LifecyclePolicy{.jobRequeue = false}},
      {"suspending stops the clock and keeps the resources", JobState::Running, job_event::Suspend{},
       JobState::Suspended, JobReason::None, {"suspend:2", "persist"}, nullptr,
       [](const JobRecord& j) {
         CHECK(j.holdsResources);
         CHECK(j.runSecondsBefore == kNow - 2'000);
         CHECK(j.suspendTime == kNow);
       }},
      {"resuming restarts the clock and counts the suspension", JobState::Suspended, job_event::Resume{},
       JobState::Running, JobReason::None, {"resume:2", "persist"}, nullptr,
       [](const JobRecord& j) {
         CHECK(j.startTime == 2'000);  // StartTime stays the allocation's
         CHECK(j.suspendTime == kNow);  // SuspendTime: the last suspend or resume
         CHECK(j.suspendedSeconds == kNow - 4'000);
         CHECK(j.runSeconds(kNow + 10) == 310);
       }},
      {"gang: a job overlapping the active set is allocated suspended and not launched", JobState::Pending,
       job_event::Placed{placedOnN3().allocation, {"n3"}, true}, JobState::Suspended, JobReason::GangTimeslice,
       {"hold", "persist"}, nullptr,
       [](const JobRecord& j) {
         CHECK(j.holdsResources);
         CHECK(j.launchDeferred);
         CHECK_FALSE(j.launchInFlight);
         CHECK(j.suspendedBy == SuspendedBy::Gang);
         CHECK(j.runSeconds(kNow + 50) == 0);
       }},
      {"gang: the timeslicer's suspend stops the clock and says why", JobState::Running, job_event::GangSuspend{},
       JobState::Suspended, JobReason::GangTimeslice, {"suspend:2", "persist"}, nullptr,
       [](const JobRecord& j) {
         CHECK(j.suspendedBy == SuspendedBy::Gang);
         CHECK(j.runSecondsBefore == kNow - 2'000);
       }},
      {"gang: the timeslicer's resume thaws a job that ran before", JobState::Suspended, job_event::GangResume{},
       JobState::Running, JobReason::None, {"resume:2", "persist"},
       [](JobRecord& j) { j.suspendedBy = SuspendedBy::Gang; },
       [](const JobRecord& j) {
         CHECK(j.suspendedSeconds == kNow - 4'000);
         CHECK(j.runSeconds(kNow + 7) == 307);
       }},
      {"gang: a second suspension adds only the time run since the resume", JobState::Running,
       job_event::GangSuspend{}, JobState::Suspended, JobReason::GangTimeslice, {"suspend:2", "persist"},
       [](JobRecord& j) {
         j.runSecondsBefore = 120;
         j.suspendTime = kNow - 30;  // resumed 30 s ago
       },
       [](const JobRecord& j) {
         CHECK(j.runSecondsBefore == 150);
         CHECK(j.suspendTime == kNow);
         CHECK(j.startTime == 2'000);
       }},
      {"gang: the first resume of a job allocated suspended launches it", JobState::Suspended,
       job_event::GangResume{}, JobState::Running, JobReason::None, {"persist", "launch"},
       [](JobRecord& j) {
         j.suspendedBy = SuspendedBy::Gang;
         j.launchDeferred = true;
       },
       [](const JobRecord& j) {
         CHECK_FALSE(j.launchDeferred);
         CHECK(j.launchInFlight);
       }},
      {"gang: an administrator's suspend of a gang-suspended job keeps it suspended for good", JobState::Suspended,
       job_event::Suspend{}, JobState::Suspended, JobReason::None, {"persist"},
       [](JobRecord& j) { j.suspendedBy = SuspendedBy::Gang; },
       [](const JobRecord& j) { CHECK(j.suspendedBy == SuspendedBy::Admin); }},
      {"gang: an administrator's resume that does not fit hands the job to the timeslicer", JobState::Suspended,
       job_event::Resume{.waitForTurn = true}, JobState::Suspended, JobReason::GangTimeslice, {"persist"},
       [](JobRecord& j) { j.suspendedBy = SuspendedBy::Admin; },
       [](const JobRecord& j) { CHECK(j.suspendedBy == SuspendedBy::Gang); }},
      {"gang: a job allocated suspended and cancelled ends without a launch", JobState::Suspended,
       job_event::Cancelled{}, JobState::Cancelled, JobReason::None, {"terminate:2", "release", "schedule", "persist"},
       [](JobRecord& j) {
         j.suspendedBy = SuspendedBy::Gang;
         j.launchDeferred = true;
       },
       [](const JobRecord& j) {
         CHECK_FALSE(j.launchDeferred);
         CHECK(j.suspendedBy == SuspendedBy::None);
       }},
      {"switch: a job whose network is to be set up is placed CONFIGURING and not launched", JobState::Pending,
       job_event::Placed{placedOnN3().allocation, {"n3"}, false, true}, JobState::Configuring, JobReason::None,
       {"hold", "persist"}, nullptr,
       [](const JobRecord& j) {
         CHECK(j.holdsResources);
         CHECK_FALSE(j.launchInFlight);
         CHECK_FALSE(j.launchDeferred);
       }},
      {"switch: a configured job starts, its time limit counting from now", JobState::Configuring,
       job_event::SwitchConfigured{}, JobState::Running, JobReason::None, {"persist", "launch"}, nullptr,
       [](const JobRecord& j) {
         CHECK(j.startTime == kNow);
         CHECK(j.launchInFlight);
       }},
      {"switch: a configured job the timeslicer suspended meanwhile waits for its turn", JobState::Configuring,
       job_event::SwitchConfigured{}, JobState::Suspended, JobReason::GangTimeslice, {"persist"},
       [](JobRecord& j) { j.launchDeferred = true; },
       [](const JobRecord& j) {
         CHECK(j.suspendedBy == SuspendedBy::Gang);
         CHECK(j.launchDeferred);
       }},
      {"switch: the timeslicer's suspend of a configuring job is only remembered", JobState::Configuring,
       job_event::GangSuspend{}, JobState::Configuring, JobReason::None, {"persist"}, nullptr,
       [](const JobRecord& j) { CHECK(j.launchDeferred); }},
      {"switch: the timeslicer's resume of a configuring job is only remembered", JobState::Configuring,
       job_event::GangResume{}, JobState::Configuring, JobReason::None, {"persist"},
       [](JobRecord& j) {
         j.launchDeferred = true;
         j.suspendedBy = SuspendedBy::Gang;
       },
       [](const JobRecord& j) { CHECK_FALSE(j.launchDeferred); }},
      {"switch: a failed setup requeues a batch job that may be requeued", JobState::Configuring,
       job_event::SwitchSetupFailed{"switch setup failed"}, JobState::Pending, JobReason::SwitchSetup,
       {"release", "persist", "schedule"}, nullptr,
       [](const JobRecord& j) {
         CHECK(j.restartCount == 1);
         CHECK(reasonText(j.reason, j.reasonDetail) == "switch setup failed");
       }},
      {"switch: a failed setup cancels a --no-requeue job, nothing to stop on its nodes", JobState::Configuring,
       job_event::SwitchSetupFailed{"switch setup timed out"}, JobState::Cancelled, JobReason::SwitchSetup,
       {"release", "schedule", "persist"}, [](JobRecord& j) { j.spec.set_no_requeue(true); },
       [](const JobRecord& j) { CHECK(reasonText(j.reason, j.reasonDetail) == "switch setup timed out"); }},
      {"switch: a failed setup cancels a job without a batch script", JobState::Configuring,
       job_event::SwitchSetupFailed{"switch setup failed"}, JobState::Cancelled, JobReason::SwitchSetup,
       {"release", "schedule", "persist"}, [](JobRecord& j) { j.spec.clear_script(); }},
      {"a user hold marks the job JobHeldUser", JobState::Pending, job_event::Hold{false}, JobState::Pending,
       JobReason::JobHeldUser, {"persist"}, nullptr, [](const JobRecord& j) { CHECK(j.held()); }},
      {"an administrator's hold of another's job is JobHeldAdmin", JobState::Pending, job_event::Hold{true},
       JobState::Pending, JobReason::JobHeldAdmin, {"persist"}},
      {"a release makes the job eligible again", JobState::Pending, job_event::Release{}, JobState::Pending,
       JobReason::None, {"persist", "schedule"}, [](JobRecord& j) { j.spec.set_hold(true); },
       [](const JobRecord& j) { CHECK_FALSE(j.held()); }},
      {"dependency: a job still waiting says Dependency and stores nothing when nothing changed",
       JobState::Pending, waitingDependency("afterok:7(unfulfilled)", DependencyVerdict::Wait), JobState::Pending,
       JobReason::Dependency, {}, [](JobRecord& j) { j.dependency = *parseStoredDependency("afterok:7(unfulfilled)"); }},
      {"dependency: an entry met is dropped and stored", JobState::Pending,
       waitingDependency("afterok:7(unfulfilled)", DependencyVerdict::Wait), JobState::Pending, JobReason::Dependency,
       {"persist"},
       [](JobRecord& j) { j.dependency = *parseStoredDependency("afterany:6(unfulfilled),afterok:7(unfulfilled)"); },
       [](const JobRecord& j) { CHECK(formatDependency(j.dependency) == "afterok:7(unfulfilled)"); }},
      {"dependency: once met the job may be placed, reason cleared", JobState::Pending,
       waitingDependency("", DependencyVerdict::Satisfied), JobState::Pending, JobReason::None, {"persist"},
       [](JobRecord& j) {
         j.dependency = *parseStoredDependency("afterok:7(unfulfilled)");
         j.reason = JobReason::Dependency;
       },
       [](const JobRecord& j) { CHECK(j.dependency.empty()); }},
      {"dependency: never met waits as DependencyNeverSatisfied", JobState::Pending,
       waitingDependency("afterok:7(failed)", DependencyVerdict::Never), JobState::Pending,
       JobReason::DependencyNeverSatisfied, {"persist"},
       [](JobRecord& j) { j.dependency = *parseStoredDependency("afterok:7(unfulfilled)"); }},
      {"dependency: never met with kill_invalid_depend cancels the job", JobState::Pending,
       waitingDependency("afterok:7(failed)", DependencyVerdict::Never, true), JobState::Cancelled,
       JobReason::DependencyNeverSatisfied, {"persist"},
       [](JobRecord& j) { j.dependency = *parseStoredDependency("afterok:7(unfulfilled)"); },
       [](const JobRecord& j) { CHECK(j.endTime == kNow); }},
      {"giving back a pending allocation cancels it", JobState::Pending, job_event::AllocationCompleted{0},
       JobState::Cancelled, JobReason::None, {"persist"}},
      {"giving back a running allocation with a failure fails it", JobState::Running,
       job_event::AllocationCompleted{2}, JobState::Failed, JobReason::NonZeroExitCode,
       {"terminate:2", "release", "schedule", "persist"}},
      {"giving back an ended allocation again changes nothing", JobState::Completed,
       job_event::AllocationCompleted{0}, JobState::Completed, JobReason::None, {}},
      {"a running allocation whose client is gone ends as InactiveLimit and its nodes end its steps",
       JobState::Running, job_event::ClientGone{}, JobState::Timeout, JobReason::InactiveLimit,
       {"terminate:2", "release", "schedule", "persist"}, [](JobRecord& j) { j.spec.clear_script(); },
       [](const JobRecord& j) {
         CHECK(reasonText(j.reason, j.reasonDetail) == "InactiveLimit");
         CHECK(j.termSignal == SIGTERM);
         CHECK_FALSE(j.holdsResources);
         CHECK(j.endTime == kNow);
       }},
      {"a suspended allocation whose client is gone ends too and gives its resources back",
       JobState::Suspended, job_event::ClientGone{}, JobState::Timeout, JobReason::InactiveLimit,
       {"terminate:2", "release", "schedule", "persist"}, [](JobRecord& j) { j.spec.clear_script(); },
       [](const JobRecord& j) { CHECK(j.suspendedSeconds == kNow - 4'000); }},
      {"a pending allocation whose client is gone is cancelled without a node", JobState::Pending,
       job_event::ClientGone{}, JobState::Cancelled, JobReason::InactiveLimit, {"persist"},
       [](JobRecord& j) { j.spec.clear_script(); }, [](const JobRecord& j) { CHECK(j.termSignal == 0); }},
      {"open steps end with their job", JobState::Running, job_event::Cancelled{}, JobState::Cancelled,
       JobReason::None, {"terminate:2", "release", "schedule", "persist"},
       [](JobRecord& j) {
         StepRecord step;
         step.id = 0;
         step.nodesLeft = {"n1"};
         j.steps[0] = step;
       },
       [](const JobRecord& j) {
         CHECK(j.steps.at(0).ended());
         CHECK(j.steps.at(0).endTime == kNow);
       }},
  };
  return rows;
}

struct RefusedRow {
  const char* rule;
  JobState from;
  JobEvent event;
};

const std::vector<RefusedRow>& refusedRows() {
  static const std::vector<RefusedRow> rows = {
      {"an ended job cannot be cancelled", JobState::Completed, job_event::Cancelled{}},
      {"only a pending job can be placed", JobState::Running, placedOnN3()},
      {"a held job is not placed", JobState::Pending, placedOnN3()},
      {"only a running job times out", JobState::Suspended, job_event::TimeLimitReached{}},
      {"only a running job is suspended", JobState::Pending, job_event::Suspend{}},
      {"only a suspended job is resumed", JobState::Running, job_event::Resume{}},
      {"gang: the timeslicer never resumes an administrator's suspension", JobState::Suspended, job_event::GangResume{}},
      {"gang: the timeslicer suspends only running jobs", JobState::Pending, job_event::GangSuspend{}},
      {"a running job cannot be held", JobState::Running, job_event::Hold{false}},
      {"a running job cannot be released", JobState::Running, job_event::Release{}},
      {"a pending job is not requeued", JobState::Pending, job_event::Requeue{}},
      {"a completing job is not requeued", JobState::Completing, job_event::Requeue{}},
      {"a pending job has no batch step to end", JobState::Pending, job_event::BatchEnded{.exitCode = 0, .signal = 0, .message = "", .endTime = 0}},
      {"a pending job loses no node", JobState::Pending, job_event::NodeLost{"n1", JobReason::NodeSetDown}},
      {"a batch job has no allocating client to lose", JobState::Running, job_event::ClientGone{}},
      {"an ended job's client going away changes nothing", JobState::Timeout, job_event::ClientGone{}},
      {"switch: only a configuring job is configured", JobState::Cancelled, job_event::SwitchConfigured{}},
      {"switch: a setup that fails after the job ended changes nothing", JobState::Cancelled,
       job_event::SwitchSetupFailed{"switch setup failed"}},
      {"switch: a running job's setup cannot fail any more", JobState::Running,
       job_event::SwitchSetupFailed{"switch setup failed"}},
      {"dependency: only a pending job's dependency is judged", JobState::Running,
       waitingDependency("", DependencyVerdict::Satisfied)},
  };
  return rows;
}

}  // namespace

TEST_CASE("job lifecycle: each rule as a row") {
  for (const auto& row : jobRows()) {
    SECTION(row.rule) {
      JobRecord job = jobIn(row.from);
      if (row.prepare) row.prepare(job);
      auto effects = onJobEvent(job, row.event, kNow, row.policy);
      REQUIRE(effects.ok());
      CHECK(job.state == row.to);
      CHECK(job.reason == row.reason);
      CHECK(kinds(*effects) == row.effects);
      if (row.check) row.check(job);
    }
  }
}

TEST_CASE("scontrol requeue: a running or ended batch job goes back to pending") {
  JobRecord running = jobIn(JobState::Running);
  auto stopped = onJobEvent(running, job_event::Requeue{}, kNow);
  REQUIRE(stopped.ok());
  CHECK(running.state == JobState::Pending);
  CHECK(kinds(*stopped) == std::vector<std::string>{"terminate:2", "release", "persist", "schedule"});
  CHECK(running.restartCount == 1);
  CHECK(running.nodeNames.empty());

  JobRecord failed = jobIn(JobState::Failed);
  failed.exitCode = 3;
  failed.endTime = 4'500;
  auto again = onJobEvent(failed, job_event::Requeue{}, kNow);
  REQUIRE(again.ok());
  CHECK(failed.state == JobState::Pending);
  CHECK(kinds(*again) == std::vector<std::string>{"persist", "schedule"});  // nothing runs, nothing held
  CHECK(failed.exitCode == 0);
  CHECK(failed.endTime == 0);
  CHECK(failed.requeueTime == kNow);

  JobRecord noRequeue = jobIn(JobState::Running);
  noRequeue.spec.set_no_requeue(true);
  auto disabled = onJobEvent(noRequeue, job_event::Requeue{}, kNow);
  REQUIRE_FALSE(disabled.ok());
  CHECK(disabled.error() == "Requested operation is presently disabled");
  CHECK(noRequeue.state == JobState::Running);

  JobRecord allocation = jobIn(JobState::Running);
  allocation.spec.clear_script();
  auto notBatch = onJobEvent(allocation, job_event::Requeue{}, kNow);
  REQUIRE_FALSE(notBatch.ok());
  CHECK(notBatch.error() == "Only batch jobs are accepted or processed");
}

TEST_CASE("job lifecycle: refused events change nothing and say not now") {
  for (const auto& row : refusedRows()) {
    SECTION(row.rule) {
      JobRecord job = jobIn(row.from);
      if (std::string(row.rule) == "a held job is not placed") job.spec.set_hold(true);
      JobRecord before = job;
      auto effects = onJobEvent(job, row.event, kNow);
      REQUIRE_FALSE(effects.ok());
      CHECK(effects.errorCode() == ErrorCode::NotNow);
      CHECK(job.state == before.state);
      CHECK(job.reason == before.reason);
      CHECK(job.holdsResources == before.holdsResources);
      CHECK(job.nodeNames == before.nodeNames);
      CHECK(job.held() == before.held());
    }
  }
}

// ---------------------------------------------------------------- nodes

namespace {

NodeRecord registeredNode() {
  NodeRecord node;
  node.conf.name = "n1";
  node.conf.cpus = 8;
  node.registered = true;
  node.lastHeartbeat = 1'000;
  return node;
}

struct NodeRow {
  const char* rule;
  NodeEvent event;
  std::vector<std::string> effects;
  std::function<void(NodeRecord&)> prepare;
  std::function<void(const NodeRecord&)> check;
};

const std::vector<NodeRow>& nodeRows() {
  using To = node_event::AdminUpdate::To;
  static const std::vector<NodeRow> rows = {
      {"a registration stores the hardware and refreshes the node's devices",
       node_event::Registered{.addr = "10.0.0.7", .port = 7001, .hardware = {}, .problems = {}},
       {"refresh-hw", "persist-node", "schedule"}, [](NodeRecord& n) { n.registered = false; },
       [](const NodeRecord& n) {
         CHECK(n.registered);
         CHECK(n.hardwareKnown);
         CHECK(n.addr == "10.0.0.7");
         CHECK(n.schedulable());
       }},
      {"a registration with problems drains the node with them",
       node_event::Registered{.addr = "", .port = 0, .hardware = {}, .problems = {"gpu count 3 < 4"}},
       {"refresh-hw", "persist-node", "schedule"}, nullptr,
       [](const NodeRecord& n) {
         CHECK(n.drained());
         CHECK_FALSE(n.schedulable());
       }},
      {"a good registration leaves an administrator's drain in place", node_event::Registered{},
       {"refresh-hw", "persist-node", "schedule"}, [](NodeRecord& n) { n.admin = NodeAdminState::Drain; },
       [](const NodeRecord& n) { CHECK(n.admin == NodeAdminState::Drain); }},
      {"a plain heartbeat only notes the time", node_event::HeartbeatSeen{}, {}, nullptr,
       [](const NodeRecord& n) { CHECK(n.lastHeartbeat == kNow); }},
      {"a heartbeat brings a not-responding node back", node_event::HeartbeatSeen{}, {"refresh", "schedule"},
       [](NodeRecord& n) { n.notResponding = true; }, [](const NodeRecord& n) { CHECK(n.schedulable()); }},
      {"a problem reported with a heartbeat drains the node", node_event::HeartbeatSeen{{"epilog failed"}},
       {"refresh", "persist-node"}, nullptr,
       [](const NodeRecord& n) {
         CHECK(n.admin == NodeAdminState::Drain);
         CHECK(n.reason == "epilog failed");
         CHECK(n.reasonUser == "root");
       }},
      {"a missed heartbeat marks the node not responding", node_event::HeartbeatMissed{}, {"refresh"}, nullptr,
       [](const NodeRecord& n) {
         CHECK(n.notResponding);
         CHECK(n.down());
       }},
      {"a node already not responding is not marked again", node_event::HeartbeatMissed{}, {},
       [](NodeRecord& n) { n.notResponding = true; }, nullptr},
      {"an administrator's DOWN takes the node out with the reason",
       node_event::AdminUpdate{.to = To::Down, .reason = "fan", .user = "root"},
       {"refresh", "persist-node", "schedule"}, nullptr,
       [](const NodeRecord& n) {
         CHECK(n.down());
         CHECK(n.reason == "fan");
       }},
      {"RESUME clears the drain and the registration's problems",
       node_event::AdminUpdate{.to = To::Resume, .reason = "", .user = "root"},
       {"refresh", "persist-node", "schedule"},
       [](NodeRecord& n) {
         n.admin = NodeAdminState::Drain;
         n.registrationErrors = {"short"};
       },
       [](const NodeRecord& n) { CHECK(n.schedulable()); }},
      {"an administrator's FAIL takes no new work but leaves the node up, with the reason",
       node_event::AdminUpdate{.to = To::Fail, .reason = "psu flapping", .user = "ops"},
       {"refresh", "persist-node", "schedule"}, nullptr,
       [](const NodeRecord& n) {
         CHECK(n.failing());
         CHECK_FALSE(n.schedulable());
         CHECK_FALSE(n.down());
         CHECK_FALSE(n.drained());
         CHECK(n.reason == "psu flapping");
         CHECK(n.reasonUser == "ops");
       }},
      {"FAIL replaces an administrator's drain", node_event::AdminUpdate{.to = To::Fail, .reason = "b", .user = "root"},
       {"refresh", "persist-node", "schedule"},
       [](NodeRecord& n) {
         n.admin = NodeAdminState::Drain;
         n.reason = "a";
       },
       [](const NodeRecord& n) {
         CHECK(n.admin == NodeAdminState::Fail);
         CHECK(n.reason == "b");
       }},
      {"DRAIN replaces FAIL", node_event::AdminUpdate{.to = To::Drain, .reason = "b", .user = "root"},
       {"refresh", "persist-node", "schedule"}, [](NodeRecord& n) { n.admin = NodeAdminState::Fail; },
       [](const NodeRecord& n) { CHECK(n.admin == NodeAdminState::Drain); }},
      {"RESUME returns a failing node to service",
       node_event::AdminUpdate{.to = To::Resume, .reason = "", .user = "root"},
       {"refresh", "persist-node", "schedule"},
       [](NodeRecord& n) {
         n.admin = NodeAdminState::Fail;
         n.reason = "psu";
       },
       [](const NodeRecord& n) {
         CHECK(n.schedulable());
         CHECK(n.reason.empty());
       }},
      {"UNDRAIN leaves FAIL in place and clears only the registration's drain",
       node_event::AdminUpdate{.to = To::Resume, .reason = "", .user = "root", .keepsFail = true},
       {"refresh", "persist-node", "schedule"},
       [](NodeRecord& n) {
         n.admin = NodeAdminState::Fail;
         n.reason = "psu";
         n.registrationErrors = {"short"};
       },
       [](const NodeRecord& n) {
         CHECK(n.failing());
         CHECK(n.reason == "psu");
         CHECK(n.registrationErrors.empty());
       }},
      {"UNDRAIN of a drained node still returns it",
       node_event::AdminUpdate{.to = To::Resume, .reason = "", .user = "root", .keepsFail = true},
       {"refresh", "persist-node", "schedule"}, [](NodeRecord& n) { n.admin = NodeAdminState::Drain; },
       [](const NodeRecord& n) { CHECK(n.schedulable()); }},
      {"DRAIN of a DOWN node keeps it DOWN and drained",
       node_event::AdminUpdate{.to = To::Drain, .reason = "psu", .user = "root"},
       {"refresh", "persist-node", "schedule"}, [](NodeRecord& n) { n.admin = NodeAdminState::Down; },
       [](const NodeRecord& n) {
         CHECK(n.admin == NodeAdminState::DownDrain);
         CHECK(n.down());
         CHECK(n.drained());
         CHECK(n.reason == "psu");
       }},
      {"DOWN of a drained node keeps the drain",
       node_event::AdminUpdate{.to = To::Down, .reason = "dead", .user = "root"},
       {"refresh", "persist-node", "schedule"}, [](NodeRecord& n) { n.admin = NodeAdminState::Drain; },
       [](const NodeRecord& n) {
         CHECK(n.down());
         CHECK(n.drained());
       }},
      {"RESUME clears both DOWN and DRAIN",
       node_event::AdminUpdate{.to = To::Resume, .reason = "", .user = "root"},
       {"refresh", "persist-node", "schedule"}, [](NodeRecord& n) { n.admin = NodeAdminState::DownDrain; },
       [](const NodeRecord& n) { CHECK(n.schedulable()); }},
      {"UNDRAIN of a DOWN and drained node leaves it DOWN",
       node_event::AdminUpdate{.to = To::Resume, .reason = "", .user = "root", .keepsFail = true},
       {"refresh", "persist-node", "schedule"}, [](NodeRecord& n) { n.admin = NodeAdminState::DownDrain; },
       [](const NodeRecord& n) {
         CHECK(n.down());
         CHECK_FALSE(n.drained());
       }},
      {"FAIL replaces DOWN and DRAIN together",
       node_event::AdminUpdate{.to = To::Fail, .reason = "x", .user = "root"},
       {"refresh", "persist-node", "schedule"}, [](NodeRecord& n) { n.admin = NodeAdminState::DownDrain; },
       [](const NodeRecord& n) { CHECK(n.admin == NodeAdminState::Fail); }},
      {"the controller's drain of a DOWN node keeps it DOWN", node_event::Drain{"batch job launch failed: y"},
       {"refresh", "persist-node"}, [](NodeRecord& n) { n.admin = NodeAdminState::Down; },
       [](const NodeRecord& n) {
         CHECK(n.down());
         CHECK(n.drained());
       }},
      {"the controller drains a node where a launch failed", node_event::Drain{"batch job launch failed: x"},
       {"refresh", "persist-node"}, nullptr, [](const NodeRecord& n) { CHECK(n.drained()); }},
  };
  return rows;
}

}  // namespace

TEST_CASE("node lifecycle: each rule as a row") {
  for (const auto& row : nodeRows()) {
    SECTION(row.rule) {
      NodeRecord node = registeredNode();
      if (row.prepare) row.prepare(node);
      Effects effects = onNodeEvent(node, row.event, kNow);
      CHECK(kinds(effects) == row.effects);
      if (row.check) row.check(node);
    }
  }
}

TEST_CASE("reason texts are what squeue and scontrol show") {
  CHECK(reasonText(JobReason::Resources, "") == "Resources");
  CHECK(reasonText(JobReason::Resources, "Nodes required for job are DOWN") == "Nodes required for job are DOWN");
  CHECK(reasonText(JobReason::BatchStepLost, "gpu7") == "batch step lost when node gpu7 restarted");
  CHECK(reasonText(JobReason::NodeSetDown, "gpu7") == "Node gpu7 set DOWN");
  CHECK(reasonText(JobReason::StoreFailed, "disk full") == "cannot store the job start: disk full");
  CHECK(reasonText(JobReason::GangTimeslice, "") == "GangTimeslice");
}
