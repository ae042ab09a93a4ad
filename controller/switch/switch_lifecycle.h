// The controller side of switch/lua as a pure state machine: a job's
// SwitchRecord, an event, the time and the settings in; the record changed
// and the effects that must follow out. No I/O, no clock, no Lua, no
// threads: the core runs the calls, arms the timers and stores the record,
// and tests drive every rule in simulated time.
//
// Time is in milliseconds on one monotonic clock of the core's choosing;
// `now` of each event and `atMs` of each ArmTimeout use it. After a restart
// the clock may start elsewhere: Recovered arms every timeout anew.
//
// An event the record's state does not allow is refused with the record
// unchanged and an Error: NotNow for a state that does not allow it,
// NotFound for a report of a call the record does not know (a report that
// raced with a restart; the core drops it), Invalid for malformed input.
//
// Not thread-safe; the core owns each record and applies events on its strand.
#pragma once

#include <cstdint>

#include "common/util/result.h"
#include "controller/switch/switch_effects.h"
#include "controller/switch/switch_events.h"
#include "controller/switch/switch_record.h"
#include "controller/switch/switch_settings.h"

namespace gantry::interconnect {

// The texts the core shows for the job and node consequences.
inline constexpr const char* kSetupFailedReason = "switch setup failed";
inline constexpr const char* kSetupTimedOutReason = "switch setup timed out";
inline constexpr const char* kTeardownDrainReason = "Switch job complete failed";

// How often the core sends PeriodicCheck to each record with outstanding
// calls: once every switch_timeout. A teardown that answered EAGAIN is run
// again at the next check, so its retries are spread over about
// switch_retries timeouts rather than spent at once.
int64_t periodicCheckIntervalMs(const SwitchSettings& settings);

// Applies the event to the job's record. On an Error the record is
// unchanged and no effect follows.
Result<SwitchEffects> onSwitchEvent(SwitchRecord& record, const SwitchEvent& event, int64_t nowMs,
                                    const SwitchSettings& settings);

}  // namespace gantry::interconnect
