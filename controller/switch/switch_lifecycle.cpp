#include "controller/switch/switch_lifecycle.h"

#include <algorithm>

#include "controller/switch/switch_messages.h"
#include "controller/switch/switch_transition.h"

namespace gantry::interconnect {

namespace detail {

SwitchCall* Transition::find(CallId id) {
  auto it = std::find_if(record.calls.begin(), record.calls.end(),
                         [id](const SwitchCall& call) { return call.id == id; });
  return it == record.calls.end() ? nullptr : &*it;
}

void Transition::erase(CallId id) {
  std::erase_if(record.calls, [id](const SwitchCall& call) { return call.id == id; });
}

CallId Transition::start(SwitchCall call, std::optional<CallId> lateSetup) {
  call.id = record.nextCall++;
  call.state = CallState::Running;
  if (call.run < 0) call.run = record.run;
  call.deadlineMs = now + settings.timeoutMs;
  const CallId id = call.id;
  switch (call.kind) {
    case CallKind::Setup:
      info(messages::jobStartCalled(record.job));
      effects.push_back(RunSetup{record.job, id});
      break;
    case CallKind::Teardown:
      info(messages::jobCompleteCalled(record.job));
      effects.push_back(RunTeardown{record.job, id, call.jobinfo, std::nullopt});
      break;
    case CallKind::LateTeardown:
      info(messages::lateJobCompleteCalled(record.job));
      effects.push_back(RunTeardown{record.job, id, call.jobinfo, lateSetup});
      break;
  }
  effects.push_back(ArmTimeout{record.job, id, call.deadlineMs});
  record.calls.push_back(std::move(call));
  return id;
}

namespace {

// A call past its deadline: the setup is abandoned, a teardown fails, a
// late teardown is only logged. Running calls are killed; Killed ones
// already were (a reconfigure that failed).
void timeOut(Transition& t, CallId id) {
  SwitchCall* call = t.find(id);
  if (call == nullptr || t.now < call->deadlineMs) return;
  if (call->state != CallState::Running && call->state != CallState::Killed) return;
  if (call->kind == CallKind::Setup) return setupTimedOut(t, id);
  teardownTimedOut(t, id);
}

Result<SwitchEffects> callTimedOut(Transition& t, const switch_event::CallTimedOut& event) {
  timeOut(t, event.call);
  return std::move(t.effects);
}

Result<SwitchEffects> periodicCheck(Transition& t) {
  std::vector<CallId> due;
  for (const SwitchCall& call : t.record.calls) {
    const bool waiting = call.state == CallState::Running || call.state == CallState::Killed;
    if (waiting && call.deadlineMs <= t.now) due.push_back(call.id);
  }
  for (CallId id : due) timeOut(t, id);
  retryWaitingTeardowns(t);
  return std::move(t.effects);
}

Result<SwitchEffects> apply(Transition& t, const SwitchEvent& event) {
  using namespace switch_event;
  if (const auto* e = std::get_if<StartSetup>(&event)) return startSetup(t, *e);
  if (const auto* e = std::get_if<SetupReported>(&event)) return setupReported(t, *e);
  if (const auto* e = std::get_if<TeardownReported>(&event)) return teardownReported(t, *e);
  if (const auto* e = std::get_if<JobEnded>(&event)) return jobEnded(t, *e);
  if (const auto* e = std::get_if<CallTimedOut>(&event)) return callTimedOut(t, *e);
  if (std::holds_alternative<PeriodicCheck>(event)) return periodicCheck(t);
  if (std::holds_alternative<Stopping>(event)) {
    stopping(t);
    return std::move(t.effects);
  }
  recovered(t, std::get<Recovered>(event));
  return std::move(t.effects);
}

}  // namespace

}  // namespace detail

int64_t periodicCheckIntervalMs(const SwitchSettings& settings) { return settings.timeoutMs; }

Result<SwitchEffects> onSwitchEvent(SwitchRecord& record, const SwitchEvent& event, int64_t nowMs,
                                    const SwitchSettings& settings) {
  // Work on a copy so that a refused event leaves the record as it was.
  SwitchRecord next = record;
  detail::Transition t{next, settings, nowMs, {}};
  Result<SwitchEffects> effects = detail::apply(t, event);
  if (!effects) return effects;
  if (next != record) {
    effects->insert(effects->begin(), PersistSwitchState{record.job});
    record = std::move(next);
  }
  return effects;
}

}  // namespace gantry::interconnect
