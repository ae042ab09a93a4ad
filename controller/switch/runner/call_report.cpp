#include "controller/switch/runner/call_report.h"

#include <string.h>

#include "common/switchlua/messages.h"

namespace gantry::interconnect {

using switchlua::CallOutcome;

CallReport::Kind kindOf(const CallEnd& end) {
  using Kind = CallReport::Kind;
  if (end.startError || end.orderRefused) return Kind::StartFailed;
  if (end.result) return end.result->outcome == CallOutcome::ScriptExited ? Kind::NoResult : Kind::Reported;
  if (end.timedOut) return Kind::TimedOut;
  if (end.cancelled) return Kind::Cancelled;
  if (end.signal != 0) return Kind::Killed;
  return Kind::NoResult;
}

CallReport reportOf(CallEnd end) {
  CallReport report;
  report.kind = kindOf(end);
  switch (report.kind) {
    case CallReport::Kind::Reported: report.result = std::move(*end.result); break;
    case CallReport::Kind::NoResult:
      if (end.result) {
        report.detail = std::string(switchlua::kScriptCalledExit);
      } else if (end.exitCode >= 0) {
        report.detail = "exited with status " + std::to_string(end.exitCode) + " without a result";
      } else {
        report.detail = "ended without a result";
      }
      if (end.channelProblem) report.detail += " (" + *end.channelProblem + ")";
      break;
    case CallReport::Kind::Killed:
      report.signal = end.signal;
      report.detail = "signal " + std::to_string(end.signal);
      if (const char* name = sigabbrev_np(end.signal)) report.detail += std::string(" (SIG") + name + ")";
      break;
    case CallReport::Kind::TimedOut: report.detail = "killed at its timeout"; break;
    case CallReport::Kind::Cancelled: report.detail = "killed on request"; break;
    case CallReport::Kind::StartFailed:
      report.detail = end.startError ? *end.startError : "the helper refused its order: " + *end.orderRefused;
      break;
  }
  return report;
}

std::string_view toString(CallReport::Kind kind) {
  switch (kind) {
    case CallReport::Kind::Reported: return "reported";
    case CallReport::Kind::NoResult: return "no result";
    case CallReport::Kind::Killed: return "killed by a signal";
    case CallReport::Kind::TimedOut: return "timed out";
    case CallReport::Kind::Cancelled: return "cancelled";
    case CallReport::Kind::StartFailed: return "could not start";
  }
  return "could not start";
}

}  // namespace gantry::interconnect
