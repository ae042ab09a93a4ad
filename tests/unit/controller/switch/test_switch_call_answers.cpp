// What each report of a job_start / job_complete call means to the
// lifecycle: one row per rule.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "common/switchlua/return_codes.h"
#include "controller/switch/runner/call_answers.h"

using namespace gantry::interconnect;
using gantry::switchlua::CallOutcome;
using gantry::switchlua::DictionaryStatus;

namespace {

CallReport returnedNumber(std::optional<double> number, DictionaryStatus dictionary = DictionaryStatus::Absent,
                          std::string firstType = "number") {
  CallReport report;
  report.kind = CallReport::Kind::Reported;
  report.result.outcome = CallOutcome::Returned;
  report.result.number = number;
  report.result.firstType = std::move(firstType);
  report.result.dictionary = dictionary;
  if (dictionary == DictionaryStatus::Present) report.result.dictionaryJson = R"({"vni":77})";
  if (dictionary == DictionaryStatus::TooLarge) report.result.dictionaryProblem = "40001 entries";
  return report;
}

CallReport ended(CallReport::Kind kind, std::string detail = "", CallOutcome outcome = CallOutcome::Returned) {
  CallReport report;
  report.kind = kind;
  report.detail = std::move(detail);
  report.result.outcome = outcome;
  report.result.message = "switch.lua:4: no fabric";
  return report;
}

struct SetupRow {
  std::string rule;
  CallReport report;
  SetupAnswer::Kind kind;
  std::string shown;  // text or detail
};

struct TeardownRow {
  std::string rule;
  CallReport report;
  TeardownAnswer::Kind kind;
  std::string detail;
  int rc = 0;
};

}  // namespace

TEST_CASE("job_start reports as setup answers: one rule per row", "[switch][runner]") {
  using K = SetupAnswer::Kind;
  using R = CallReport::Kind;
  const std::vector<SetupRow> rows = {
      {"SUCCESS with a table is the dictionary", returnedNumber(0, DictionaryStatus::Present), K::Dictionary,
       R"({"vni":77})"},
      {"SUCCESS with nil declines", returnedNumber(0), K::Declined, ""},
      {"SUCCESS with a table too large is refused, saying why", returnedNumber(0, DictionaryStatus::TooLarge),
       K::Refused, "dictionary too large: 40001 entries"},
      {"SUCCESS with a table too deep is refused", returnedNumber(0, DictionaryStatus::TooDeep), K::Refused,
       "dictionary too deep"},
      {"SUCCESS with something unreadable is refused", returnedNumber(0, DictionaryStatus::Unreadable), K::Refused,
       "dictionary could not be read"},
      {"another number fails, even with a table", returnedNumber(-4, DictionaryStatus::Present), K::Failed,
       "returned -4"},
      {"a positive number fails", returnedNumber(3), K::Failed, "returned 3"},
      {"a non-number fails", returnedNumber(std::nullopt, DictionaryStatus::Absent, "string"), K::Failed,
       "returned a string, not a number"},
      {"a Lua error fails with its message", ended(R::Reported, "", CallOutcome::LuaError), K::Failed,
       "switch.lua:4: no fabric"},
      {"a script that no longer loads fails", ended(R::Reported, "", CallOutcome::LoadFailed), K::Failed,
       "switch.lua:4: no fabric"},
      {"an undefined function declines", ended(R::Reported, "", CallOutcome::NotDefined), K::Declined, ""},
      {"no result (os.exit) is NoResult", ended(R::NoResult, "script called os.exit"), K::NoResult, ""},
      {"a death on a signal is Signalled", ended(R::Killed, "signal 7 (SIGBUS)"), K::Signalled, "signal 7 (SIGBUS)"},
      {"the runner's timeout is Signalled", ended(R::TimedOut, "killed at its timeout"), K::Signalled,
       "killed at its timeout"},
      {"kill() is Signalled", ended(R::Cancelled, "killed on request"), K::Signalled, "killed on request"},
      {"a call that never started fails", ended(R::StartFailed, "cannot create a pipe"), K::Failed,
       "cannot create a pipe"},
  };
  for (const auto& row : rows) {
    SECTION(row.rule) {
      SetupAnswer answer = setupAnswerOf(row.report);
      CHECK(answer.kind == row.kind);
      CHECK((row.kind == K::Dictionary ? answer.text : answer.detail) == row.shown);
    }
  }
}

TEST_CASE("job_complete reports as teardown answers: one rule per row", "[switch][runner]") {
  using K = TeardownAnswer::Kind;
  using R = CallReport::Kind;
  const std::vector<TeardownRow> rows = {
      {"SUCCESS is success", returnedNumber(0), K::Success, ""},
      {"EAGAIN is again", returnedNumber(gantry::switchlua::kEagain), K::Again, ""},
      {"a negative number fails", returnedNumber(-9), K::Failed, "returned -9"},
      {"NaN fails", returnedNumber(std::nan("")), K::Failed, ""},
      {"another positive number is only logged", returnedNumber(42), K::OtherPositive, "", 42},
      {"a non-number is taken as success, showing its type",
       returnedNumber(std::nullopt, DictionaryStatus::Absent, "table"), K::NotANumber, "table"},
      {"a Lua error fails", ended(R::Reported, "", CallOutcome::LuaError), K::Failed, "switch.lua:4: no fabric"},
      {"an undefined function is success", ended(R::Reported, "", CallOutcome::NotDefined), K::Success, ""},
      {"no result (os.exit) fails", ended(R::NoResult, "script called os.exit"), K::Failed, "script called os.exit"},
      {"a death on a signal is Signalled", ended(R::Killed, "signal 6 (SIGABRT)"), K::Signalled,
       "signal 6 (SIGABRT)"},
      {"the runner's timeout is Signalled", ended(R::TimedOut, "killed at its timeout"), K::Signalled,
       "killed at its timeout"},
      {"a call that never started fails", ended(R::StartFailed, "cannot start helper"), K::Failed,
       "cannot start helper"},
  };
  for (const auto& row : rows) {
    SECTION(row.rule) {
      TeardownAnswer answer = teardownAnswerOf(row.report);
      CHECK(answer.kind == row.kind);
      if (row.rule != "NaN fails") CHECK(answer.detail == row.detail);
      CHECK(answer.rc == row.rc);
    }
  }
}
