// slurm_switch_job_start(): starting the setup, its answers, its timeout,
// late reports, and the end of a run (which decides the teardown).
#include "controller/switch/switch_messages.h"
#include "controller/switch/switch_transition.h"

namespace gantry::interconnect::detail {

namespace {

using Kind = SetupAnswer::Kind;

std::string jobText(const SwitchRecord& record) { return "JobId=" + std::to_string(record.job); }

// The setup failed and left nothing behind (it undid its work itself).
void failedCleanly(Transition& t) {
  if (t.record.endedDuringSetup) {
    t.effects.push_back(ReleaseNodes{t.record.job, t.record.nodes});
    t.record.setup = SetupPhase::None;
  } else {
    t.effects.push_back(JobSetupFailed{t.record.job, kSetupFailedReason});
    t.record.setup = SetupPhase::Failed;
  }
  t.record.endedDuringSetup = false;
}

// The setup failed and may have left something behind: torn down with nil
// jobinfo, now if the run is already over, else when it ends.
void abandoned(Transition& t, const char* reason) {
  if (t.record.endedDuringSetup) {
    t.record.setup = SetupPhase::None;
    t.record.endedDuringSetup = false;
    beginTeardown(t, t.record.nodes, std::nullopt, /*holds=*/true, /*alreadyHeld=*/true);
  } else {
    t.effects.push_back(JobSetupFailed{t.record.job, reason});
    t.record.setup = SetupPhase::Abandoned;
  }
}

void configured(Transition& t, std::string table) {
  t.info(messages::setupDone(t.record.job));
  if (t.record.endedDuringSetup) {
    t.record.setup = SetupPhase::None;
    t.record.endedDuringSetup = false;
    beginTeardown(t, t.record.nodes, std::move(table), /*holds=*/true, /*alreadyHeld=*/true);
    return;
  }
  t.record.setup = SetupPhase::Configured;
  t.record.stepinfo = table;
  t.effects.push_back(JobConfigured{t.record.job, std::move(table)});
}

void declined(Transition& t) {
  t.info(messages::setupDeclined(t.record.job));
  if (t.record.endedDuringSetup) {
    t.effects.push_back(ReleaseNodes{t.record.job, t.record.nodes});
    t.record.setup = SetupPhase::None;
    t.record.endedDuringSetup = false;
    return;
  }
  t.record.setup = SetupPhase::Declined;
  t.effects.push_back(JobConfigured{t.record.job, std::nullopt});
}

void settle(Transition& t, const SetupAnswer& answer) {
  const uint64_t job = t.record.job;
  switch (answer.kind) {
    case Kind::Dictionary: return configured(t, answer.text);
    case Kind::Declined: return declined(t);
    case Kind::Failed:
      t.error(messages::setupFailed(job, answer.detail));
      return failedCleanly(t);
    case Kind::Refused:
      t.error(messages::setupRefused(job, answer.detail));
      return abandoned(t, kSetupFailedReason);
    case Kind::NoResult:
      t.error(messages::setupNoResult(job));
      return abandoned(t, kSetupFailedReason);
    case Kind::Signalled:
      t.error(messages::setupSignalled(job, answer.detail));
      return abandoned(t, kSetupTimedOutReason);
  }
}

// A setup that reports after it was abandoned: what it did is torn down
// once more if it may have left something (a dictionary, refused or not, or
// no result); the outcome is only logged and never holds or drains nodes.
void lateReport(Transition& t, const SwitchCall& call, const SetupAnswer& answer) {
  const uint64_t job = t.record.job;
  std::optional<std::string> jobinfo;
  switch (answer.kind) {
    case Kind::Dictionary:
      t.info(messages::lateDictionary(job));
      jobinfo = answer.text;
      break;
    case Kind::Refused:
    case Kind::NoResult:
      t.info(messages::lateNoResult(job));
      break;
    case Kind::Signalled:  // the kill that abandoned it
      t.erase(call.id);
      return;
    case Kind::Declined:
    case Kind::Failed:
      t.info(messages::lateNothingToUndo(job));
      t.erase(call.id);
      return;
  }
  SwitchCall teardown{.kind = CallKind::LateTeardown, .nodes = call.nodes, .jobinfo = std::move(jobinfo),
                      .run = call.run};
  const CallId setupId = call.id;
  t.erase(setupId);
  t.start(std::move(teardown), setupId);
}

}  // namespace

Result<SwitchEffects> startSetup(Transition& t, const switch_event::StartSetup& event) {
  if (t.record.setup != SetupPhase::None) {
    return Error(ErrorCode::NotNow, "cannot start the switch setup of " + jobText(t.record) +
                                        ": the setup of its current run is " + toString(t.record.setup) +
                                        " and the run has not ended");
  }
  if (event.nodes.empty()) {
    return Error(ErrorCode::Invalid, "cannot start the switch setup of " + jobText(t.record) + ": no nodes given");
  }
  t.record.setup = SetupPhase::Running;
  t.record.nodes = event.nodes;
  t.record.stepinfo.reset();
  t.record.endedDuringSetup = false;
  t.start(SwitchCall{.kind = CallKind::Setup, .nodes = event.nodes});
  return std::move(t.effects);
}

Result<SwitchEffects> setupReported(Transition& t, const switch_event::SetupReported& event) {
  SwitchCall* call = t.find(event.call);
  if (call == nullptr) {
    return Error(ErrorCode::NotFound, jobText(t.record) + " has no switch call " + std::to_string(event.call) +
                                          " that may report");
  }
  if (call->kind != CallKind::Setup) {
    return Error(ErrorCode::Invalid, "switch call " + std::to_string(event.call) + " of " + jobText(t.record) +
                                         " is a " + toString(call->kind) + ", not a setup");
  }
  switch (call->state) {
    case CallState::Killed:  // the controller stopped taking its report
      return std::move(t.effects);
    case CallState::Abandoned: {
      const SwitchCall late = *call;
      lateReport(t, late, event.answer);
      return std::move(t.effects);
    }
    case CallState::Running:
    case CallState::WaitingForRetry:
      break;
  }
  t.erase(event.call);
  settle(t, event.answer);
  return std::move(t.effects);
}

void setupTimedOut(Transition& t, CallId id) {
  SwitchCall* call = t.find(id);
  if (call->state == CallState::Running) {
    t.effects.push_back(KillCall{t.record.job, id});
    call->state = CallState::Abandoned;  // it may still report: a late setup
    call->deadlineMs = 0;
  } else {
    t.erase(id);  // killed when the controller stopped; its report is dropped
  }
  t.error(messages::setupTimedOut(t.record.job, t.settings.timeoutMs));
  abandoned(t, kSetupTimedOutReason);
}

Result<SwitchEffects> jobEnded(Transition& t, const switch_event::JobEnded& event) {
  std::vector<std::string> nodes = event.nodes.empty() ? t.record.nodes : event.nodes;
  switch (t.record.setup) {
    case SetupPhase::None:
      break;  // the run was never set up: nothing to undo
    case SetupPhase::Running:
      if (t.record.endedDuringSetup) break;  // told twice
      t.record.endedDuringSetup = true;
      t.record.nodes = nodes;
      t.effects.push_back(HoldNodes{t.record.job, nodes});
      t.info(messages::endedDuringSetup(t.record.job, nodes));
      break;
    case SetupPhase::Configured: {
      std::optional<std::string> jobinfo = std::move(t.record.stepinfo);
      t.record.stepinfo.reset();
      t.record.setup = SetupPhase::None;
      beginTeardown(t, nodes, std::move(jobinfo), t.settings.blockJobComplete);
      break;
    }
    case SetupPhase::Abandoned:
      t.record.setup = SetupPhase::None;
      beginTeardown(t, nodes, std::nullopt, t.settings.blockJobComplete);
      break;
    case SetupPhase::Declined:
    case SetupPhase::Failed:
      t.record.setup = SetupPhase::None;
      break;
  }
  return std::move(t.effects);
}

}  // namespace gantry::interconnect::detail
