// --help, --usage, -V and unknown options of the query and admin commands,
// run through the subcommands themselves: none of these needs a
// controller, so no cluster is started and none is configured.
#include <catch2/catch.hpp>

#include <iostream>
#include <sstream>

#include "cli/help_flags.h"
#include "cli/scontrol_help.h"
#include "cli/subcommands.h"

using namespace gantry::cli;

namespace {

struct Printed {
  int status = 0;
  std::string out;
  std::string err;
};

Printed runCaptured(int (*subcommand)(const std::vector<std::string>&), const std::vector<std::string>& args) {
  std::ostringstream out, err;
  auto* oldOut = std::cout.rdbuf(out.rdbuf());
  auto* oldErr = std::cerr.rdbuf(err.rdbuf());
  int status = subcommand(args);
  std::cout.rdbuf(oldOut);
  std::cerr.rdbuf(oldErr);
  return Printed{status, out.str(), err.str()};
}

struct CommandRow {
  const char* name;
  int (*run)(const std::vector<std::string>&);
  const char* firstLine;                 // of --help
  std::vector<const char*> spellings;    // every option the command accepts, as the help shows it
};

const std::vector<CommandRow>& commandRows() {
  static const std::vector<CommandRow> rows = {
      {"sinfo", runSinfo, "Usage: sinfo [OPTIONS]",
       {"-N, --Node", "-R, --list-reasons", "-h, --noheader", "-o, --format=format", "-O, --Format=field(s)",
        "-p, --partition=partition(s)", "--json", "--conf-dir=", "-V, --version"}},
      {"squeue", runSqueue, "Usage: squeue [OPTIONS]",
       {"-h, --noheader", "-j, --jobs=job(s)", "-u, --user=user_name(s)", "--me", "-t, --states=state(s)",
        "-p, --partition=partition(s)", "-o, --format=format", "-O, --Format=field(s)", "-s, --steps=step(s)",
        "--json", "--conf-dir=", "-V, --version"}},
      {"scancel", runScancel, "Usage: scancel [OPTIONS] [job_id[_array_id][.step_id]]",
       {"-u, --user=user_name", "-s, --signal=name|number", "-b, --batch", "-f, --full", "--conf-dir=",
        "-V, --version"}},
  };
  return rows;
}

}  // namespace

TEST_CASE("query commands: --help starts with the usage line and lists every accepted option",
          "[cli][help]") {
  for (const CommandRow& row : commandRows()) {
    SECTION(row.name) {
      Printed help = runCaptured(row.run, {"--help"});
      CHECK(help.status == 0);
      CHECK(help.err.empty());
      CHECK(help.out.substr(0, help.out.find('\n')) == row.firstLine);
      for (const char* spelling : row.spellings) {
        INFO(spelling);
        // A long-only option sits where the short one would be, as in Slurm.
        std::string shown = std::string(spelling).starts_with("--") ? "    " + std::string(spelling) : spelling;
        CHECK(help.out.find("\n  " + shown) != std::string::npos);
      }
    }
  }
}

TEST_CASE("query commands: the Help options block comes last with --help and --usage", "[cli][help]") {
  for (const CommandRow& row : commandRows()) {
    SECTION(row.name) {
      std::string out = runCaptured(row.run, {"--help"}).out;
      size_t block = out.find("\nHelp options:\n");
      REQUIRE(block != std::string::npos);
      std::string tail = out.substr(block);
      CHECK(tail.find("\n      --help ") != std::string::npos);
      CHECK(tail.find("\n      --usage ") != std::string::npos);
      CHECK(tail.find("\n\n") == std::string::npos);  // nothing after it
    }
  }
}

TEST_CASE("query commands: --usage, -V, --version and an unknown option, one rule per row", "[cli][help]") {
  struct Row {
    const char* rule;
    std::vector<std::string> args;
    int status;
    const char* outStart;  // what stdout starts with ("" for nothing)
    const char* errText;   // all of stderr, %s for the command's name
  };
  const std::vector<Row> rows = {
      {"--usage prints the short usage", {"--usage"}, 0, "Usage: %s [", ""},
      {"-V prints the Slurm version line", {"-V"}, 0, "slurm 26.11.0\n", ""},
      {"--version is -V", {"--version"}, 0, "slurm 26.11.0\n", ""},
      {"--help wins over -V", {"-V", "--help"}, 0, "Usage: %s [OPTIONS]", ""},
      {"an unknown long option is refused with getopt's words and the --help hint",
       {"--frobnicate"}, 1, "",
       "%s: unrecognized option '--frobnicate'\nTry \"%s --help\" for more information\n"},
  };
  auto named = [](std::string text, const std::string& command) {
    for (size_t at = text.find("%s"); at != std::string::npos; at = text.find("%s", at)) text.replace(at, 2, command);
    return text;
  };
  for (const CommandRow& command : commandRows()) {
    for (const Row& row : rows) {
      SECTION(std::string(command.name) + ": " + row.rule) {
        Printed printed = runCaptured(command.run, row.args);
        CHECK(printed.status == row.status);
        CHECK(printed.out.starts_with(named(row.outStart, command.name)));
        if (row.outStart[0] == '\0') CHECK(printed.out.empty());
        CHECK(printed.err == named(row.errText, command.name));
      }
    }
  }
}

TEST_CASE("scontrol: help lists its options and every command it runs", "[cli][help][scontrol]") {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--help"}, {"-h"}, {"--usage"}, {"help"}}) {
    SECTION(args.front()) {
      Printed help = runCaptured(runScontrol, args);
      CHECK(help.status == 0);
      CHECK(help.out.starts_with("scontrol [<OPTION>] [<COMMAND>]\n    Valid <OPTION> values are:\n"));
      for (const char* option : {"-d or --details: ", "--json: ", "--conf-dir=<value>: ", "-V or --version: ",
                                 "-h or --help: ", "--usage: "}) {
        INFO(option);
        CHECK(help.out.find("\n     " + std::string(option)) != std::string::npos);
      }
      REQUIRE(help.out.find("\n    Valid <COMMAND> values are:\n") != std::string::npos);
      for (const ScontrolCommand& command : scontrolCommands()) {
        INFO(command.syntax);
        std::string line = "\n     " + std::string(command.syntax);
        size_t at = help.out.find(line);
        REQUIRE(at != std::string::npos);
        CHECK((help.out[at + line.size()] == ' ' || help.out[at + line.size()] == '\n'));
      }
    }
  }
}

TEST_CASE("scontrol: version and -V print the Slurm version line", "[cli][help][scontrol]") {
  for (const char* word : {"version", "-V", "--version"}) {
    SECTION(word) {
      Printed printed = runCaptured(runScontrol, {word});
      CHECK(printed.status == 0);
      CHECK(printed.out == versionText());
      CHECK(printed.out == "slurm " + std::string(kSlurmVersion) + "\n");
    }
  }
}

TEST_CASE("scontrol: an unknown option is refused with the --help hint and status 1", "[cli][help][scontrol]") {
  Printed printed = runCaptured(runScontrol, {"--frobnicate", "show", "nodes"});
  CHECK(printed.status == 1);
  CHECK(printed.err == "scontrol: unrecognized option '--frobnicate'\nTry \"scontrol --help\" for more information\n");
}

TEST_CASE("sacct: help lists each option on its own line, usage and version as the others",
          "[cli][help][sacct]") {
  Printed help = runCaptured(runSacct, {"--help"});
  CHECK(help.status == 0);
  CHECK(help.out.starts_with("sacct [<OPTION>]\n    Valid <OPTION> values are:\n"));
  for (const char* option : {"-h, --help:", "--usage:", "-V, --version:", "-j, --jobs=<value>:",
                             "-u, --user, --uid=<value>:", "-X, --allocations:", "-e, --helpformat:",
                             "--conf-dir=<value>:"}) {
    INFO(option);
    CHECK(help.out.find("\n     " + std::string(option) + "\n") != std::string::npos);
  }
  CHECK(runCaptured(runSacct, {"--usage"}).out.starts_with("Usage: sacct ["));
  CHECK(runCaptured(runSacct, {"-V"}).out == versionText());
  // sacct's refusal stops after getopt's complaint, without the --help hint.
  Printed refused = runCaptured(runSacct, {"--frobnicate"});
  CHECK(refused.status == 1);
  CHECK(refused.err == "sacct: unrecognized option '--frobnicate'\n");
}

TEST_CASE("sacctmgr: help lists its options and the commands it runs; version", "[cli][help][sacctmgr]") {
  for (const char* word : {"--help", "-h", "--usage", "help"}) {
    SECTION(word) {
      Printed help = runCaptured(runSacctmgr, {word});
      CHECK(help.status == 0);
      CHECK(help.out.starts_with("sacctmgr [<OPTION>] [<COMMAND>]\n    Valid <OPTION> values are:\n"));
      for (const char* option : {"-p or --parsable: ", "-n or --noheader: ", "-i or --immediate: ", "-V or --version: "}) {
        INFO(option);
        CHECK(help.out.find("\n     " + std::string(option)) != std::string::npos);
      }
      for (const ScontrolCommand& command : sacctmgrCommands()) {
        INFO(command.syntax);
        std::string line = "\n     " + std::string(command.syntax);
        size_t at = help.out.find(line);
        REQUIRE(at != std::string::npos);
        CHECK((help.out[at + line.size()] == ' ' || help.out[at + line.size()] == '\n'));
      }
    }
  }
  for (const char* word : {"version", "-V", "--version"}) {
    SECTION(word) { CHECK(runCaptured(runSacctmgr, {word}).out == versionText()); }
  }
}
