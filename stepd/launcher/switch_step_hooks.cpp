#include "stepd/launcher/switch_step_hooks.h"

#include <utility>

namespace gantry::stepd {

SwitchStepHooks::SwitchStepHooks(const StepSpec& spec, switchlua::LogSink sink)
    : script_(spec.switch_script), sink_(std::move(sink)), step_json_(switchlua::stepTableJson(switchStepOf(spec))) {
  // Every launcher asks both, the extern step's included; neither may have
  // side effects. Only the second one matters on a node.
  (void)switchlua::askBoolean(script_, "slurm_switch_block_job_complete", sink_);
  const bool special_steps = switchlua::askBoolean(script_, "slurm_switch_setup_special_steps", sink_);
  plan_ = stepFunctionPlan(switchStepKind(spec.step_id), spec.switch_managed, special_steps);
  if (!spec.switch_managed) return;
  StepInfoArgument stepinfo = stepInfoArgument(spec.switch_stepinfo);
  stepinfo_ = std::move(stepinfo.json);
  if (!stepinfo_) {
    sink_(switchlua::ScriptLogLevel::Error,
          "switch/lua: the stepinfo of JobId=" + std::to_string(spec.job_id) + " is nil: " + stepinfo.problem);
  }
}

switchlua::CallResult SwitchStepHooks::call(StepFunction function) {
  return switchlua::callFunction(script_, std::string(functionName(function)), {step_json_, stepinfo_}, sink_);
}

StepAnswerEffect SwitchStepHooks::judge(StepFunction function, const switchlua::CallResult& result) {
  StepAnswer answer = judgeStepAnswer(function, result);
  if (!answer.errorLine.empty()) sink_(switchlua::ScriptLogLevel::Error, answer.errorLine);
  return answer.effect;
}

Status SwitchStepHooks::preinit() {
  if (!plan_.preinit) return okStatus();
  if (judge(StepFunction::Preinit, call(StepFunction::Preinit)) == StepAnswerEffect::FailStep)
    return Error{std::string(kInterconnectError)};
  preinit_passed_ = true;
  return okStatus();
}

Result<switchlua::EnvironmentChanges> SwitchStepHooks::init() {
  if (!plan_.init) return switchlua::EnvironmentChanges{};
  switchlua::CallResult result = call(StepFunction::Init);
  if (judge(StepFunction::Init, result) == StepAnswerEffect::FailStep) return Error{std::string(kInterconnectError)};
  if (result.outcome != switchlua::CallOutcome::Returned) return switchlua::EnvironmentChanges{};
  const std::string prefix = "switch/lua: " + std::string(functionName(StepFunction::Init)) + ": ";
  // An empty table is a dictionary, so "unreadable with no entries" is a
  // second value that is not a table at all.
  if (result.dictionary == switchlua::DictionaryStatus::Unreadable && result.secondEntries.empty()) {
    sink_(switchlua::ScriptLogLevel::Error, prefix + result.dictionaryProblem + "; no environment is set");
    return switchlua::EnvironmentChanges{};
  }
  switchlua::EnvironmentChanges changes = switchlua::environmentChanges(result.secondEntries);
  for (const auto& line : changes.skipped) sink_(switchlua::ScriptLogLevel::Error, prefix + line);
  return changes;
}

std::optional<std::string> SwitchStepHooks::postfini() {
  if (!plan_.postfini || !preinit_passed_) return std::nullopt;
  if (judge(StepFunction::Postfini, call(StepFunction::Postfini)) == StepAnswerEffect::DrainNode)
    return std::string(kPostfiniDrainReason);
  return std::nullopt;
}

}  // namespace gantry::stepd
