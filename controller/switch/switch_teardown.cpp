// slurm_switch_job_complete(): the teardown at the end of a run, its
// answers, EAGAIN retries at the periodic check, timeouts and drains; and
// the late teardown of an abandoned setup, whose outcome is only logged.
#include "controller/switch/switch_messages.h"
#include "controller/switch/switch_transition.h"

namespace gantry::interconnect::detail {

namespace {

using Kind = TeardownAnswer::Kind;

std::string jobText(const SwitchRecord& record) { return "JobId=" + std::to_string(record.job); }

// The teardown is done: its nodes go back to service.
void finish(Transition& t, CallId id) {
  SwitchCall* call = t.find(id);
  if (call->holdsNodes) t.effects.push_back(ReleaseNodes{t.record.job, call->nodes});
  t.erase(id);
}

void onAgain(Transition& t, SwitchCall& call) {
  const uint64_t job = t.record.job;
  // A retry needs the nodes held; otherwise EAGAIN is a failure.
  if (!call.holdsNodes) return failTeardown(t, call.id, messages::teardownAgainUnheld(job));
  if (call.retriesDone >= t.settings.retries) {
    return failTeardown(t, call.id, messages::teardownExhausted(job, call.retriesDone));
  }
  call.state = CallState::WaitingForRetry;
  call.deadlineMs = 0;
  t.info(messages::teardownWillRetry(job, call.retriesDone + 1, t.settings.retries));
}

void settle(Transition& t, SwitchCall& call, const TeardownAnswer& answer) {
  const uint64_t job = t.record.job;
  switch (answer.kind) {
    case Kind::Success:
      t.info(messages::teardownDone(job));
      return finish(t, call.id);
    case Kind::NotANumber:
      t.info(messages::teardownNotANumber(job, answer.detail));
      return finish(t, call.id);
    case Kind::OtherPositive:
      t.error(messages::teardownOtherPositive(job, answer.rc));
      return finish(t, call.id);
    case Kind::Again:
      return onAgain(t, call);
    case Kind::Failed:
      return failTeardown(t, call.id, messages::teardownFailed(job, answer.detail));
    case Kind::Signalled:
      return failTeardown(t, call.id, messages::teardownSignalled(job, t.settings.timeoutMs, answer.detail));
  }
}

std::string lateResult(const TeardownAnswer& answer) {
  switch (answer.kind) {
    case Kind::Success: return "returned SUCCESS";
    case Kind::NotANumber: return "returned " + answer.detail + ", taken as success";
    case Kind::OtherPositive: return "returned " + std::to_string(answer.rc);
    case Kind::Again: return "returned EAGAIN, which is not retried for a late setup";
    case Kind::Failed: return "failed: " + answer.detail;
    case Kind::Signalled: return "died on " + answer.detail;
  }
  return "reported";
}

void settleLate(Transition& t, CallId id, const TeardownAnswer& answer) {
  const bool ok = answer.kind == Kind::Success || answer.kind == Kind::NotANumber;
  std::string line = messages::lateTeardownResult(t.record.job, lateResult(answer));
  ok ? t.info(std::move(line)) : t.error(std::move(line));
  t.erase(id);
}

}  // namespace

void beginTeardown(Transition& t, const std::vector<std::string>& nodes, std::optional<std::string> jobinfo,
                   bool holds, bool alreadyHeld) {
  if (holds && !alreadyHeld) t.effects.push_back(HoldNodes{t.record.job, nodes});
  t.start(SwitchCall{.kind = CallKind::Teardown, .nodes = nodes, .holdsNodes = holds, .jobinfo = std::move(jobinfo)});
}

Result<SwitchEffects> teardownReported(Transition& t, const switch_event::TeardownReported& event) {
  SwitchCall* call = t.find(event.call);
  if (call == nullptr) {
    return Error(ErrorCode::NotFound, jobText(t.record) + " has no switch call " + std::to_string(event.call) +
                                          " that may report");
  }
  if (call->kind == CallKind::Setup) {
    return Error(ErrorCode::Invalid, "switch call " + std::to_string(event.call) + " of " + jobText(t.record) +
                                         " is a setup, not a teardown");
  }
  if (call->state == CallState::Killed) return std::move(t.effects);  // dropped: the controller stopped
  if (call->state != CallState::Running) {
    return Error(ErrorCode::NotNow, "switch call " + std::to_string(event.call) + " of " + jobText(t.record) +
                                        " is " + toString(call->state) + ", not running");
  }
  if (call->kind == CallKind::LateTeardown) {
    settleLate(t, event.call, event.answer);
  } else {
    settle(t, *call, event.answer);
  }
  return std::move(t.effects);
}

void teardownTimedOut(Transition& t, CallId id) {
  SwitchCall* call = t.find(id);
  if (call->state == CallState::Running) t.effects.push_back(KillCall{t.record.job, id});
  if (call->kind == CallKind::LateTeardown) {
    t.error(messages::lateTeardownResult(t.record.job,
                                         "did not report within " + messages::duration(t.settings.timeoutMs)));
    t.erase(id);
    return;
  }
  // Its report is ignored when it comes: the call is forgotten here.
  failTeardown(t, id, messages::teardownTimedOut(t.record.job, t.settings.timeoutMs));
}

void retryWaitingTeardowns(Transition& t) {
  std::vector<SwitchCall> waiting;
  for (const SwitchCall& call : t.record.calls) {
    if (call.state == CallState::WaitingForRetry) waiting.push_back(call);
  }
  for (SwitchCall& call : waiting) {
    t.erase(call.id);
    call.retriesDone += 1;
    t.start(std::move(call));
  }
}

void failTeardown(Transition& t, CallId id, std::string why) {
  SwitchCall* call = t.find(id);
  const uint64_t job = t.record.job;
  t.error(std::move(why));
  if (t.settings.drainOnFailure) {
    t.effects.push_back(DrainNodes{job, call->nodes, kTeardownDrainReason});
    t.error(messages::drained(job, call->nodes));
  } else {
    t.info(messages::notDrained(job, call->nodes));
  }
  if (call->holdsNodes) t.effects.push_back(ReleaseNodes{job, call->nodes});
  t.erase(id);
}

}  // namespace gantry::interconnect::detail
