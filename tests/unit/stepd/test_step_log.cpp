#include <catch2/catch.hpp>

#include <regex>
#include <sstream>

#include "stepd/launcher/step_files.h"
#include "tests/unit/support/scratch.h"

using gantry::stepd::StepLog;

TEST_CASE("every line of a stepd.log record has its time, pid and level", "[stepd][log]") {
  gantry::testing::TempDir dir("step-log");
  StepLog log(dir.path().string());
  log.info("one line");
  log.warning("first of two\nsecond of two");
  log.error("trailing newline\n");
  std::istringstream lines(gantry::testing::readFile(dir.path() / "stepd.log"));
  const std::regex stamped(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \[\d+\] (info|warning|error): .*)");
  std::vector<std::string> seen;
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(std::regex_match(line, stamped));
    seen.push_back(line.substr(line.find("] ") + 2));
  }
  CHECK(seen == std::vector<std::string>{"info: one line", "warning: first of two", "warning: second of two",
                                         "error: trailing newline"});
}
