#include <catch2/catch.hpp>

#include "stepd/core/step_spec.h"

using gantry::stepd::parseStepSpec;

namespace {
std::string stepWith(const std::string& io) {
  return R"({"job_id": 7, "step_id": "0", "uid": 1000, "gid": 1000, "work_dir": "/tmp",
             "argv": ["hostname"])" + io + "}";
}
}  // namespace

TEST_CASE("an interactive step names srun's endpoint in the io object", "[stepd][spec]") {
  auto spec = parseStepSpec(stepWith(R"(, "io": {"addr": "login1", "port": 40123, "token": "abc"})"));
  REQUIRE(spec.ok());
  REQUIRE(spec->io.has_value());
  CHECK(spec->io->addr == "login1");
  CHECK(spec->io->port == 40123);
  CHECK(spec->io->token == "abc");
  CHECK_FALSE(spec->io->pty);
  auto terminal = parseStepSpec(stepWith(R"(, "io": {"addr": "h", "port": 1, "pty": true})"));
  REQUIRE(terminal.ok());
  CHECK(terminal->io->pty);
}

TEST_CASE("srun's -o/-e/-i files ride in the io object", "[stepd][spec]") {
  auto spec = parseStepSpec(stepWith(
      R"(, "io": {"addr": "h", "port": 9, "stdout": "out-%t", "stderr": "/dev/null", "stdin": "in.txt"})"));
  REQUIRE(spec.ok());
  CHECK(spec->io->stdout_file == "out-%t");
  CHECK(spec->io->stderr_file == "/dev/null");
  CHECK(spec->io->stdin_file == "in.txt");
  auto plain = parseStepSpec(stepWith(R"(, "io": {"addr": "h", "port": 9})"));
  REQUIRE(plain.ok());
  CHECK(plain->io->stdout_file.empty());
  CHECK(plain->io->stdin_file.empty());
}

TEST_CASE("without io the step writes files as before", "[stepd][spec]") {
  auto spec = parseStepSpec(stepWith(""));
  REQUIRE(spec.ok());
  CHECK_FALSE(spec->io.has_value());
}

TEST_CASE("a malformed io object is refused naming the key", "[stepd][spec]") {
  auto noPort = parseStepSpec(stepWith(R"(, "io": {"addr": "login1"})"));
  REQUIRE_FALSE(noPort.ok());
  CHECK(noPort.error().find("\"io\"") != std::string::npos);
  auto notObject = parseStepSpec(stepWith(R"(, "io": "login1:4000")"));
  REQUIRE_FALSE(notObject.ok());
  CHECK(notObject.error().find("\"io\"") != std::string::npos);
  auto badPort = parseStepSpec(stepWith(R"(, "io": {"addr": "h", "port": 70000})"));
  CHECK_FALSE(badPort.ok());
}
