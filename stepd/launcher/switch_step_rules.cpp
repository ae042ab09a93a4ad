#include "stepd/launcher/switch_step_rules.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "stepd/core/sluid.h"

namespace gantry::stepd {
namespace {

// -1 as "-1", 2.5 as "2.5": what the script wrote, for the log.
std::string numberText(double number) {
  char text[64];
  if (std::isfinite(number) && std::nearbyint(number) == number && std::fabs(number) < 1e18) {
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(number));
  } else {
    std::snprintf(text, sizeof text, "%g", number);
  }
  return text;
}

// What a function that is not enforced leaves the step or node with.
std::string_view failOpenTail(StepFunction function) {
  return function == StepFunction::Postfini ? "; the node is not drained" : "; the step proceeds";
}

StepAnswer judgeNumber(StepFunction function, double number) {
  const std::string prefix = "switch/lua: " + std::string(functionName(function)) + " returned " + numberText(number);
  if (number == 0) return {};
  if (number > 0) return {.effect = StepAnswerEffect::Proceed, .errorLine = prefix + "; not enforced"};
  if (function == StepFunction::Postfini) {
    return {.effect = StepAnswerEffect::DrainNode,
            .errorLine = prefix + "; the node is drained: " + std::string(kPostfiniDrainReason)};
  }
  return {.effect = StepAnswerEffect::FailStep, .errorLine = prefix + ": " + std::string(kInterconnectError)};
}

}  // namespace

SwitchStepKind switchStepKind(const std::string& step_id) {
  if (step_id == "batch") return SwitchStepKind::Batch;
  if (step_id == "extern") return SwitchStepKind::Extern;
  if (step_id == "interactive") return SwitchStepKind::Interactive;
  return SwitchStepKind::Normal;
}

StepFunctionPlan stepFunctionPlan(SwitchStepKind kind, bool managed, bool special_steps) {
  if (!managed) return {};
  switch (kind) {
    case SwitchStepKind::Normal: return {.preinit = true, .init = true, .postfini = true};
    case SwitchStepKind::Batch:
    case SwitchStepKind::Interactive: return {.init = special_steps};
    case SwitchStepKind::Extern: return {};
  }
  return {};
}

std::string_view functionName(StepFunction function) {
  switch (function) {
    case StepFunction::Preinit: return "slurm_switch_step_preinit";
    case StepFunction::Init: return "slurm_switch_step_init";
    case StepFunction::Postfini: return "slurm_switch_step_postfini";
  }
  return "slurm_switch_step_init";
}

StepAnswer judgeStepAnswer(StepFunction function, const switchlua::CallResult& result) {
  using switchlua::CallOutcome;
  const std::string name(functionName(function));
  switch (result.outcome) {
    case CallOutcome::NotDefined: return {};
    case CallOutcome::Returned:
      if (result.number) return judgeNumber(function, *result.number);
      return {.effect = StepAnswerEffect::Proceed,
              .errorLine = "switch/lua: " + name + " returned " + result.firstType +
                           ", not a number; taken as success"};
    case CallOutcome::LoadFailed:  // the message is already a "switch/lua: ..." line
      return {.effect = StepAnswerEffect::Proceed,
              .errorLine = result.message + "; " + name + " not run" + std::string(failOpenTail(function))};
    case CallOutcome::LuaError:
    case CallOutcome::ScriptExited:
    case CallOutcome::InvalidArgument:
      break;
  }
  std::string message = result.message;
  const std::string ours = "switch/lua: " + name + ": ";
  if (message.rfind(ours, 0) != 0) message = ours + message;  // InvalidArgument's message carries it already
  return {.effect = StepAnswerEffect::Proceed, .errorLine = message + std::string(failOpenTail(function))};
}

StepInfoArgument stepInfoArgument(const std::optional<std::string>& text) {
  if (!text || text->empty()) return {.json = std::nullopt, .problem = "the controller could not pass it"};
  nlohmann::json parsed = nlohmann::json::parse(*text, nullptr, false);
  if (parsed.is_discarded()) return {.json = std::nullopt, .problem = "it is not JSON text"};
  if (!parsed.is_object())
    return {.json = std::nullopt, .problem = std::string("it is a JSON ") + parsed.type_name() + ", not an object"};
  return {.json = *text, .problem = ""};
}

switchlua::SwitchStep switchStepOf(const StepSpec& spec) {
  return {.jobId = spec.job_id,
          .partition = spec.partition.empty() ? std::nullopt : std::optional<std::string>(spec.partition),
          .sluid = spec.switch_sluid.empty() ? jobSluid(spec.cluster, spec.job_id) : spec.switch_sluid};
}

}  // namespace gantry::stepd
