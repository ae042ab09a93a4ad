// What happens to a job's switch state: the core turns each of these into an
// event for the lifecycle (switch_lifecycle.h).
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "controller/switch/switch_record.h"

namespace gantry::interconnect {

// How a slurm_switch_job_start() call ended, as the runner and the Lua side
// read it.
struct SetupAnswer {
  enum class Kind {
    Dictionary,  // SUCCESS with a table the controller accepted: `text`
    Declined,    // SUCCESS with nil
    Failed,      // another number, a non-number or a Lua error: `detail` says which
    Refused,     // SUCCESS with a table the controller refused: `detail` says why
                 // (from the Lua side, e.g. "table too large")
    NoResult,    // the process exited without a result (os.exit(), a stopping function)
    Signalled,   // the process died on a signal: `detail` names it
  };
  Kind kind = Kind::Failed;
  std::string text;    // Dictionary: the encoded table
  std::string detail;  // for the log

  static SetupAnswer dictionary(std::string table) { return {Kind::Dictionary, std::move(table), ""}; }
  static SetupAnswer declined() { return {Kind::Declined, "", ""}; }
  static SetupAnswer failed(std::string why) { return {Kind::Failed, "", std::move(why)}; }
  static SetupAnswer refused(std::string why) { return {Kind::Refused, "", std::move(why)}; }
  static SetupAnswer noResult() { return {Kind::NoResult, "", ""}; }
  static SetupAnswer signalled(std::string signal) { return {Kind::Signalled, "", std::move(signal)}; }
};

// How a slurm_switch_job_complete() call ended.
struct TeardownAnswer {
  enum class Kind {
    Success,        // slurm.SUCCESS
    NotANumber,     // a non-number: logged, taken as success (`detail` shows it)
    OtherPositive,  // a positive number other than EAGAIN: logged as an error, not enforced
    Again,          // slurm.EAGAIN
    Failed,         // a negative number, a Lua error or no result: `detail` says which
    Signalled,      // the process died on a signal (`detail` names it): treated as timed out
  };
  Kind kind = Kind::Failed;
  int rc = 0;          // OtherPositive
  std::string detail;  // for the log

  static TeardownAnswer success() { return {Kind::Success, 0, ""}; }
  static TeardownAnswer notANumber(std::string shown) { return {Kind::NotANumber, 0, std::move(shown)}; }
  static TeardownAnswer otherPositive(int rc) { return {Kind::OtherPositive, rc, ""}; }
  static TeardownAnswer again() { return {Kind::Again, 0, ""}; }
  static TeardownAnswer failed(std::string why) { return {Kind::Failed, 0, std::move(why)}; }
  static TeardownAnswer signalled(std::string signal) { return {Kind::Signalled, 0, std::move(signal)}; }
};

namespace switch_event {
// Selection placed a job that requests a network (never for --test-only).
// Starts job_start; the job stays CONFIGURING until JobConfigured or
// JobSetupFailed. Refused (NotNow) while the run's setup is not over.
struct StartSetup { std::vector<std::string> nodes; };
// The runner's one report of a setup call.
struct SetupReported { CallId call = 0; SetupAnswer answer; };
// The runner's one report of a teardown (or late teardown) call.
struct TeardownReported { CallId call = 0; TeardownAnswer answer; };
// The run is over and its nodes start to be released, however it ended
// (completed, cancelled, failed, requeued, after JobSetupFailed too). Sent
// once per run, before the nodes are handed back, with the nodes the job
// has at that moment (empty: those it was set up on).
struct JobEnded { std::vector<std::string> nodes; };
// An ArmTimeout came due. A timer for a call that has already reported, or
// that is not due yet, changes nothing.
struct CallTimedOut { CallId call = 0; };
// The controller's periodic check: runs again the teardowns that answered
// EAGAIN, and times out any call past its deadline whose timer was missed.
struct PeriodicCheck {};
// The controller is stopping (shutdown, restart, reconfigure): every running
// call is killed now, before a new controller can run it again.
struct Stopping {};
// The record was read back by a controller that (re)started, restarts and
// reconfigures alike. `callsCanRun` is false when switch.lua calls can no
// longer be run for the job (switch/lua is no longer configured).
struct Recovered { bool callsCanRun = true; };
}  // namespace switch_event

using SwitchEvent = std::variant<switch_event::StartSetup, switch_event::SetupReported,
                                 switch_event::TeardownReported, switch_event::JobEnded,
                                 switch_event::CallTimedOut, switch_event::PeriodicCheck,
                                 switch_event::Stopping, switch_event::Recovered>;

}  // namespace gantry::interconnect
