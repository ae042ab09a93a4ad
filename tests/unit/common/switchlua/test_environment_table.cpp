// The environment table of slurm_switch_step_init(): strings and numbers
// are set, true sets "1", false unsets, anything else is skipped and said.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "common/switchlua/environment_table.h"
#include "common/switchlua/script_call.h"
#include "switchlua_fixtures.h"

using namespace gantry::switchlua;
using namespace gantry::switchlua::test;

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;
using Names = std::vector<std::string>;

TableEntry named(const std::string& name, EntryValueKind kind, const std::string& text = "",
                 const std::string& type = "string") {
  return TableEntry{.name = name, .keyText = name, .keyType = "string", .kind = kind, .text = text, .valueType = type};
}

}  // namespace

TEST_CASE("environment table: one rule per row", "[switchlua][environment]") {
  struct EnvRow {
    std::string rule;
    TableEntry entry;
    Pairs set;
    Names unset;
    std::string skipped;  // the line, when skipped
  };
  using K = EntryValueKind;
  const std::vector<EnvRow> rows = {
      {"a string sets the variable to it", named("FABRIC_MODE", K::String, "lossless"),
       {{"FABRIC_MODE", "lossless"}}, {}, ""},
      {"a number sets the variable to its text", named("FABRIC_VNI", K::Number, "3107", "number"),
       {{"FABRIC_VNI", "3107"}}, {}, ""},
      {"true sets the variable to 1", named("FABRIC_ON", K::True, "", "boolean"), {{"FABRIC_ON", "1"}}, {}, ""},
      {"false unsets the variable", named("FABRIC_OLD", K::False, "", "boolean"), {}, {"FABRIC_OLD"}, ""},
      {"an empty string is still a value", named("FABRIC_EMPTY", K::String, ""), {{"FABRIC_EMPTY", ""}}, {}, ""},
      {"another type of value is skipped and said", named("FABRIC_HOOK", K::Other, "", "function"), {}, {},
       "environment entry FABRIC_HOOK skipped: the value is a function"},
      {"a table value is skipped and said", named("FABRIC_LIST", K::Other, "", "table"), {}, {},
       "environment entry FABRIC_LIST skipped: the value is a table"},
      {"a name that is not a string is skipped and said",
       TableEntry{.keyText = "4", .keyType = "number", .kind = K::String, .text = "x", .valueType = "string"}, {},
       {}, "environment entry 4 skipped: the name is a number, not a string"},
      {"a name with '=' is skipped and said", named("A=B", K::String, "x"), {}, {},
       "environment entry A=B skipped: the name contains '='"},
      {"an empty name is skipped and said", named("", K::String, "x"), {}, {},
       "environment entry  skipped: the name is empty"},
      {"a value with a NUL byte is skipped and said", named("FABRIC_NUL", K::String, std::string("a\0b", 3)), {},
       {}, "environment entry FABRIC_NUL skipped: the value contains a NUL byte"},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto changes = environmentChanges({row.entry});
      CHECK(changes.set == row.set);
      CHECK(changes.unset == row.unset);
      if (row.skipped.empty()) {
        CHECK(changes.skipped.empty());
      } else {
        CHECK(changes.skipped == Names{row.skipped});
      }
    }
  }
}

TEST_CASE("environment table: from a step_init script to changes", "[switchlua][environment]") {
  ScriptFile file(
      "function slurm_switch_step_init(step, info)\n"
      "  return slurm.SUCCESS, { NET_RAILS = 3, NET_NAME = 'hsn', NET_FAST = true, NET_LEGACY = false,\n"
      "                          NET_RATE = 12.5, NET_F = 6.0, NET_CB = print, [9] = 'nine' }\n"
      "end\n");
  auto result = callFunction(file.path(), "slurm_switch_step_init", {"{}", std::nullopt}, nullptr);
  REQUIRE(result.outcome == CallOutcome::Returned);
  CHECK(result.number == 0.0);
  auto changes = environmentChanges(result.secondEntries);
  CHECK(changes.set == Pairs{{"NET_F", "6.0"}, {"NET_FAST", "1"}, {"NET_NAME", "hsn"}, {"NET_RAILS", "3"},
                             {"NET_RATE", "12.5"}});
  CHECK(changes.unset == Names{"NET_LEGACY"});
  CHECK(changes.skipped == Names{"environment entry 9 skipped: the name is a number, not a string",
                                 "environment entry NET_CB skipped: the value is a function"});
}
