// conf/switch-lua/switch.lua: it loads, answers "success" as shipped, and
// with its directives switched on lets a job choose each answer.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <stdlib.h>

#include "common/switchlua/environment_table.h"
#include "common/switchlua/job_table.h"
#include "common/switchlua/return_codes.h"
#include "common/switchlua/script_call.h"
#include "common/switchlua/script_load.h"
#include "switchlua_fixtures.h"

using namespace gantry::switchlua;
using namespace gantry::switchlua::test;

namespace {

const std::string kExample = "conf/switch-lua/switch.lua";

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The example with ALLOW_DIRECTIVES switched on, in a directory of its own
// (which is also where complete_eagain keeps its counts).
class DirectedExample {
 public:
  DirectedExample() {
    std::string text = readFile(kExample);
    const std::string off = "local ALLOW_DIRECTIVES = false";
    size_t at = text.find(off);
    REQUIRE(at != std::string::npos);
    text.replace(at, off.size(), "local ALLOW_DIRECTIVES = true");
    file_.write(text);
  }
  std::filesystem::path path() const { return file_.path(); }

 private:
  ScriptFile file_{""};
};

std::string jobWith(const std::string& network, const std::string& sluid = "s0EXAMPLE0001") {
  return jobTableJson(SwitchJob{.jobId = 6031, .sluid = sluid, .user = "tova", .nodes = "e[2-3]",
                                .nodeNames = {"e2", "e3"}, .numNodes = 2, .network = network});
}

std::string stepJson() { return stepTableJson(SwitchStep{.jobId = 6031, .sluid = "s0EXAMPLE0001"}); }

}  // namespace

TEST_CASE("example switch.lua: loads, and answers success as shipped", "[switchlua][example]") {
  CapturedLog log;
  REQUIRE(loadScript(kExample, log.sink()).ok());
  CHECK(log.has(ScriptLogLevel::Info, "switchlua: script loaded"));

  // Directives are off: a job asking for a failure still gets set up.
  CapturedLog calls;
  auto start = callFunction(kExample, "slurm_switch_job_start", {jobWith("switchlua:start_fail")}, calls.sink());
  CHECK(start.number == kSuccess);
  CHECK(start.dictionary == DictionaryStatus::Present);
  CHECK(calls.mentions("switch/lua: slurm_switch_job_start: switchlua: job_start(): JobId=6031"));

  auto complete = callFunction(kExample, "slurm_switch_job_complete",
                               {jobWith("switchlua:complete_fail"), start.dictionaryJson}, calls.sink());
  CHECK(complete.number == kSuccess);
  CHECK(calls.mentions("switchlua: job_complete(): JobId=6031"));
  CHECK_FALSE(askBoolean(kExample, "slurm_switch_block_job_complete", nullptr));
  CHECK_FALSE(askBoolean(kExample, "slurm_switch_setup_special_steps", nullptr));
}

TEST_CASE("example switch.lua: each directive, one per row", "[switchlua][example]") {
  struct DirectiveRow {
    std::string network;
    std::string function;
    bool withStepinfo;
    std::function<void(const CallResult&)> check;
  };
  auto returns = [](double rc) { return [rc](const CallResult& r) { CHECK(r.number == rc); }; };
  auto outcome = [](CallOutcome o) { return [o](const CallResult& r) { CHECK(r.outcome == o); }; };
  const std::string start = "slurm_switch_job_start", complete = "slurm_switch_job_complete";
  const std::vector<DirectiveRow> rows = {
      {"switchlua:start_fail", start, false, returns(kError)},
      {"switchlua:defer", start, false, returns(kError)},
      {"switchlua:start_rc=17", start, false, returns(17)},
      {"switchlua:start_rc=-6", start, false, returns(-6)},
      {"switchlua:start_error", start, false, outcome(CallOutcome::LuaError)},
      {"switchlua:start_exit", start, false, outcome(CallOutcome::ScriptExited)},
      {"switchlua:start_text", start, false, [](const CallResult& r) { CHECK(r.firstType == "string"); }},
      {"switchlua:start_decline", start, false,
       [](const CallResult& r) {
         CHECK(r.number == kSuccess);
         CHECK(r.dictionary == DictionaryStatus::Absent);
       }},
      {"switchlua:start_big", start, false,
       [](const CallResult& r) { CHECK(r.dictionary == DictionaryStatus::TooLarge); }},
      {"switchlua:start_deep", start, false,
       [](const CallResult& r) { CHECK(r.dictionary == DictionaryStatus::TooDeep); }},
      {"switchlua:start_sleep=0", start, false, returns(kSuccess)},
      {"switchlua:complete_fail", complete, false, returns(kError)},
      {"switchlua:complete_rc=4", complete, false, returns(4)},
      {"switchlua:complete_error", complete, false, outcome(CallOutcome::LuaError)},
      {"switchlua:complete_exit", complete, false, outcome(CallOutcome::ScriptExited)},
      {"switchlua:preinit_fail", "slurm_switch_step_preinit", true, returns(kError)},
      {"switchlua:preinit_rc=8", "slurm_switch_step_preinit", true, returns(8)},
      {"switchlua:init_error", "slurm_switch_step_init", true, outcome(CallOutcome::LuaError)},
      {"switchlua:postfini_fail", "slurm_switch_step_postfini", true, returns(kError)},
      {"switchlua:postfini_error", "slurm_switch_step_postfini", true, outcome(CallOutcome::LuaError)},
      {"switchlua:init_env", "slurm_switch_step_init", true,
       [](const CallResult& r) {
         auto env = environmentChanges(r.secondEntries);
         CHECK(env.set == std::vector<std::pair<std::string, std::string>>{
                              {"SWITCHLUA_FLAG", "1"}, {"SWITCHLUA_NUMBER", "6"}, {"SWITCHLUA_TEXT", "set by switch.lua"}});
         CHECK(env.unset == std::vector<std::string>{"SWITCHLUA_UNSET"});
         CHECK(env.skipped.size() == 1);
       }},
      {"switchlua:unknown_word", start, false, returns(kSuccess)},
      {"fabric-a", "slurm_switch_step_init", true, returns(kSuccess)},
  };
  DirectedExample example;
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.network << " in " << row.function) {
      CallArguments arguments{jobWith(row.network), std::nullopt};
      if (row.withStepinfo) {
        // The step functions read the directives from the dictionary job_start kept.
        auto setup = callFunction(example.path(), start, {jobWith(row.network)}, nullptr);
        REQUIRE(setup.dictionary == DictionaryStatus::Present);
        arguments = {stepJson(), setup.dictionaryJson};
      }
      row.check(callFunction(example.path(), row.function, arguments, nullptr));
    }
  }
}

TEST_CASE("example switch.lua: complete_eagain=N asks again N times, then succeeds", "[switchlua][example]") {
  DirectedExample example;
  const CallArguments arguments{jobWith("switchlua:complete_eagain=3", "s0EAGAIN00003"), std::nullopt};
  std::vector<double> answers;
  for (int call = 0; call < 5; ++call) {
    answers.push_back(callFunction(example.path(), "slurm_switch_job_complete", arguments, nullptr).number.value_or(-99));
  }
  CHECK(answers == std::vector<double>{kEagain, kEagain, kEagain, kSuccess, kSuccess});
}

TEST_CASE("example switch.lua: a step without stepinfo is logged and succeeds", "[switchlua][example]") {
  CapturedLog log;
  auto result = callFunction(kExample, "slurm_switch_step_init", {stepJson(), std::nullopt}, log.sink());
  CHECK(result.number == kSuccess);
  CHECK(log.mentions("switchlua: step_init(): JobId=6031 sluid=s0EXAMPLE0001 stepinfo=nil"));
}
