// The `slurm` table a script sees: its numbers, its log functions and
// their levels, print(), and the text conversions.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "common/switchlua/return_codes.h"
#include "common/switchlua/script_call.h"
#include "switchlua_fixtures.h"

using namespace gantry::switchlua;
using namespace gantry::switchlua::test;

namespace {

// Runs `body` as slurm_switch_step_init and returns the call's result.
CallResult run(const std::string& body, CapturedLog* log = nullptr) {
  ScriptFile file("function slurm_switch_step_init(step, info)\n" + body + "\nend\n");
  return callFunction(file.path(), "slurm_switch_step_init", {}, log ? log->sink() : LogSink{});
}

double number(const std::string& expression) {
  auto result = run("return " + expression);
  INFO(result.message);
  REQUIRE(result.number);
  return *result.number;
}

std::string text(const std::string& expression) {
  auto result = run("return 0, { value = " + expression + " }");
  INFO(result.message);
  REQUIRE(result.secondEntries.size() == 1);
  return result.secondEntries.front().text;
}

}  // namespace

TEST_CASE("slurm table: the numbers", "[switchlua][slurm]") {
  CHECK(number("slurm.SUCCESS") == 0);
  CHECK(number("slurm.ERROR") == -1);
  CHECK(number("slurm.FAILURE") == -1);
  CHECK(number("slurm.EAGAIN") == kEagain);
  CHECK(kEagain > 0);
  CHECK(number("math.type(slurm.EAGAIN) == 'integer' and 1 or 0") == 1);
}

TEST_CASE("slurm table: each log function logs at its level, prefixed with the function", "[switchlua][slurm]") {
  struct LevelRow {
    std::string rule;
    std::string statement;
    ScriptLogLevel level;
    std::string line;
  };
  const std::vector<LevelRow> rows = {
      {"log_info formats like string.format, at info", "slurm.log_info('%d links at %.1f', 6, 2.5)",
       ScriptLogLevel::Info, "6 links at 2.5"},
      {"log_error logs at error", "slurm.log_error('port %s down', 'x7')", ScriptLogLevel::Error, "port x7 down"},
      {"log_verbose logs at verbose", "slurm.log_verbose('%05d', 42)", ScriptLogLevel::Verbose, "00042"},
      {"log_debug logs at debug", "slurm.log_debug('%s/%s', 'a', 'b')", ScriptLogLevel::Debug, "a/b"},
      {"log_debug2 logs at debug2", "slurm.log_debug2('%x', 255)", ScriptLogLevel::Debug2, "ff"},
      {"log_debug3 logs at debug3", "slurm.log_debug3('%q', 'q')", ScriptLogLevel::Debug3, "\"q\""},
      {"log_debug4 logs at debug4", "slurm.log_debug4('plain')", ScriptLogLevel::Debug4, "plain"},
      {"log(0, msg) is info", "slurm.log(0, 'zero')", ScriptLogLevel::Info, "zero"},
      {"log(1, msg) is verbose", "slurm.log(1, 'one')", ScriptLogLevel::Verbose, "one"},
      {"log(2, msg) is debug", "slurm.log(2, 'two')", ScriptLogLevel::Debug, "two"},
      {"log(3, msg) is debug2", "slurm.log(3, 'three')", ScriptLogLevel::Debug2, "three"},
      {"log(4, msg) is debug3", "slurm.log(4, 'four')", ScriptLogLevel::Debug3, "four"},
      {"log(5, msg) is debug4", "slurm.log(5, 'five')", ScriptLogLevel::Debug4, "five"},
      {"log above 5 stays at debug4", "slurm.log(9, 'nine')", ScriptLogLevel::Debug4, "nine"},
      {"log below 0 is info", "slurm.log(-2, 'below')", ScriptLogLevel::Info, "below"},
      {"log does not format its message", "slurm.log(0, '%d%%')", ScriptLogLevel::Info, "%d%%"},
      {"error(msg) logs at error and does not raise", "slurm.error('fabric %s')", ScriptLogLevel::Error,
       "fabric %s"},
      {"a NUL byte does not cut the line short", "slurm.log_info('a\\0b')", ScriptLogLevel::Info,
       std::string("a\0b", 3)},
      {"log with no arguments logs nothing", "slurm.log()\nslurm.log(0, 'after')", ScriptLogLevel::Info, "after"},
      {"print logs at info, its values joined by tabs", "print('links', 3, true, nil)", ScriptLogLevel::Info,
       "links\t3\ttrue\tnil"},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      CapturedLog log;
      auto result = run(row.statement + "\nreturn 0", &log);
      INFO(result.message);
      REQUIRE(result.outcome == CallOutcome::Returned);
      REQUIRE(log.lines().size() == 1);
      CHECK(log.lines()[0].first == row.level);
      CHECK(log.lines()[0].second == "switch/lua: slurm_switch_step_init: " + row.line);
    }
  }
}

TEST_CASE("slurm table: a bad format is a Lua error at the script's line", "[switchlua][slurm]") {
  auto result = run("local x = 1\nslurm.log_info('%d ports', 'many')");
  CHECK(result.outcome == CallOutcome::LuaError);
  INFO(result.message);
  CHECK(result.message.find("switch.lua:3: slurm.log_info: bad argument #2 to 'string.format'") != std::string::npos);
}

TEST_CASE("slurm table: text conversions, one rule per row", "[switchlua][slurm][convert]") {
  struct ConvertRow {
    std::string rule;
    std::string expression;  // a string the test compares
    std::string expected;
  };
  const std::vector<ConvertRow> rows = {
      {"to_json writes an object with sorted keys", "slurm.to_json({ vni = 812, up = true, tag = 'x' })",
       R"({"tag":"x","up":true,"vni":812})"},
      {"to_json writes a sequence as an array", "slurm.to_json({ 'n3', 'n5' })", R"(["n3","n5"])"},
      {"to_json writes the empty table as an object", "slurm.to_json({})", "{}"},
      {"to_json keeps integers and floats apart", "slurm.to_json({ 3, 3.0, 0.5 })", "[3,3.0,0.5]"},
      {"from_json reads objects, arrays and numbers",
       "(function() local t = slurm.from_json('{\"a\": [7, 8.5], \"b\": \"s\"}')"
       " return t.a[1] .. ' ' .. t.a[2] .. ' ' .. t.b .. ' ' .. math.type(t.a[1]) end)()",
       "7 8.5 s integer"},
      {"from_json reads null as nil", "tostring(slurm.from_json('{\"gone\": null}').gone)", "nil"},
      {"to_yaml quotes strings so they read back as strings",
       "slurm.to_yaml({ mode = 'true', count = 12, ratio = 0.75, on = false })",
       "\"count\": 12\n\"mode\": \"true\"\n\"on\": false\n\"ratio\": 0.75\n"},
      {"to_yaml writes sequences and empty tables", "slurm.to_yaml({ ports = { 4, 9 }, extra = {} })",
       "\"extra\": {}\n\"ports\":\n  - 4\n  - 9\n"},
      {"from_yaml reads plain scalars by the core schema",
       "(function() local t = slurm.from_yaml('n: 14\\nr: 2.5\\nb: true\\ns: fabric\\nq: \"14\"\\nz: ~')"
       " return math.type(t.n) .. ' ' .. t.r .. ' ' .. tostring(t.b) .. ' ' .. t.s .. ' ' .. type(t.q) .. ' ' .. "
       "tostring(t.z) end)()",
       "integer 2.5 true fabric string nil"},
      {"to_yaml and from_yaml keep awkward strings intact",
       "slurm.from_yaml(slurm.to_yaml({ s = 'a: b\\n- c # \\'d\\' \"e\"' })).s", "a: b\n- c # 'd' \"e\""},
      {"from_json reads arrays nested 100 deep",
       "tostring(#slurm.from_json(string.rep('[', 100) .. string.rep(']', 100)))", "1"},
      {"to_json writes tables nested 100 deep",
       "(function() local t = {}; local top = t; for i = 1, 99 do t[1] = {}; t = t[1] end;"
       " return tostring(#slurm.to_json(top)) end)()", "200"},
      {"from_yaml reads sequences", "slurm.to_json(slurm.from_yaml('- c1\\n- c2\\n'))", R"(["c1","c2"])"},
      {"to_yaml and from_yaml round-trip a nested table",
       "slurm.to_json(slurm.from_yaml(slurm.to_yaml({ fabric = { vlan = 19, hosts = { 'a', 'b' } } })))",
       R"({"fabric":{"hosts":["a","b"],"vlan":19}})"},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.rule) { CHECK(text(row.expression) == row.expected); }
  }
}

TEST_CASE("slurm table: conversions that cannot be done raise an error naming what", "[switchlua][slurm][convert]") {
  struct FailRow {
    std::string rule;
    std::string statement;
    std::string message;
  };
  const std::vector<FailRow> rows = {
      {"to_json refuses a function", "slurm.to_json({ cb = print })", "slurm.to_json: at cb: a function cannot be converted"},
      {"to_json refuses a table that contains itself", "local t = {}; t.me = t; slurm.to_json(t)",
       "slurm.to_json: at me.me."},
      {"to_yaml refuses a fractional key", "slurm.to_yaml({ [1.5] = 'x' })",
       "slurm.to_yaml: at the top: a key that is a fractional number"},
      {"from_json refuses text that is not JSON", "slurm.from_json('{vlan: 3}')", "slurm.from_json: "},
      {"from_yaml refuses text that is not YAML", "slurm.from_yaml('a: [1, 2')", "slurm.from_yaml: "},
      {"from_yaml refuses a mapping key that is not a scalar", "slurm.from_yaml('? [p, q]\\n: 1\\n')",
       "slurm.from_yaml: a mapping key that is not a scalar"},
      {"from_json refuses arrays nested more than 100 deep",
       "slurm.from_json(string.rep('[', 101) .. string.rep(']', 101))",
       "slurm.from_json: nested more than 100 levels deep"},
      {"from_json refuses very deep text without exhausting the stack",
       "slurm.from_json(string.rep('{\"k\":', 300000) .. '1' .. string.rep('}', 300000))",
       "slurm.from_json: nested more than 100 levels deep"},
      {"from_yaml refuses sequences nested more than 100 deep",
       "slurm.from_yaml(string.rep('[', 101) .. string.rep(']', 101))", "slurm.from_yaml: "},
      {"to_json refuses tables nested more than 100 deep",
       "local t = {}; local top = t; for i = 1, 100 do t[1] = {}; t = t[1] end; slurm.to_json(top)",
       "tables nested more than 100 levels deep"},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto result = run(row.statement + "\nreturn 0");
      CHECK(result.outcome == CallOutcome::LuaError);
      INFO(result.message);
      CHECK(result.message.find(row.message) != std::string::npos);
      // A script can catch it.
      auto caught = run("local ok = pcall(function() " + row.statement + " end)\nreturn ok and 1 or 2");
      CHECK(caught.number == 2.0);
    }
  }
}
