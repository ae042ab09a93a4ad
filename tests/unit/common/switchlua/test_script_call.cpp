// Calling a function of switch.lua: what each way of answering turns into,
// a fresh state per call, and the boolean queries.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/switchlua/messages.h"
#include "common/switchlua/script_call.h"
#include "switchlua_fixtures.h"

using namespace gantry::switchlua;
using namespace gantry::switchlua::test;

namespace {

const std::string kStart = "slurm_switch_job_start";

struct CallRow {
  std::string rule;
  std::string script;  // defines slurm_switch_job_start (or not)
  CallArguments arguments;
  std::function<void(const CallResult&)> check;
};

CallResult call(const std::string& script, const CallArguments& arguments = {}, const std::string& name = kStart) {
  ScriptFile file(script);
  return callFunction(file.path(), name, arguments, nullptr);
}

}  // namespace

TEST_CASE("calling a switch.lua function: one rule per row", "[switchlua][call]") {
  const std::vector<CallRow> rows = {
      {"a number returned is reported as that number",
       "function slurm_switch_job_start(job) return 4 end", {},
       [](const CallResult& r) {
         CHECK(r.outcome == CallOutcome::Returned);
         CHECK(r.number == 4.0);
         CHECK(r.firstType == "number");
       }},
      {"a value that is not a number is reported as not a number, with its type",
       "function slurm_switch_job_start(job) return 'ready' end", {},
       [](const CallResult& r) {
         CHECK(r.outcome == CallOutcome::Returned);
         CHECK_FALSE(r.number);
         CHECK(r.firstType == "string");
       }},
      {"returning nothing is 'no value'",
       "function slurm_switch_job_start(job) end", {},
       [](const CallResult& r) {
         CHECK(r.outcome == CallOutcome::Returned);
         CHECK_FALSE(r.number);
         CHECK(r.firstType == "no value");
         CHECK(r.dictionary == DictionaryStatus::Absent);
       }},
      {"a Lua error is reported with its message",
       "function slurm_switch_job_start(job)\n  error('fabric manager unreachable')\nend", {},
       [](const CallResult& r) {
         CHECK(r.outcome == CallOutcome::LuaError);
         CHECK(r.message.find("switch.lua:2: fabric manager unreachable") != std::string::npos);
       }},
      {"an error value that is not a string is named by its type",
       "function slurm_switch_job_start(job) error({ port = 12 }) end", {},
       [](const CallResult& r) {
         CHECK(r.outcome == CallOutcome::LuaError);
         CHECK(r.message == "(error object is a table value)");
       }},
      {"a function the script does not define is 'function not defined'",
       "function slurm_switch_job_complete(job, info) return 0 end", {},
       [](const CallResult& r) {
         CHECK(r.outcome == CallOutcome::NotDefined);
         CHECK(toString(r.outcome) == "function not defined");
       }},
      {"a global of that name that is not a function is a Lua error",
       "slurm_switch_job_start = 5", {},
       [](const CallResult& r) {
         CHECK(r.outcome == CallOutcome::LuaError);
         CHECK(r.message.find("number") != std::string::npos);
       }},
      {"an undefined function is found without tripping a strict-globals metatable",
       "setmetatable(_G, { __index = function(_, k) error('undeclared ' .. k) end })", {},
       [](const CallResult& r) { CHECK(r.outcome == CallOutcome::NotDefined); }},
      {"os.exit ends the call with 'script called os.exit'",
       "function slurm_switch_job_start(job) os.exit(2) end", {},
       [](const CallResult& r) {
         CHECK(r.outcome == CallOutcome::ScriptExited);
         CHECK(r.message == "script called os.exit");
       }},
      {"os.exit caught by pcall still ends the call",
       "function slurm_switch_job_start(job)\n  pcall(os.exit, 0)\n  return slurm.SUCCESS, {}\nend", {},
       [](const CallResult& r) { CHECK(r.outcome == CallOutcome::ScriptExited); }},
      {"a script that no longer loads fails the call with its load line",
       "function slurm_switch_job_start(job) return 0 end\nreturn 3", {},
       [](const CallResult& r) {
         CHECK(r.outcome == CallOutcome::LoadFailed);
         CHECK(r.message.find(": returned 3 on load") != std::string::npos);
       }},
      {"an argument that is not JSON text calls nothing",
       "function slurm_switch_job_start(job) os.exit(1) end", {"{not json"},
       [](const CallResult& r) {
         CHECK(r.outcome == CallOutcome::InvalidArgument);
         CHECK(r.message.find("slurm_switch_job_start: argument 1 is not JSON text") != std::string::npos);
       }},
      {"arguments arrive as tables, nil as nil",
       "function slurm_switch_job_start(job, info)\n"
       "  if info ~= nil then return -5 end\n"
       "  return job.num_nodes * 10 + #job.node_list\n"
       "end",
       {R"({"num_nodes": 6, "node_list": ["a", "b", "c"]})", std::nullopt},
       [](const CallResult& r) { CHECK(r.number == 63.0); }},
      {"the second value becomes the dictionary as JSON text",
       "function slurm_switch_job_start(job) return slurm.SUCCESS, { vlan = 311, ports = { 'p1', 'p2' } } end", {},
       [](const CallResult& r) {
         CHECK(r.number == 0.0);
         CHECK(r.dictionary == DictionaryStatus::Present);
         CHECK(nlohmann::json::parse(r.dictionaryJson) == nlohmann::json{{"vlan", 311}, {"ports", {"p1", "p2"}}});
       }},
      {"a nil second value leaves the dictionary absent",
       "function slurm_switch_job_start(job) return slurm.SUCCESS, nil end", {},
       [](const CallResult& r) {
         CHECK(r.dictionary == DictionaryStatus::Absent);
         CHECK(r.dictionaryJson.empty());
       }},
      {"a second value that is not a table cannot be read",
       "function slurm_switch_job_start(job) return slurm.SUCCESS, 'vlan 311' end", {},
       [](const CallResult& r) {
         CHECK(r.dictionary == DictionaryStatus::Unreadable);
         CHECK(r.dictionaryProblem == "the second value is a string, not a table");
       }},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.rule) { row.check(call(row.script, row.arguments)); }
  }
}

TEST_CASE("calling a switch.lua function: each call loads the file afresh", "[switchlua][call]") {
  ScriptFile file(
      "calls = (calls or 0) + 1\n"
      "function slurm_switch_job_start(job) calls = calls + 1; return calls end\n");
  CHECK(callFunction(file.path(), kStart, {}, nullptr).number == 2.0);
  // A global set by one call is not seen by the next.
  CHECK(callFunction(file.path(), kStart, {}, nullptr).number == 2.0);

  SECTION("an edit is picked up by the next call") {
    file.write("function slurm_switch_job_start(job) return 23 end\n");
    CHECK(callFunction(file.path(), kStart, {}, nullptr).number == 23.0);
  }
  SECTION("a mistake is picked up as well") {
    file.write("function slurm_switch_job_start(job)\n");
    auto result = callFunction(file.path(), kStart, {}, nullptr);
    CHECK(result.outcome == CallOutcome::LoadFailed);
    CHECK(result.message.rfind("switch/lua: syntax error: ", 0) == 0);
  }
}

TEST_CASE("calling a switch.lua function: lines name the top level, then the function", "[switchlua][call]") {
  ScriptFile file(
      "slurm.log_info('loading for %s', 'fabric')\n"
      "function slurm_switch_job_complete(job, info) slurm.log_info('tearing down %d', job.job_id) end\n");
  CapturedLog log;
  auto result = callFunction(file.path(), "slurm_switch_job_complete", {R"({"job_id": 4711})", std::nullopt},
                             log.sink());
  CHECK(result.outcome == CallOutcome::Returned);
  REQUIRE(log.lines().size() == 2);
  CHECK(log.lines()[0].second == "switch/lua: top level: loading for fabric");
  CHECK(log.lines()[1].second == "switch/lua: slurm_switch_job_complete: tearing down 4711");
  // A call does not announce the load: that line is for daemon start only.
  CHECK_FALSE(log.mentions("script loaded"));
}

TEST_CASE("boolean queries: one rule per row", "[switchlua][call][boolean]") {
  struct BooleanRow {
    std::string rule;
    std::string script;
    bool answer;
    bool logged;
  };
  const std::string kBlock = "slurm_switch_block_job_complete";
  const std::vector<BooleanRow> rows = {
      {"true is true", "function slurm_switch_block_job_complete() return true end", true, false},
      {"false is false", "function slurm_switch_block_job_complete() return false end", false, false},
      {"an undefined function is false, and not an error", "x = 1", false, false},
      {"an error counts as false, and is logged",
       "function slurm_switch_block_job_complete() error('no fabric') end", false, true},
      {"a value that is not a boolean counts as false, and is logged",
       "function slurm_switch_block_job_complete() return 1 end", false, true},
      {"os.exit counts as false, and is logged",
       "function slurm_switch_block_job_complete() os.exit(0) end", false, true},
      {"a script that does not load counts as false, and is logged", "return 8", false, true},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      ScriptFile file(row.script);
      CapturedLog log;
      CHECK(askBoolean(file.path(), kBlock, log.sink()) == row.answer);
      CHECK(log.mentions("counted as false") == row.logged);
      if (row.logged) CHECK(log.lines().back().first == ScriptLogLevel::Error);
    }
  }
}
