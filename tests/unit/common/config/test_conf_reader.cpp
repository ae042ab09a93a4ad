#include <catch2/catch.hpp>

#include "common/config/conf_reader.h"

using namespace gantry::config;

namespace {
const KeyValue& pairAt(const ReadResult& r, std::size_t line, std::size_t index) {
  REQUIRE(line < r.lines.size());
  REQUIRE(index < r.lines[line].pairs.size());
  return r.lines[line].pairs[index];
}
}  // namespace

TEST_CASE("reader: pairs, comments and line numbers", "[config][reader]") {
  auto r = readConfText("# comment\nClusterName=x   # trailing\n\nA=1 B=2\n", "t.conf");
  REQUIRE(r.diagnostics.ok());
  REQUIRE(r.lines.size() == 2);
  CHECK(r.lines[0].line == 2);
  CHECK(pairAt(r, 0, 0).value == "x");
  CHECK(r.lines[1].line == 4);
  CHECK(pairAt(r, 1, 1).key == "B");
}

TEST_CASE("reader: escaped hash, quotes, spaces around '='", "[config][reader]") {
  auto r = readConfText("Prolog=\"/opt/my prolog.sh\" Tag=a\\#b\nSchedulerTimeSlice = 30\r\nX=\"keep # this\"\n",
                        "t.conf");
  REQUIRE(r.diagnostics.ok());
  CHECK(pairAt(r, 0, 0).value == "/opt/my prolog.sh");
  CHECK(pairAt(r, 0, 1).value == "a#b");
  CHECK(pairAt(r, 1, 0).key == "SchedulerTimeSlice");
  CHECK(pairAt(r, 1, 0).value == "30");
  CHECK(pairAt(r, 2, 0).value == "keep # this");
}

TEST_CASE("reader: backslash continues a line", "[config][reader]") {
  auto r = readConfText("NodeName=a \\\n  CPUs=4 \\\n  Gres=gpu:1\nB=2\n", "t.conf");
  REQUIRE(r.diagnostics.ok());
  REQUIRE(r.lines.size() == 2);
  CHECK(r.lines[0].pairs.size() == 3);
  CHECK(r.lines[0].line == 1);
  CHECK(r.lines[1].line == 4);
}

TEST_CASE("reader: syntax errors name file and line", "[config][reader]") {
  auto r = readConfText("A=1\nnonsense\nB=\"open\n", "bad.conf");
  REQUIRE(r.diagnostics.errors.size() == 2);
  CHECK(r.diagnostics.errors[0].toString() == "bad.conf:2: expected Key=Value, found \"nonsense\"");
  CHECK_THAT(r.diagnostics.errors[1].toString(), Catch::StartsWith("bad.conf:3:") && Catch::Contains("closing"));
}

TEST_CASE("reader: Include reads a file relative to the includer", "[config][reader]") {
  auto r = readConfFile("tests/fixtures/config/include/main.conf");
  REQUIRE(r.diagnostics.errorText() == "");
  REQUIRE(r.lines.size() == 4);
  CHECK(r.lines[2].pairs[0].key == "NodeName");
  CHECK_THAT(r.lines[2].file, Catch::EndsWith("nodes.conf"));
  CHECK(r.lines[2].line == 1);
}

TEST_CASE("reader: Include cycles, missing files and disabled includes", "[config][reader]") {
  auto cycle = readConfFile("tests/fixtures/config/include/cycle-a.conf");
  REQUIRE_FALSE(cycle.diagnostics.ok());
  CHECK_THAT(cycle.diagnostics.errorText(), Catch::Contains("cycle-b.conf:1: Include") && Catch::Contains("cycle"));

  auto missing = readConfFile("tests/fixtures/config/include/missing.conf");
  CHECK_THAT(missing.diagnostics.errorText(),
             Catch::Contains("missing.conf:2: Include: cannot open") && Catch::Contains("does-not-exist.conf"));

  auto off = readConfText("Include x.conf\n", "mem.conf", ReadOptions{.followIncludes = false});
  CHECK_THAT(off.diagnostics.errorText(), Catch::Contains("mem.conf:1: Include is not allowed"));

  auto absent = readConfFile("tests/fixtures/config/include/none.conf");
  CHECK_THAT(absent.diagnostics.errorText(), Catch::Contains("none.conf: cannot open"));
}
