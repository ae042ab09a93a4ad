// The getopt_long reading every command shares: one row per rule.
#include <catch2/catch.hpp>

#include "cli/arg_parsing.h"
#include "cli/getopt_scan.h"

using gantry::cli::OperandOrder;
using gantry::cli::scanCommandLine;
using gantry::cli::usageErrorText;
using gantry::cli::usageExitCode;

namespace {

// A small command: value options with and without short names, flags, an
// option with two long names.
struct Fixture {
  CLI::App app{"test", "tool"};
  std::string text;
  bool flag = false;
  Fixture() {
    app.add_option("-w,--width", text, "");
    app.add_option("-d,--depth", text, "");
    app.add_option("--colour,--color", text, "");
    app.add_option("--wrap-at", text, "");
    app.add_flag("-q,--quick", flag, "");
    app.add_flag("-k,--keep", flag, "");
  }
};

struct Row {
  const char* rule;
  std::vector<std::string> words;
  OperandOrder order;
  std::vector<std::string> options;   // expected canonical options
  std::vector<std::string> operands;  // expected operands
  const char* error;                  // expected complaint, or nullptr
};

const Row kRows[] = {
    {"an unknown long option is refused in getopt's words", {"--bogus"}, OperandOrder::kAnywhere, {}, {},
     "unrecognized option '--bogus'"},
    {"the refusal quotes the word with its value", {"--bogus=7", "x"}, OperandOrder::kOptionsFirst, {}, {},
     "unrecognized option '--bogus=7'"},
    {"an unknown short option is refused", {"-Z"}, OperandOrder::kAnywhere, {}, {}, "invalid option -- 'Z'"},
    {"an unknown letter inside a bundle is refused", {"-qZ"}, OperandOrder::kAnywhere, {}, {},
     "invalid option -- 'Z'"},
    {"a long option without its value is refused", {"-q", "--width"}, OperandOrder::kAnywhere, {}, {},
     "option '--width' requires an argument"},
    {"an abbreviated option without its value is named in full", {"--dep"}, OperandOrder::kAnywhere, {}, {},
     "option '--depth' requires an argument"},
    {"a short option without its value is refused", {"-d"}, OperandOrder::kAnywhere, {}, {},
     "option requires an argument -- 'd'"},
    {"an ambiguous abbreviation lists the candidates", {"--w=3"}, OperandOrder::kAnywhere, {}, {},
     "option '--w=3' is ambiguous; possibilities: '--width' '--wrap-at'"},
    {"a unique abbreviation names its option", {"--wi=3", "--wr", "9"}, OperandOrder::kAnywhere,
     {"--width=3", "--wrap-at=9"}, {}, nullptr},
    {"two long names of one option are no ambiguity", {"--col=red"}, OperandOrder::kAnywhere, {"--colour=red"}, {},
     nullptr},
    {"the exact name wins over longer ones", {"--color", "blue"}, OperandOrder::kAnywhere, {"--colour=blue"}, {},
     nullptr},
    {"short flags bundle and the last letter may take the rest", {"-qkw12"}, OperandOrder::kAnywhere,
     {"--quick", "--keep", "--width=12"}, {}, nullptr},
    {"a value is the next word even when it starts with a dash", {"-w", "-k", "--depth", "--quick"},
     OperandOrder::kAnywhere, {"--width=-k", "--depth=--quick"}, {}, nullptr},
    {"the first operand ends the options of a launcher", {"-q", "prog", "-k", "--bogus"},
     OperandOrder::kOptionsFirst, {"--quick"}, {"prog", "-k", "--bogus"}, nullptr},
    {"a double dash ends the options and is dropped", {"-k", "--", "-q", "x"}, OperandOrder::kOptionsFirst,
     {"--keep"}, {"-q", "x"}, nullptr},
    {"other commands take options after operands", {"show", "-q", "job", "--depth=2"}, OperandOrder::kAnywhere,
     {"--quick", "--depth=2"}, {"show", "job"}, nullptr},
    {"a lone dash is an operand", {"-", "-q"}, OperandOrder::kOptionsFirst, {}, {"-", "-q"}, nullptr},
};

}  // namespace

TEST_CASE("command lines are read as getopt_long reads them", "[cli][getopt]") {
  for (const Row& row : kRows) {
    SECTION(row.rule) {
      Fixture fixture;
      auto scanned = scanCommandLine(fixture.app, row.words, row.order);
      if (row.error != nullptr) {
        REQUIRE_FALSE(scanned.ok());
        CHECK(scanned.error() == row.error);
      } else {
        REQUIRE(scanned.ok());
        CHECK(scanned->options == row.options);
        CHECK(scanned->operands == row.operands);
      }
    }
  }
}

TEST_CASE("each command words getopt's complaint and exits as Slurm's does", "[cli][getopt]") {
  struct Expect {
    const char* command;
    const char* text;
    int exitCode;
  };
  const Expect rows[] = {
      {"srun", "srun: invalid option -- 'Z'\nTry \"srun --help\" for more information\n", 255},
      {"salloc", "salloc: invalid option -- 'Z'\nTry \"salloc --help\" for more information\n", 255},
      {"sbatch", "sbatch: invalid option -- 'Z'\nTry \"sbatch --help\" for more information\n", 255},
      {"squeue", "squeue: invalid option -- 'Z'\nTry \"squeue --help\" for more information\n", 1},
      {"sinfo", "sinfo: invalid option -- 'Z'\nTry \"sinfo --help\" for more information\n", 1},
      {"scontrol", "scontrol: invalid option -- 'Z'\nTry \"scontrol --help\" for more information\n", 1},
      {"scancel", "scancel: invalid option -- 'Z'\nTry \"scancel --help\" for more information\n", 1},
      {"sacct", "sacct: invalid option -- 'Z'\n", 1},
  };
  for (const Expect& row : rows) {
    CHECK(usageErrorText(row.command, "invalid option -- 'Z'") == row.text);
    CHECK(usageExitCode(row.command) == row.exitCode);
  }
}

TEST_CASE("a refused line assigns nothing", "[cli][getopt]") {
  Fixture fixture;
  auto parsed = gantry::cli::parseWords(fixture.app, {"-q", "--width=5", "--nope"});
  REQUIRE(parsed.ok());
  CHECK(parsed->usageError == "unrecognized option '--nope'");
  CHECK_FALSE(fixture.flag);
  CHECK(fixture.text.empty());
}
