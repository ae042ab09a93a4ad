// What a runner's report of a job_start or job_complete call means to the
// lifecycle: the SetupAnswer / TeardownAnswer (controller/switch) that the
// core hands to onSwitchEvent. Pure; one rule per case, in
// docs/switch-lua.md ("How calls run").
#pragma once

#include "controller/switch/runner/call_report.h"
#include "controller/switch/switch_events.h"

namespace gantry::interconnect {

// slurm_switch_job_start(). An undefined function declines the job (the
// script does nothing there); a call that never started fails the setup
// (nothing ran, so there is nothing to tear down); the runner's own
// timeout and kill() count as a death on a signal, which the lifecycle
// treats as timed out.
SetupAnswer setupAnswerOf(const CallReport& report);

// slurm_switch_job_complete(). An undefined function is success; no result
// (os.exit) and a call that never started fail the teardown; the runner's
// timeout and kill() count as a death on a signal (treated as timed out).
TeardownAnswer teardownAnswerOf(const CallReport& report);

}  // namespace gantry::interconnect
