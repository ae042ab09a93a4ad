#include <catch2/catch.hpp>
#include <regex>
#include <spdlog/spdlog.h>

#include "common/util/logging.h"
#include "tests/unit/support/scratch.h"

using namespace gantry;

namespace {

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("a log record of several lines gives every line its time and level", "[logging]") {
  testing::TempDir dir("gantry-logging");
  auto file = dir.path() / "agent.log";
  REQUIRE(setupLogging("logtest", file.string(), "info").ok());
  spdlog::error("reconfigure failed:\n{}\n{}", "gres.conf:4: bad Count", "gres.conf:9: bad File");
  spdlog::warn("one line only\n");  // a trailing newline does not make an empty line
  spdlog::default_logger()->flush();

  auto lines = linesOf(testing::readFile(file));
  REQUIRE(lines.size() == 4);
  const std::regex stamped(R"(^\[\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\] logtest (error|warning): .*)");
  for (const auto& line : lines) CHECK(std::regex_match(line, stamped));
  CHECK(lines[0].ends_with("logtest error: reconfigure failed:"));
  CHECK(lines[1].ends_with("logtest error: gres.conf:4: bad Count"));
  CHECK(lines[2].ends_with("logtest error: gres.conf:9: bad File"));
  CHECK(lines[3].ends_with("logtest warning: one line only"));
  spdlog::drop("logtest");
}
