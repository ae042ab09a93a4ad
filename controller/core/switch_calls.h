// The core's side of running switch.lua's controller functions
// (slurm_switch_job_start, slurm_switch_job_complete). The core decides
// through the pure lifecycle of controller/switch and asks a SwitchCalls to
// run each call; in gantryctld that is controller/switch/runner, which runs
// every call in a process of its own, so a slow script never holds up the
// core's strand. Tests give the core a fake that answers by hand.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/switchlua/job_table.h"
#include "controller/switch/switch_events.h"

namespace gantry::core {

struct SwitchCallOrder {
  enum class Function { JobStart, JobComplete };
  Function function = Function::JobStart;
  switchlua::SwitchJob job{};              // the `job` argument, a snapshot
  std::optional<std::string> jobinfo{};    // JobComplete's `jobinfo`; nullopt is Lua nil
  std::chrono::milliseconds timeout{0};    // a backstop: the lifecycle kills the call at its own deadline
};

struct SwitchCallLogLine {
  enum class Level { Error, Info, Debug };  // slurm.log_verbose and log_debug* are Debug
  Level level = Level::Info;
  std::string text;  // "switch/lua: <function>: ..." as the script environment wrote it
};

// How the call ended, read the way the lifecycle reads it: a SetupAnswer for
// JobStart, a TeardownAnswer for JobComplete.
struct SwitchCallOutcome {
  std::variant<interconnect::SetupAnswer, interconnect::TeardownAnswer> answer;
  std::vector<SwitchCallLogLine> log{};
};

class SwitchCalls {
 public:
  virtual ~SwitchCalls() = default;
  using Done = std::function<void(SwitchCallOutcome)>;
  // Starts the call and returns at once with a handle for kill(); `done`
  // runs exactly once, on any thread (the core posts it to its strand).
  virtual uint64_t start(SwitchCallOrder order, Done done) = 0;
  // Kills the call's process group; its `done` still runs (as killed).
  virtual void kill(uint64_t handle) = 0;
};

// What switch.lua answered to the two questions the controller asks when
// it loads the script (at start and at each reconfigure).
struct SwitchScriptAnswers {
  bool blockJobComplete = false;
  bool setupSpecialSteps = false;
};

}  // namespace gantry::core
