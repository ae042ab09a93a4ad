// The rule that turns what the runner saw of a call's process into its
// report: one row per rule.
#include <catch2/catch.hpp>

#include <csignal>
#include <string>
#include <vector>

#include "common/switchlua/messages.h"
#include "controller/switch/runner/call_report.h"

using namespace gantry::interconnect;
using gantry::switchlua::CallOutcome;
using gantry::switchlua::CallResult;
using Kind = CallReport::Kind;

namespace {

CallResult resultWith(CallOutcome outcome, std::optional<double> number = std::nullopt) {
  CallResult result;
  result.outcome = outcome;
  result.number = number;
  return result;
}

struct ReportRow {
  std::string rule;
  CallEnd end;
  Kind kind;
};

}  // namespace

TEST_CASE("a call's report: one rule per row", "[switch][runner]") {
  const std::vector<ReportRow> rows = {
      {"a result given is reported, though the helper then dies on its own SIGKILL",
       {.result = resultWith(CallOutcome::Returned, 3), .signal = SIGKILL}, Kind::Reported},
      {"a Lua error is a result like any other",
       {.result = resultWith(CallOutcome::LuaError), .signal = SIGKILL}, Kind::Reported},
      {"a script that no longer loads is a result",
       {.result = resultWith(CallOutcome::LoadFailed), .signal = SIGKILL}, Kind::Reported},
      {"os.exit() caught by the script environment is no result",
       {.result = resultWith(CallOutcome::ScriptExited), .signal = SIGKILL}, Kind::NoResult},
      {"an exit before the result is no result", {.exitCode = 5}, Kind::NoResult},
      {"a death on a signal before the result is Killed", {.signal = SIGBUS}, Kind::Killed},
      {"the runner's timeout is TimedOut, not Killed", {.signal = SIGKILL, .timedOut = true}, Kind::TimedOut},
      {"a result read as the timeout fired was still given",
       {.result = resultWith(CallOutcome::Returned, 0), .signal = SIGKILL, .timedOut = true}, Kind::Reported},
      {"kill() is Cancelled", {.signal = SIGKILL, .cancelled = true}, Kind::Cancelled},
      {"a process that never ran the call is StartFailed", {.startError = "cannot create a pipe"}, Kind::StartFailed},
      {"an order the helper refused is StartFailed", {.orderRefused = "not JSON", .signal = SIGKILL},
       Kind::StartFailed},
  };
  for (const auto& row : rows) {
    SECTION(row.rule) { CHECK(kindOf(row.end) == row.kind); }
  }
}

TEST_CASE("a report says what ended the call", "[switch][runner]") {
  CHECK(reportOf({.signal = SIGBUS}).signal == SIGBUS);
  CHECK(reportOf({.signal = SIGBUS}).detail == "signal " + std::to_string(SIGBUS) + " (SIGBUS)");
  CHECK(reportOf({.exitCode = 5}).detail == "exited with status 5 without a result");
  CHECK(reportOf({.result = resultWith(CallOutcome::ScriptExited)}).detail ==
        std::string(gantry::switchlua::kScriptCalledExit));
  CHECK(reportOf({.startError = "cannot start x: no such file"}).detail == "cannot start x: no such file");
  CHECK(reportOf({.result = resultWith(CallOutcome::Returned, 7)}).result.number == 7.0);
}
