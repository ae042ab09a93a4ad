#include "controller/switch/runner/call_answers.h"

#include <cmath>
#include <limits>

#include "common/switchlua/return_codes.h"

namespace gantry::interconnect {
namespace {

using switchlua::CallOutcome;
using switchlua::CallResult;
using switchlua::DictionaryStatus;

// "-23", or Lua's own way for a fraction ("0.5").
std::string numberText(double number) {
  if (std::nearbyint(number) == number && std::fabs(number) < 1e15) {
    return std::to_string(static_cast<long long>(number));
  }
  std::string text = std::to_string(number);
  text.erase(text.find_last_not_of('0') + 1);
  return text;
}

std::string returned(const CallResult& result) {
  if (result.number) return "returned " + numberText(*result.number);
  return "returned a " + result.firstType + ", not a number";
}

std::string refusal(const CallResult& result) {
  std::string what(switchlua::toString(result.dictionary));
  return result.dictionaryProblem.empty() ? what : what + ": " + result.dictionaryProblem;
}

SetupAnswer setupFromResult(const CallResult& result) {
  switch (result.outcome) {
    case CallOutcome::NotDefined: return SetupAnswer::declined();
    case CallOutcome::ScriptExited: return SetupAnswer::noResult();
    case CallOutcome::LuaError:
    case CallOutcome::LoadFailed:
    case CallOutcome::InvalidArgument: return SetupAnswer::failed(result.message);
    case CallOutcome::Returned: break;
  }
  if (!result.number || *result.number != switchlua::kSuccess) return SetupAnswer::failed(returned(result));
  switch (result.dictionary) {
    case DictionaryStatus::Present: return SetupAnswer::dictionary(result.dictionaryJson);
    case DictionaryStatus::Absent: return SetupAnswer::declined();
    case DictionaryStatus::Unreadable:
    case DictionaryStatus::TooLarge:
    case DictionaryStatus::TooDeep: return SetupAnswer::refused(refusal(result));
  }
  return SetupAnswer::refused(refusal(result));
}

TeardownAnswer teardownFromResult(const CallResult& result) {
  switch (result.outcome) {
    case CallOutcome::NotDefined: return TeardownAnswer::success();
    case CallOutcome::ScriptExited: return TeardownAnswer::failed("exited without a result");
    case CallOutcome::LuaError:
    case CallOutcome::LoadFailed:
    case CallOutcome::InvalidArgument: return TeardownAnswer::failed(result.message);
    case CallOutcome::Returned: break;
  }
  if (!result.number) return TeardownAnswer::notANumber(result.firstType);
  double rc = *result.number;
  if (rc == switchlua::kSuccess) return TeardownAnswer::success();
  if (rc == switchlua::kEagain) return TeardownAnswer::again();
  if (rc < 0 || std::isnan(rc)) return TeardownAnswer::failed(returned(result));
  double clamped = std::min(rc, static_cast<double>(std::numeric_limits<int>::max()));
  return TeardownAnswer::otherPositive(static_cast<int>(std::ceil(clamped)));
}

}  // namespace

SetupAnswer setupAnswerOf(const CallReport& report) {
  switch (report.kind) {
    case CallReport::Kind::Reported: return setupFromResult(report.result);
    case CallReport::Kind::NoResult: return SetupAnswer::noResult();
    case CallReport::Kind::Killed:
    case CallReport::Kind::TimedOut:
    case CallReport::Kind::Cancelled: return SetupAnswer::signalled(report.detail);
    case CallReport::Kind::StartFailed: return SetupAnswer::failed(report.detail);
  }
  return SetupAnswer::failed(report.detail);
}

TeardownAnswer teardownAnswerOf(const CallReport& report) {
  switch (report.kind) {
    case CallReport::Kind::Reported: return teardownFromResult(report.result);
    case CallReport::Kind::NoResult: return TeardownAnswer::failed(report.detail);
    case CallReport::Kind::Killed:
    case CallReport::Kind::TimedOut:
    case CallReport::Kind::Cancelled: return TeardownAnswer::signalled(report.detail);
    case CallReport::Kind::StartFailed: return TeardownAnswer::failed(report.detail);
  }
  return TeardownAnswer::failed(report.detail);
}

}  // namespace gantry::interconnect
