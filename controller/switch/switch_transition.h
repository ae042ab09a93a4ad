// Internal to gantry_switch: the working state of one transition and the
// steps the event handlers share. Not for the core; it uses
// switch_lifecycle.h.
#pragma once

#include <optional>
#include <string>

#include "common/util/result.h"
#include "controller/switch/switch_lifecycle.h"

namespace gantry::interconnect::detail {

struct Transition {
  SwitchRecord& record;
  const SwitchSettings& settings;
  int64_t now = 0;
  SwitchEffects effects;

  void info(std::string text) { effects.push_back(LogLine{LogLevel::Info, std::move(text)}); }
  void error(std::string text) { effects.push_back(LogLine{LogLevel::Error, std::move(text)}); }

  SwitchCall* find(CallId id);
  void erase(CallId id);
  // Starts `call` (its id and deadline are filled in here): records it,
  // logs the call, asks for its process and arms its timeout.
  CallId start(SwitchCall call, std::optional<CallId> lateSetup = std::nullopt);
};

// switch_setup.cpp
Result<SwitchEffects> startSetup(Transition& t, const switch_event::StartSetup& event);
Result<SwitchEffects> setupReported(Transition& t, const switch_event::SetupReported& event);
Result<SwitchEffects> jobEnded(Transition& t, const switch_event::JobEnded& event);
// The setup call is past its deadline (or was killed and its deadline came).
void setupTimedOut(Transition& t, CallId id);

// switch_teardown.cpp
// Starts the teardown of the run on `nodes`; `alreadyHeld` when the nodes
// are held from the setup already (no second HoldNodes).
void beginTeardown(Transition& t, const std::vector<std::string>& nodes, std::optional<std::string> jobinfo,
                   bool holds, bool alreadyHeld = false);
Result<SwitchEffects> teardownReported(Transition& t, const switch_event::TeardownReported& event);
void teardownTimedOut(Transition& t, CallId id);
// Runs again every teardown waiting after EAGAIN (the periodic check).
void retryWaitingTeardowns(Transition& t);
// Logs `why`, drains the nodes (unless switch_drain_on_failure=no), ends
// the hold and forgets the call.
void failTeardown(Transition& t, CallId id, std::string why);

// switch_restart.cpp
void stopping(Transition& t);
void recovered(Transition& t, const switch_event::Recovered& event);

}  // namespace gantry::interconnect::detail
