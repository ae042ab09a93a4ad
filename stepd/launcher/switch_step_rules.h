// The node side of switch/lua as rules: which of the step functions a step
// runs, and what each of their answers does to the step or the node. Pure:
// no Lua, no files; switch_step_hooks.h calls the script and applies these.
//
//   step kind    managed, special steps false    managed, special steps true
//   normal       preinit, init, postfini          preinit, init, postfini
//   batch        none                             init
//   interactive  none                             init
//   extern       none                             none
// A job the plugin does not manage runs none of them.
//
// Answers (the spec's step functions fail open: only an explicit negative
// number is enforced):
//   a negative number    preinit, init: the step fails; postfini: the node drains
//   0                    nothing
//   a positive number    logged as an error, nothing else
//   not a number         logged as an error, taken as success
//   a Lua error, os.exit, a script that no longer loads: logged, the step
//                        proceeds and the node is not drained
//   function not defined nothing
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/switchlua/job_table.h"
#include "common/switchlua/script_call.h"
#include "stepd/core/step_spec.h"

namespace gantry::stepd {

// The step's message when preinit or init returns a negative number.
inline constexpr std::string_view kInterconnectError = "Error configuring interconnect";
// The node's drain reason when postfini returns a negative number.
inline constexpr std::string_view kPostfiniDrainReason = "switch_g_job_postfini failed";

enum class SwitchStepKind { Normal, Batch, Interactive, Extern };
// "batch", "extern" and "interactive" by name; any other id is a normal step.
SwitchStepKind switchStepKind(const std::string& step_id);

struct StepFunctionPlan {
  bool preinit = false;
  bool init = false;
  bool postfini = false;
  bool operator==(const StepFunctionPlan&) const = default;
};

// `managed`: the job's setup returned a dictionary. `special_steps`: what
// slurm_switch_setup_special_steps() answered when the script loaded.
StepFunctionPlan stepFunctionPlan(SwitchStepKind kind, bool managed, bool special_steps);

enum class StepFunction { Preinit, Init, Postfini };
// The global the script defines: "slurm_switch_step_preinit", ...
std::string_view functionName(StepFunction function);

enum class StepAnswerEffect { Proceed, FailStep, DrainNode };

struct StepAnswer {
  StepAnswerEffect effect = StepAnswerEffect::Proceed;
  std::string errorLine;  // for the log at the error level; empty: nothing to say
};

StepAnswer judgeStepAnswer(StepFunction function, const switchlua::CallResult& result);

// The `stepinfo` argument: the dictionary's JSON text when it is a JSON
// object, else nil (std::nullopt) with `problem` saying why, for the log.
struct StepInfoArgument {
  std::optional<std::string> json;
  std::string problem;
};
StepInfoArgument stepInfoArgument(const std::optional<std::string>& text);

// The `step` argument: job_id, partition (nil when the spec has none) and
// the sluid of the job's run (the spec's, else the job's SLUID).
switchlua::SwitchStep switchStepOf(const StepSpec& spec);

}  // namespace gantry::stepd
