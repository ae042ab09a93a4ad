// The dictionary returned by slurm_switch_job_start(): the spec's limits
// (32768 entries over every nested table, 16 levels of tables) and how each
// kind of Lua value is converted.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/switchlua/script_call.h"
#include "switchlua_fixtures.h"

using namespace gantry::switchlua;
using namespace gantry::switchlua::test;

namespace {

// `build` is Lua that leaves the dictionary in local `d`.
CallResult returning(const std::string& build) {
  ScriptFile file("function slurm_switch_job_start(job)\n" + build + "\nreturn slurm.SUCCESS, d\nend\n");
  return callFunction(file.path(), "slurm_switch_job_start", {}, nullptr);
}

// `groups` nested tables of `each` entries: groups * (each + 1) entries.
std::string grouped(int groups, int each) {
  return "local d = {}\nfor g = 1, " + std::to_string(groups) + " do\n  local t = {}\n  for i = 1, " +
         std::to_string(each) + " do t['k' .. i] = i end\n  d['g' .. g] = t\nend";
}

// Tables nested `levels` deep, the outermost counted as 1.
std::string nested(int levels) {
  return "local d = { depth = 1 }\nlocal t = d\nfor i = 2, " + std::to_string(levels) +
         " do t.inner = { depth = i }; t = t.inner end";
}

}  // namespace

TEST_CASE("dictionary limits: one rule per row", "[switchlua][dictionary]") {
  struct LimitRow {
    std::string rule;
    std::string build;
    DictionaryStatus status;
  };
  const std::vector<LimitRow> rows = {
      {"32768 entries in one table are kept",
       "local d = {}\nfor i = 1, 32768 do d['e' .. i] = i end", DictionaryStatus::Present},
      {"32769 entries are too many", "local d = {}\nfor i = 1, 32769 do d['e' .. i] = i end",
       DictionaryStatus::TooLarge},
      {"entries of nested tables count, and so does the entry holding each", grouped(4096, 7),
       DictionaryStatus::Present},
      {"one more nested entry is too many", grouped(4096, 7) + "\nd.g1.extra = true", DictionaryStatus::TooLarge},
      {"a sequence counts one entry per element",
       "local d = { list = {} }\nfor i = 1, 32767 do d.list[i] = i end", DictionaryStatus::Present},
      {"16 levels of tables are kept", nested(16), DictionaryStatus::Present},
      {"17 levels are too deep", nested(17), DictionaryStatus::TooDeep},
      {"a table that contains itself is too deep", "local d = { name = 'loop' }\nd.self = d",
       DictionaryStatus::TooDeep},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto result = returning(row.build);
      INFO(result.message << result.dictionaryProblem);
      REQUIRE(result.outcome == CallOutcome::Returned);
      CHECK(result.number == 0.0);
      CHECK(result.dictionary == row.status);
      if (row.status == DictionaryStatus::Present) CHECK_FALSE(result.dictionaryJson.empty());
      if (row.status != DictionaryStatus::Present) CHECK(result.dictionaryJson.empty());
    }
  }
  CHECK(toString(DictionaryStatus::TooLarge) == "dictionary too large");
  CHECK(toString(DictionaryStatus::TooDeep) == "dictionary too deep");
}

TEST_CASE("dictionary conversion: one rule per row", "[switchlua][dictionary]") {
  struct ConvertRow {
    std::string rule;
    std::string build;
    DictionaryStatus status;
    std::string json;  // the dictionary, or a part of the problem
  };
  using S = DictionaryStatus;
  const std::vector<ConvertRow> rows = {
      {"strings, integers, floats and booleans are kept as they are",
       "local d = { name = 'ib0', vni = 4021, share = 0.5, up = true, down = false }", S::Present,
       R"({"down":false,"name":"ib0","share":0.5,"up":true,"vni":4021})"},
      {"a float with no fraction stays a float", "local d = { width = 8.0 }", S::Present, R"({"width":8.0})"},
      {"a table with the keys 1..n is an array in key order", "local d = { hosts = { 'c4', 'c2', 'c9' } }",
       S::Present, R"({"hosts":["c4","c2","c9"]})"},
      {"integer keys that are not 1..n are written as their decimal text",
       "local d = { ports = { [3] = 'a', [7] = 'b' } }", S::Present, R"({"ports":{"3":"a","7":"b"}})"},
      {"integer and string keys together make an object", "local d = { 'first', mode = 'x' }", S::Present,
       R"({"1":"first","mode":"x"})"},
      {"the empty table is an empty object", "local d = { spare = {} }", S::Present, R"({"spare":{}})"},
      {"an empty dictionary is kept (the job is managed)", "local d = {}", S::Present, "{}"},
      {"an integer key that equals a string key cannot be read", "local d = { [5] = 'n', ['5'] = 's' }",
       S::Unreadable, "the key 5 is there both as a number and as a string"},
      {"a function cannot be read", "local d = { hook = function() end }", S::Unreadable,
       "at hook: a function cannot be converted"},
      {"a coroutine cannot be read", "local d = { co = coroutine.create(print) }", S::Unreadable,
       "at co: a thread cannot be converted"},
      {"a boolean key cannot be read", "local d = { [true] = 1 }", S::Unreadable,
       "at the top: a key that is a boolean"},
      {"a fractional key cannot be read", "local d = { [2.5] = 1 }", S::Unreadable,
       "at the top: a key that is a fractional number"},
      {"an infinite number cannot be read", "local d = { rate = { math.huge } }", S::Unreadable,
       "at rate[1]: the number inf cannot be converted"},
      {"a string that is not UTF-8 cannot be read", "local d = { raw = '\\xff\\xfe' }", S::Unreadable,
       "at raw: a string that is not UTF-8"},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto result = returning(row.build);
      INFO(result.message << result.dictionaryProblem);
      REQUIRE(result.outcome == CallOutcome::Returned);
      CHECK(result.dictionary == row.status);
      if (row.status == S::Present) {
        CHECK(result.dictionaryJson == row.json);
      } else {
        CHECK(result.dictionaryProblem.find(row.json) != std::string::npos);
      }
    }
  }
}

TEST_CASE("dictionary: jobinfo handed back is the table that was returned", "[switchlua][dictionary]") {
  auto first = returning("local d = { vni = 77, hosts = { 'x1', 'x2' }, opts = { mtu = 9000, lossless = true } }");
  REQUIRE(first.dictionary == DictionaryStatus::Present);
  ScriptFile file(
      "function slurm_switch_job_complete(job, info)\n"
      "  return slurm.SUCCESS, info\n"
      "end\n");
  auto back = callFunction(file.path(), "slurm_switch_job_complete", {"{}", first.dictionaryJson}, nullptr);
  CHECK(back.dictionaryJson == first.dictionaryJson);
}
