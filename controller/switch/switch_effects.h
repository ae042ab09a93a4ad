// What the core must carry out after a switch/lua transition, in order.
// Plain values: no wire types, no callbacks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "controller/switch/switch_record.h"

namespace gantry::interconnect {

// Store the job's SwitchRecord. The first effect of every transition that
// changes the record, so a restart replays from what was decided.
struct PersistSwitchState { uint64_t job = 0; };
// Run slurm_switch_job_start(job) in a process of its own, with the job's
// description as it is now (keep that snapshot while the call may report:
// a late teardown is run with it).
struct RunSetup { uint64_t job = 0; CallId call = 0; };
// Run slurm_switch_job_complete(job, jobinfo); nullopt jobinfo is Lua nil.
// `lateSetup` names the abandoned setup call this teardown is for; the
// job description is then the one that setup was given.
struct RunTeardown {
  uint64_t job = 0;
  CallId call = 0;
  std::optional<std::string> jobinfo;
  std::optional<CallId> lateSetup;
};
// Kill the call's process group; its report, if any still comes, is stale.
struct KillCall { uint64_t job = 0; CallId call = 0; };
// Send CallTimedOut{call} for this job at `atMs` (milliseconds, the clock of
// the events' `now`).
struct ArmTimeout { uint64_t job = 0; CallId call = 0; int64_t atMs = 0; };
// The setup reported success: the job leaves CONFIGURING and starts.
// `stepinfo` is the dictionary for every step; nullopt means the plugin
// declined the job (no step functions, no teardown).
struct JobConfigured { uint64_t job = 0; std::optional<std::string> stepinfo; };
// The setup failed. The core requeues the job when it is a batch job that
// may be requeued (JobRequeue, --requeue/--no-requeue) and otherwise cancels
// it with `reason` ("switch setup failed" or "switch setup timed out"); the
// nodes are not drained. Either way it then sends JobEnded for the run.
struct JobSetupFailed { uint64_t job = 0; std::string reason; };
// Keep these nodes COMPLETING (given to no job) after the job releases them,
// until ReleaseNodes names them. Sent again after a restart for every hold
// that is kept, so the core may rebuild its holds from these effects alone.
struct HoldNodes { uint64_t job = 0; std::vector<std::string> nodes; };
// End the hold: the nodes go back to service (unless drained).
struct ReleaseNodes { uint64_t job = 0; std::vector<std::string> nodes; };
// Drain the nodes with this reason (a failed teardown). Comes before the
// ReleaseNodes of the same nodes, so they never return to service between.
struct DrainNodes { uint64_t job = 0; std::vector<std::string> nodes; std::string reason; };
// A line for the controller's log.
enum class LogLevel { Info, Error };
struct LogLine { LogLevel level = LogLevel::Info; std::string text; };

using SwitchEffect = std::variant<PersistSwitchState, RunSetup, RunTeardown, KillCall, ArmTimeout,
                                  JobConfigured, JobSetupFailed, HoldNodes, ReleaseNodes, DrainNodes,
                                  LogLine>;
using SwitchEffects = std::vector<SwitchEffect>;

}  // namespace gantry::interconnect
