// The node side of switch/lua as rules (stepd/launcher/switch_step_rules.h):
// which step functions a step runs, and what each answer does.
#include <catch2/catch.hpp>

#include "stepd/core/sluid.h"
#include "stepd/launcher/switch_step_rules.h"

using namespace gantry::stepd;
using gantry::switchlua::CallOutcome;
using gantry::switchlua::CallResult;

TEST_CASE("which step functions run for which step", "[stepd][switch]") {
  struct Row {
    const char* rule;
    std::string stepId;
    bool managed;
    bool specialSteps;
    StepFunctionPlan plan;
  };
  const StepFunctionPlan all{.preinit = true, .init = true, .postfini = true};
  const StepFunctionPlan initOnly{.init = true};
  const StepFunctionPlan none{};
  const std::vector<Row> rows = {
      {"a normal step of a managed job runs all three", "3", true, false, all},
      {"a normal step runs all three whatever special steps says", "12", true, true, all},
      {"the batch step runs nothing without special steps", "batch", true, false, none},
      {"the batch step runs step_init only with special steps", "batch", true, true, initOnly},
      {"the interactive step runs nothing without special steps", "interactive", true, false, none},
      {"the interactive step runs step_init only with special steps", "interactive", true, true, initOnly},
      {"the extern step runs none without special steps", "extern", true, false, none},
      {"the extern step runs none even with special steps", "extern", true, true, none},
      {"a normal step of an unmanaged job runs none", "0", false, true, none},
      {"the batch step of an unmanaged job runs none with special steps", "batch", false, true, none},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      CHECK(stepFunctionPlan(switchStepKind(row.stepId), row.managed, row.specialSteps) == row.plan);
    }
  }
}

namespace {

CallResult returned(std::optional<double> number, std::string type = "number") {
  CallResult result;
  result.firstType = std::move(type);
  result.number = number;
  return result;
}

CallResult outcome(CallOutcome kind, std::string message) {
  CallResult result;
  result.outcome = kind;
  result.message = std::move(message);
  return result;
}

}  // namespace

TEST_CASE("what each answer of a step function does", "[stepd][switch]") {
  using Effect = StepAnswerEffect;
  struct Row {
    const char* rule;
    StepFunction function;
    CallResult result;
    Effect effect;
    std::string lineHas;  // empty: no line is logged
  };
  const std::vector<Row> rows = {
      {"a negative preinit fails the step", StepFunction::Preinit, returned(-3), Effect::FailStep,
       "slurm_switch_step_preinit returned -3: Error configuring interconnect"},
      {"a fractional negative preinit fails the step", StepFunction::Preinit, returned(-0.25), Effect::FailStep,
       "returned -0.25: Error configuring interconnect"},
      {"a negative init fails the step", StepFunction::Init, returned(-7), Effect::FailStep,
       "slurm_switch_step_init returned -7: Error configuring interconnect"},
      {"a negative postfini drains the node", StepFunction::Postfini, returned(-2), Effect::DrainNode,
       "slurm_switch_step_postfini returned -2; the node is drained: switch_g_job_postfini failed"},
      {"a zero preinit says nothing", StepFunction::Preinit, returned(0), Effect::Proceed, ""},
      {"a zero postfini says nothing", StepFunction::Postfini, returned(0), Effect::Proceed, ""},
      {"a positive preinit is logged and the step proceeds", StepFunction::Preinit, returned(5), Effect::Proceed,
       "slurm_switch_step_preinit returned 5; not enforced"},
      {"a positive init is logged and the step proceeds", StepFunction::Init, returned(9), Effect::Proceed,
       "slurm_switch_step_init returned 9; not enforced"},
      {"a positive postfini is logged and nothing drains", StepFunction::Postfini, returned(4), Effect::Proceed,
       "slurm_switch_step_postfini returned 4; not enforced"},
      {"a preinit that returns no number is taken as success", StepFunction::Preinit,
       returned(std::nullopt, "string"), Effect::Proceed, "returned string, not a number; taken as success"},
      {"a preinit Lua error is logged and the step proceeds", StepFunction::Preinit,
       outcome(CallOutcome::LuaError, "switch.lua:4: fabric gone"), Effect::Proceed,
       "switch/lua: slurm_switch_step_preinit: switch.lua:4: fabric gone; the step proceeds"},
      {"an init Lua error is logged and the step proceeds", StepFunction::Init,
       outcome(CallOutcome::LuaError, "switch.lua:9: bad"), Effect::Proceed,
       "switch/lua: slurm_switch_step_init: switch.lua:9: bad; the step proceeds"},
      {"a postfini Lua error is logged and nothing drains", StepFunction::Postfini,
       outcome(CallOutcome::LuaError, "switch.lua:2: oops"), Effect::Proceed,
       "switch/lua: slurm_switch_step_postfini: switch.lua:2: oops; the node is not drained"},
      {"os.exit in postfini does not drain", StepFunction::Postfini,
       outcome(CallOutcome::ScriptExited, "script called os.exit"), Effect::Proceed,
       "slurm_switch_step_postfini: script called os.exit; the node is not drained"},
      {"a script that no longer loads fails open", StepFunction::Init,
       outcome(CallOutcome::LoadFailed, "switch/lua: syntax error: switch.lua:1: unexpected symbol"), Effect::Proceed,
       "switch/lua: syntax error: switch.lua:1: unexpected symbol; slurm_switch_step_init not run; the step proceeds"},
      {"an undefined function does nothing", StepFunction::Preinit, outcome(CallOutcome::NotDefined, ""),
       Effect::Proceed, ""},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      StepAnswer answer = judgeStepAnswer(row.function, row.result);
      CHECK(answer.effect == row.effect);
      if (row.lineHas.empty()) {
        CHECK(answer.errorLine.empty());
      } else {
        CHECK_THAT(answer.errorLine, Catch::Contains(row.lineHas));
      }
    }
  }
}

TEST_CASE("stepinfo is the dictionary when it is a JSON object, else nil with a reason", "[stepd][switch]") {
  struct Row {
    const char* rule;
    std::optional<std::string> text;
    bool passed;
    std::string problemHas;
  };
  const std::vector<Row> rows = {
      {"a dictionary is passed as it is", R"({"lanes":6,"fabric":{"vni":31}})", true, ""},
      {"an empty dictionary is passed", "{}", true, ""},
      {"a dictionary the controller could not pass is nil", std::nullopt, false, "could not pass"},
      {"empty text is nil", "", false, "could not pass"},
      {"text that is not JSON is nil", "{lanes", false, "not JSON text"},
      {"a JSON array is nil", "[1,2]", false, "a JSON array, not an object"},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      StepInfoArgument argument = stepInfoArgument(row.text);
      CHECK(argument.json.has_value() == row.passed);
      if (row.passed) CHECK(*argument.json == *row.text);
      CHECK_THAT(argument.problem, Catch::Contains(row.problemHas));
    }
  }
}

TEST_CASE("the step table carries the job id, the partition or nil, and the run's sluid", "[stepd][switch]") {
  StepSpec spec;
  spec.job_id = 4321;
  spec.cluster = "orion";
  SECTION("without a partition or sluid: nil and the job's SLUID") {
    auto step = switchStepOf(spec);
    CHECK(step.jobId == 4321);
    CHECK_FALSE(step.partition.has_value());
    CHECK(step.sluid == jobSluid("orion", 4321));
  }
  SECTION("with both: as given") {
    spec.partition = "fabric";
    spec.switch_sluid = "sRUN2XYZ";
    auto step = switchStepOf(spec);
    CHECK(step.partition == std::optional<std::string>("fabric"));
    CHECK(step.sluid == "sRUN2XYZ");
  }
}

TEST_CASE("step ids name their kind", "[stepd][switch]") {
  CHECK(switchStepKind("batch") == SwitchStepKind::Batch);
  CHECK(switchStepKind("extern") == SwitchStepKind::Extern);
  CHECK(switchStepKind("interactive") == SwitchStepKind::Interactive);
  CHECK(switchStepKind("0") == SwitchStepKind::Normal);
  CHECK(switchStepKind("17") == SwitchStepKind::Normal);
}
