// Stopping and recovering: what a shutdown, restart or reconfigure of the
// controller does to the calls of a job. The controller cannot learn what a
// killed call did, so what it saved decides: an outstanding setup and a
// teardown that held its nodes run again from the start; an unheld teardown
// is forgotten (its nodes are back in service already).
#include <algorithm>

#include "controller/switch/switch_messages.h"
#include "controller/switch/switch_transition.h"

namespace gantry::interconnect::detail {

namespace {

bool outstanding(const SwitchCall& call) {
  return call.state == CallState::Running || call.state == CallState::Killed ||
         call.state == CallState::WaitingForRetry;
}

void recoverSetup(Transition& t, const SwitchCall& setup, bool callsCanRun) {
  const uint64_t job = t.record.job;
  t.erase(setup.id);
  if (t.record.endedDuringSetup) {
    // The run ended while the setup was out: its nodes are held, and it is
    // torn down as an abandoned setup (by recoverTeardowns, as held).
    t.record.setup = SetupPhase::None;
    t.record.endedDuringSetup = false;
    t.record.calls.push_back(SwitchCall{.id = t.record.nextCall++,
                                        .kind = CallKind::Teardown,
                                        .state = CallState::Killed,
                                        .nodes = t.record.nodes,
                                        .holdsNodes = true,
                                        .run = setup.run});
    return;
  }
  if (!callsCanRun) {
    t.error(messages::setupCannotRunAgain(job));
    t.record.setup = SetupPhase::Failed;
    t.effects.push_back(JobSetupFailed{job, kSetupFailedReason});
    return;
  }
  t.info(messages::setupRunsAgain(job));
  t.start(SwitchCall{.kind = CallKind::Setup, .nodes = setup.nodes, .run = setup.run});
}

void recoverTeardown(Transition& t, SwitchCall teardown, bool callsCanRun) {
  const uint64_t job = t.record.job;
  if (!callsCanRun) {
    // Left in the record only long enough for failTeardown to read it.
    return failTeardown(t, teardown.id, messages::unresolvedCleanup(job, teardown.nodes));
  }
  t.erase(teardown.id);
  t.info(messages::teardownRunsAgain(job, teardown.nodes));
  t.effects.push_back(HoldNodes{job, teardown.nodes});
  teardown.retriesDone = 0;  // a new switch_retries
  t.start(std::move(teardown));
}

}  // namespace

void stopping(Transition& t) {
  for (SwitchCall& call : t.record.calls) {
    if (call.state != CallState::Running) continue;
    t.effects.push_back(KillCall{t.record.job, call.id});
    t.info(messages::callKilled(t.record.job, toString(call.kind)));
    call.state = CallState::Killed;
  }
}

void recovered(Transition& t, const switch_event::Recovered& event) {
  const uint64_t job = t.record.job;
  // What belonged to the old controller's processes: abandoned setups, late
  // teardowns and unheld teardowns are not run again.
  std::vector<SwitchCall> kept;
  for (const SwitchCall& call : t.record.calls) {
    if (!outstanding(call) || call.kind == CallKind::LateTeardown) continue;
    if (call.kind == CallKind::Teardown && !call.holdsNodes) {
      t.info(messages::unheldTeardownForgotten(job));
      continue;
    }
    kept.push_back(call);
  }
  // A record that says the setup is outstanding but lost its call would
  // leave the job CONFIGURING for ever: run the setup again all the same.
  const bool setupKept = std::any_of(kept.begin(), kept.end(),
                                     [](const SwitchCall& call) { return call.kind == CallKind::Setup; });
  if (t.record.setup == SetupPhase::Running && !setupKept) {
    kept.push_back(SwitchCall{.kind = CallKind::Setup, .state = CallState::Killed, .nodes = t.record.nodes,
                              .run = t.record.run});
  }
  t.record.calls = kept;

  for (const SwitchCall& call : kept) {
    if (call.kind == CallKind::Setup) recoverSetup(t, call, event.callsCanRun);
  }
  std::vector<SwitchCall> teardowns;
  for (const SwitchCall& call : t.record.calls) {
    if (call.kind == CallKind::Teardown) teardowns.push_back(call);
  }
  for (SwitchCall& teardown : teardowns) recoverTeardown(t, std::move(teardown), event.callsCanRun);
}

}  // namespace gantry::interconnect::detail
