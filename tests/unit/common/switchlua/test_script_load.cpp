// Loading switch.lua at daemon start: the spec's four reasons a script
// does not load, each with its "switch/lua:" line, and the line logged
// when it does.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "common/switchlua/messages.h"
#include "common/switchlua/script_load.h"
#include "switchlua_fixtures.h"

using namespace gantry::switchlua;
using namespace gantry::switchlua::test;

namespace {

const std::string kFixtures = "tests/fixtures/switch-lua/";

struct LoadRow {
  std::string rule;
  std::string file;
  // Checks the error message; empty for a script that loads.
  std::function<void(const std::string&)> checkError;
};

void startsWith(const std::string& text, const std::string& prefix) {
  INFO(text);
  CHECK(text.rfind(prefix, 0) == 0);
}

}  // namespace

TEST_CASE("loading switch.lua: one rule per row", "[switchlua][load]") {
  const std::vector<LoadRow> rows = {
      {"a missing file cannot be stat'ed", "absent.lua",
       [](const std::string& error) {
         CHECK(error == "switch/lua: Unable to stat " + kFixtures + "absent.lua: No such file or directory");
       }},
      {"a syntax error names the file and the line", "syntax_error.lua",
       [](const std::string& error) {
         startsWith(error, "switch/lua: syntax error: " + kFixtures + "syntax_error.lua:");
         CHECK(error.find("'end' expected") != std::string::npos);
       }},
      {"an error raised at top level says so, with file and line", "top_level_error.lua",
       [](const std::string& error) {
         startsWith(error, "switch/lua: error at top level: " + kFixtures + "top_level_error.lua:3:");
       }},
      {"an error value that is not a string is named by its type", "top_level_error_table.lua",
       [](const std::string& error) {
         CHECK(error == "switch/lua: error at top level: " + kFixtures +
                            "top_level_error_table.lua: (error object is a table value)");
       }},
      {"a top level returning a number other than SUCCESS is 'returned N on load'", "returns_nine.lua",
       [](const std::string& error) {
         CHECK(error == "switch/lua: " + kFixtures + "returns_nine.lua: returned 9 on load");
       }},
      {"returning slurm.ERROR at top level is refused too", "returns_error.lua",
       [](const std::string& error) {
         CHECK(error == "switch/lua: " + kFixtures + "returns_error.lua: returned -1 on load");
       }},
      {"a fractional number is not SUCCESS either", "returns_fraction.lua",
       [](const std::string& error) {
         CHECK(error == "switch/lua: " + kFixtures + "returns_fraction.lua: returned 0.25 on load");
       }},
      {"os.exit at top level fails the load instead of ending the daemon", "exits_at_top.lua",
       [](const std::string& error) {
         CHECK(error == "switch/lua: " + kFixtures + "exits_at_top.lua: script called os.exit at top level");
       }},
      {"a directory is not a script", "",
       [](const std::string& error) { startsWith(error, "switch/lua: cannot "); }},
      {"returning slurm.SUCCESS loads", "returns_success.lua", nullptr},
      {"returning nothing loads", "returns_nothing.lua", nullptr},
      {"returning something that is not a number loads", "returns_text.lua", nullptr},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      CapturedLog log;
      auto loaded = loadScript(kFixtures + row.file, log.sink());
      if (row.checkError) {
        REQUIRE_FALSE(loaded.ok());
        row.checkError(loaded.error());
        CHECK_FALSE(log.mentions(std::string(kScriptLoaded)));
      } else {
        INFO((loaded.ok() ? "" : loaded.error()));
        REQUIRE(loaded.ok());
        CHECK(log.has(ScriptLogLevel::Info, std::string(kScriptLoaded)));
      }
    }
  }
}

TEST_CASE("loading switch.lua: the daemon's lines are the spec's", "[switchlua][load]") {
  CHECK(kScriptLoaded == "switchlua: script loaded");
  CHECK(kFatalLine == "fatal: Can't find plugin for switch/lua");
  CHECK(kFatalLine.substr(std::string_view("fatal: ").size()) == kFatalMessage);
  auto loaded = loadScript(kFixtures + "absent.lua", nullptr);
  REQUIRE_FALSE(loaded.ok());
  // Logged at the error level, the message reads "error: switch/lua: ...".
  CHECK(loaded.error().rfind("switch/lua: ", 0) == 0);
}

TEST_CASE("loading switch.lua: the top level's lines come first, marked top level", "[switchlua][load]") {
  CapturedLog log;
  REQUIRE(loadScript(kFixtures + "returns_success.lua", log.sink()).ok());
  REQUIRE(log.lines().size() == 2);
  CHECK(log.lines()[0] ==
        std::pair{ScriptLogLevel::Info, std::string("switch/lua: top level: fabric helper ready on 48 ports")});
  CHECK(log.lines()[1] == std::pair{ScriptLogLevel::Info, std::string("switchlua: script loaded")});
}
