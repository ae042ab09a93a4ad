// How one switch.lua call in a process of its own ended, as the runner
// reports it, and the pure rule that turns what was seen of the process
// (its channel, its end, the runner's own kills) into that report.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/switchlua/script_call.h"
#include "common/switchlua/script_log.h"

namespace gantry::interconnect {

struct ReportedLogLine {
  switchlua::ScriptLogLevel level = switchlua::ScriptLogLevel::Info;
  std::string line;  // as the script environment wrote it: "switch/lua: <function>: ..."
};

struct CallReport {
  enum class Kind {
    Reported,     // the call gave its result: `result` (any CallOutcome but ScriptExited)
    NoResult,     // the process ended without a result: os.exit() in the script,
                  // or an exit before the result was written; `detail` says which
    Killed,       // the process died on a signal it did not get from the runner: `signal`
    TimedOut,     // no result within the request's timeout: the runner killed it
    Cancelled,    // killed through CallRunner::kill() before it gave a result
    StartFailed,  // the call never ran (no descriptor left, no helper, no such
                  // uid, an order the helper refused): `detail` says why
  };
  Kind kind = Kind::StartFailed;
  switchlua::CallResult result{};
  int signal = 0;
  std::string detail{};
  // Every line the script logged, in order, also for a call that was
  // killed (what it logged before). The owner writes them to its log.
  std::vector<ReportedLogLine> log{};
  pid_t pid = 0;  // the call's process, also its process group; 0 when none was made
};

// What the runner saw of one call's process.
struct CallEnd {
  std::optional<std::string> startError{};        // the process never ran the call
  std::optional<switchlua::CallResult> result{};  // the closing line, when it came
  std::optional<std::string> orderRefused{};      // the helper could not read its order
  std::optional<std::string> channelProblem{};    // a line that could not be read
  int exitCode = -1;                              // -1: did not exit
  int signal = 0;                                 // 0: no signal
  bool timedOut = false;                          // the runner's timeout killed it
  bool cancelled = false;                         // kill() killed it
};

// A result that came wins over everything after it: the helper ends each
// call by killing its own process group, itself included, so a finished
// call always dies on SIGKILL, and a result read just as the timeout fired
// was still given. os.exit(), which the script environment turns into the
// ScriptExited outcome, is reported as NoResult, like a real exit without a
// result: the spec treats both alike.
CallReport::Kind kindOf(const CallEnd& end);

// kindOf() with its detail and signal filled in (the log and pid are the
// runner's to add).
CallReport reportOf(CallEnd end);

std::string_view toString(CallReport::Kind kind);

}  // namespace gantry::interconnect
