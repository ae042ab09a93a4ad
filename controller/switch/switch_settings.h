// What the switch/lua lifecycle decides with: the SlurmctldParameters of
// gantry.conf and the two answers switch.lua gave when the controller loaded
// it (at start and at each reconfigure). The core builds this once per
// (re)configuration and passes it with every event, so a reconfigure applies
// to every decision that follows it.
#pragma once

#include <cstdint>

namespace gantry::interconnect {

struct SwitchSettings {
  // switch_timeout, in milliseconds (gantry.conf gives seconds): how long
  // the controller waits for a call to report before it kills the call.
  int64_t timeoutMs = 60'000;
  // switch_retries: how many more times a teardown that answered EAGAIN is
  // run, at the periodic checks, before it counts as failed.
  int retries = 3;
  // switch_drain_on_failure: whether a failed teardown drains the job's nodes.
  bool drainOnFailure = true;
  // slurm_switch_block_job_complete(): whether a job's nodes stay held
  // (COMPLETING) until its teardown reports. False when undefined or raising.
  bool blockJobComplete = false;
  // slurm_switch_setup_special_steps(): whether step_init also runs for the
  // batch and interactive steps. The lifecycle does not use it; it travels
  // here so both answers of one load stay together for the step launch.
  bool setupSpecialSteps = false;
};

}  // namespace gantry::interconnect
