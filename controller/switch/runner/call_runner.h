// Runs the controller's switch.lua calls (slurm_switch_job_start,
// slurm_switch_job_complete, and the boolean queries when wanted) each in a
// process of its own, so a slow or stuck script never holds up the
// controller, and a script that crashes takes only its own process down.
//
// Each call execs the helper program gantryswitchcall in a new process
// group, with standard input, output and error on /dev/null while the
// script runs, no descriptor of ours but its result channel, and, when we
// are root, the request's uid, gid and groups (the helper switches to them
// itself before the script loads). The helper loads the script
// into a fresh Lua state for that call alone (common/switchlua), calls the
// function and sends back the lines logged and the result. When the call
// ends, however it ends, its process group is killed with SIGKILL, so
// nothing the script started outlives it (unless it left the group).
// docs/switch-lua.md, "How calls run", says why it is an exec and not a
// bare fork.
//
// Timeouts: the runner kills a call that has not given its result when its
// request's timeout runs out, and reports TimedOut. The lifecycle
// (controller/switch) keeps its own timer for the same call and acts on it
// (fails the setup, drains); the runner's kill is what stops the process.
// A report that reaches the lifecycle after its own timer is a late one,
// which the lifecycle handles.
//
// Threads: start(), kill() and running() may be called from any thread and
// never wait for a call: start() only queues it, and the fork happens on
// the runner's thread, so even the fork of a large controller costs the
// caller nothing. `done` runs once per call, on the runner's one
// I/O thread (never on the caller's), and may call start() and kill(); it
// must not destroy the runner. The destructor kills every call still
// running, reaps it and drops its report (the owner is going away); it
// must not be called from a `done` callback.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/switchlua/script_call.h"
#include "common/util/io_thread.h"
#include "common/util/process.h"
#include "controller/switch/runner/call_report.h"

namespace gantry::interconnect {

struct CallRequest {
  std::filesystem::path script{};  // switch.lua, read afresh by this call
  std::string function{};          // e.g. "slurm_switch_job_start"
  switchlua::CallArguments arguments{};
  // Who the call runs as (SlurmUser). Only switched to when the runner
  // runs as root; otherwise the call runs as the runner does.
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups{};  // supplementary groups; empty: none
  // Zero: no limit (the boolean queries at start). Past it: TimedOut.
  std::chrono::milliseconds timeout{0};
};

using CallDone = std::function<void(CallReport)>;
using RunnerCallId = uint64_t;

struct CallRunnerOptions {
  // The helper program; empty: gantryswitchcall beside the running program.
  std::filesystem::path helper{};
};

class CallRunner {
 public:
  // Raises this process's soft limit on open files to its hard limit: a
  // call holds two descriptors while it runs (its result pipe and a pidfd),
  // and 1,000 calls at once must fit.
  explicit CallRunner(CallRunnerOptions options = {});
  ~CallRunner();
  CallRunner(const CallRunner&) = delete;
  CallRunner& operator=(const CallRunner&) = delete;

  // Queues the call and returns at once; the runner's thread starts it.
  // Never fails: a call that cannot start (no descriptor left, no helper, a uid that
  // cannot be taken) is reported through `done` as StartFailed.
  RunnerCallId start(CallRequest request, CallDone done);
  // Kills the call's process group; its report says Cancelled unless its
  // result came first. Nothing for a call that already ended.
  void kill(RunnerCallId id);
  // Calls started and not yet reported.
  size_t running() const;

  const std::filesystem::path& helper() const { return helper_; }

 private:
  // A call from start() to its report. `handle` is set once the process
  // is made (on the runner's thread); a kill() before that is remembered.
  struct Call {
    ProcessHandle handle{};
    bool launched = false;
    bool killRequested = false;
  };

  void launch(RunnerCallId id, CallRequest request, CallDone done);
  void finished(RunnerCallId id, CallReport report, const CallDone& done);

  std::filesystem::path helper_;
  mutable std::mutex mutex_;
  std::condition_variable allEnded_;
  std::unordered_map<RunnerCallId, Call> calls_;
  RunnerCallId nextId_ = 1;
  bool stopping_ = false;
  IoThread io_;  // last: its thread stops first, after the destructor reaped every call
};

// gantryswitchcall in the folder of the running program.
std::filesystem::path helperBesideSelf();

}  // namespace gantry::interconnect
