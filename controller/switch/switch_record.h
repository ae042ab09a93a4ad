// The switch/lua state of one job, as a plain value the core stores with the
// job record. Everything a restart needs is here: the lifecycle is replayed
// from it by the Recovered event (switch_lifecycle.h), so nothing else about
// the switch calls has to survive a restart of the controller.
//
// Copyable and comparable, no pointers: the store may keep it in any
// encoding, field by field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gantry::interconnect {

// Names one run of one switch.lua function for one job; unique within the
// job's record (never reused, also across restarts).
using CallId = uint64_t;

enum class CallKind : uint8_t {
  Setup,         // slurm_switch_job_start(job)
  Teardown,      // slurm_switch_job_complete(job, jobinfo) at the end of a run
  LateTeardown,  // one more job_complete for a setup that reported after it was abandoned
};

enum class CallState : uint8_t {
  // Its process runs; the controller waits for it until deadlineMs.
  Running,
  // A held teardown answered EAGAIN: it runs again at the next periodic check.
  WaitingForRetry,
  // A setup that timed out and was killed. Kept only so that a report it
  // still sends is recognised as a late setup.
  Abandoned,
  // Killed because the controller was stopping (shutdown, restart,
  // reconfigure). Its report is dropped. After a restart it is run again; in
  // a controller that carries on (a failed reconfigure) it counts as timed
  // out at its deadline.
  Killed,
};

struct SwitchCall {
  CallId id = 0;
  CallKind kind = CallKind::Setup;
  CallState state = CallState::Running;
  int64_t deadlineMs = 0;  // Running and Killed only
  // The nodes the call is about: a setup's allocation, or the nodes a
  // teardown holds and drains (those the job had when it ended).
  std::vector<std::string> nodes{};
  // Teardowns: the nodes stay COMPLETING until this call reports. Only a
  // held teardown can answer EAGAIN and be retried.
  bool holdsNodes = false;
  // Teardowns: how many times it has been run again after EAGAIN.
  int retriesDone = 0;
  // Teardowns: the jobinfo it is given; nullopt is Lua nil.
  std::optional<std::string> jobinfo{};
  // Which run of the job the call is for (the job's requeue count then;
  // -1 until started: the record's current run). The core describes the
  // job to the script as it was in that run (its sluid, its nodes), also
  // when the job has been requeued and runs again meanwhile.
  int run = -1;

  bool operator==(const SwitchCall&) const = default;
};

// Where the setup of the job's current run stands.
enum class SetupPhase : uint8_t {
  None,        // no setup in this run (not started yet, or the run is over)
  Running,     // job_start is outstanding; the job is CONFIGURING
  Configured,  // SUCCESS with a dictionary: stepinfo holds it
  Declined,    // SUCCESS with nil: the plugin does not manage the job
  Failed,      // failed after undoing its work: nothing to tear down
  Abandoned,   // timed out, died, exited without a result or gave a refused
               // dictionary: torn down with nil jobinfo when the run ends
};

struct SwitchRecord {
  uint64_t job = 0;
  SetupPhase setup = SetupPhase::None;
  // The nodes of the current run: the allocation the setup was started for,
  // replaced by the nodes the job still had when it ended.
  std::vector<std::string> nodes{};
  // The dictionary job_start returned (opaque text from the Lua side): the
  // stepinfo of every step and the jobinfo of the teardown. Configured only.
  std::optional<std::string> stepinfo;
  // The run ended while its setup was outstanding: the nodes are held until
  // the setup reports or its time runs out, whatever blockJobComplete says.
  bool endedDuringSetup = false;
  // Every call that is running, waiting for a retry or may still report.
  std::vector<SwitchCall> calls;
  CallId nextCall = 1;
  // The run the current setup is for (the job's requeue count), set by the
  // core before StartSetup; each call takes it when it starts.
  int run = 0;

  bool operator==(const SwitchRecord&) const = default;
};

// The record of a job that requested a network and has not started yet.
SwitchRecord newSwitchRecord(uint64_t job);

// True when switch.lua is to set the job up: its allocation asked for
// --network with a non-empty value.
bool requestsNetwork(const std::string& network);

// True when the steps of the current run get stepinfo and run the step
// functions (the setup returned a dictionary).
bool managesSteps(const SwitchRecord& record);

// True while some call is running or waiting: the core keeps sending this
// record's timeouts and periodic checks. A record that is not busy and whose
// job is gone may be dropped.
bool hasOutstandingCalls(const SwitchRecord& record);

const char* toString(SetupPhase phase);
const char* toString(CallKind kind);
const char* toString(CallState state);

}  // namespace gantry::interconnect
