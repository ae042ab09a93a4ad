#include <catch2/catch.hpp>

#include "cli/dispatch.h"

using namespace gantry::cli;

namespace {
const std::vector<std::string> kKnown = {"sbatch", "scancel", "scontrol", "sinfo", "squeue"};
}

TEST_CASE("a symlink name picks the subcommand", "[cli][dispatch]") {
  auto invocation = resolveInvocation("/usr/bin/squeue", {"-h", "-u", "alice"}, kKnown);
  REQUIRE(invocation.ok());
  CHECK(invocation->subcommand == "squeue");
  CHECK(invocation->args == std::vector<std::string>{"-h", "-u", "alice"});
}

TEST_CASE("gantry takes the subcommand from its first word", "[cli][dispatch]") {
  auto invocation = resolveInvocation("./gantry", {"sbatch", "--wrap", "true"}, kKnown);
  REQUIRE(invocation.ok());
  CHECK(invocation->subcommand == "sbatch");
  CHECK(invocation->args == std::vector<std::string>{"--wrap", "true"});
}

TEST_CASE("a missing or unknown subcommand lists the known ones", "[cli][dispatch]") {
  CHECK_THAT(resolveInvocation("gantry", {}, kKnown).error(),
             Catch::Contains("no subcommand given") && Catch::Contains("squeue"));
  CHECK_THAT(resolveInvocation("gantry", {"sfrob"}, kKnown).error(),
             Catch::Contains("unknown subcommand 'sfrob'"));
  CHECK(programName("/a/b/sinfo") == "sinfo");
  CHECK(programName("sinfo") == "sinfo");
}
