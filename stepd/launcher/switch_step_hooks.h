// The step functions of switch.lua, as gantrystepd runs them for one step:
// synchronously, in its own process (as root when the launcher is), each on
// a fresh Lua state (common/switchlua callFunction). Which function runs
// for which step, and what its answer does, is switch_step_rules.h.
//
// The launcher calls them in this order, each only where the plan has it:
//   preinit()   before the step's cgroup is created;
//   init()      after the cgroup, before the first task is forked;
//   postfini()  once every task is dead and the cgroup killed, and only
//               for a step that got past preinit (it is preinit's pair).
//
// Not thread-safe; one gantrystepd owns one.
#pragma once

#include <optional>
#include <string>

#include "common/switchlua/environment_table.h"
#include "common/switchlua/script_log.h"
#include "common/util/result.h"
#include "stepd/core/step_spec.h"
#include "stepd/launcher/switch_step_rules.h"

namespace gantry::stepd {

class SwitchStepHooks {
 public:
  // For a step whose launcher has loaded spec.switch_script. Asks
  // slurm_switch_block_job_complete() (the answer is ignored, as the spec
  // says) and slurm_switch_setup_special_steps() once, for every step kind,
  // and logs through `sink` why stepinfo is nil when a managed job's
  // dictionary could not be passed.
  SwitchStepHooks(const StepSpec& spec, switchlua::LogSink sink);

  const StepFunctionPlan& plan() const { return plan_; }

  // An error (kInterconnectError) fails the step.
  Status preinit();
  // The environment the function returned, for every task of the step
  // (the launcher's SLURM_* variables go on top); an error
  // (kInterconnectError) fails the step.
  Result<switchlua::EnvironmentChanges> init();
  // The node's drain reason, when the function asked for a drain.
  std::optional<std::string> postfini();

 private:
  switchlua::CallResult call(StepFunction function);
  // Logs the answer's line and returns what it does.
  StepAnswerEffect judge(StepFunction function, const switchlua::CallResult& result);

  std::string script_;
  switchlua::LogSink sink_;
  StepFunctionPlan plan_;
  std::string step_json_;
  std::optional<std::string> stepinfo_;
  bool preinit_passed_ = false;
};

}  // namespace gantry::stepd
