#include <catch2/catch.hpp>

#include "cli/sbatch_script.h"

using namespace gantry::cli;

TEST_CASE("directives are read until the first command", "[cli][sbatch]") {
  std::string script =
      "#!/bin/bash\n"
      "# a comment\n"
      "\n"
      "#SBATCH -N 2 --time=10\n"
      "#SBATCH --job-name=\"my job\"   # trailing comment\n"
      "#SBATCHX --not-a-directive\n"
      "echo hello\n"
      "#SBATCH --partition=late\n";
  auto directives = readDirectives(script);
  REQUIRE(directives.ok());
  REQUIRE(directives->size() == 2);
  CHECK((*directives)[0].line == 4);
  CHECK((*directives)[0].words == std::vector<std::string>{"-N", "2", "--time=10"});
  CHECK((*directives)[1].line == 5);
  CHECK((*directives)[1].words == std::vector<std::string>{"--job-name=my job"});
}

TEST_CASE("a script without directives has none", "[cli][sbatch]") {
  auto directives = readDirectives("#!/bin/sh\nsleep 1\n");
  REQUIRE(directives.ok());
  CHECK(directives->empty());
}

TEST_CASE("an unterminated quote names the line", "[cli][sbatch]") {
  auto directives = readDirectives("#!/bin/sh\n#SBATCH -J 'oops\nsleep 1\n");
  REQUIRE_FALSE(directives.ok());
  CHECK_THAT(directives.error(), Catch::Contains("line 2") && Catch::Contains("unterminated"));
}

TEST_CASE("shell words honour quotes and escapes", "[cli][sbatch]") {
  auto words = splitShellWords(R"(a "b c" 'd e' f\ g "h\"i")");
  REQUIRE(words.ok());
  CHECK(*words == std::vector<std::string>{"a", "b c", "d e", "f g", "h\"i"});
}

TEST_CASE("a backslash escapes inside quotes too, as Slurm reads directives", "[cli][sbatch]") {
  auto words = splitShellWords(R"(-o 'log\ dir/out' -e "x\ y" 'it\'s')");
  REQUIRE(words.ok());
  CHECK(*words == std::vector<std::string>{"-o", "log dir/out", "-e", "x y", "it's"});
}

TEST_CASE("--wrap makes a /bin/sh script", "[cli][sbatch]") {
  CHECK(wrapCommand("hostname") == "#!/bin/sh\nhostname\n");
}
