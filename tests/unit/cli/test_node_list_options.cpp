// -w/--nodelist and -x/--exclude on sbatch (options and #SBATCH lines),
// srun and salloc: host lists or files of names, sent compressed, with the
// list's size as the node count when -N is absent.
#include <catch2/catch.hpp>

#include <map>

#include "cli/job_options.h"
#include "cli/srun_options.h"

using namespace gantry::cli;

namespace {

// Node files held in memory; any other path cannot be opened.
SubmitContext contextWithFiles(std::map<std::string, std::string> files = {}) {
  SubmitContext context{.environment = {{"HOME", "/home/cai"}}, .workDir = "/home/cai", .submitHost = "edge3"};
  context.readNodeFile = [files](const std::string& path) -> gantry::Result<std::string> {
    auto found = files.find(path);
    if (found == files.end()) return gantry::Error{"cannot open node file '" + path + "': No such file or directory"};
    return found->second;
  };
  return context;
}

gantry::Result<Submission> sbatch(const std::vector<std::string>& args, const std::string& script = "",
                                  const SubmitContext& context = contextWithFiles()) {
  return prepareSubmission(args, context, [script](const std::string&) -> gantry::Result<std::string> {
    return script;
  });
}

}  // namespace

TEST_CASE("sbatch -w/-x: one row per rule", "[cli][nodelist]") {
  struct Case {
    const char* rule;
    std::vector<std::string> args;
    std::string required;
    std::string excluded;
    int minNodes;
  };
  const std::vector<Case> cases = {
      {"-w takes a host list and sends it compressed", {"-w", "gpu7,gpu5,gpu6"}, "gpu[5-7]", "", 3},
      {"--nodelist= is the same option", {"--nodelist=gpu[2,4]"}, "gpu[2,4]", "", 2},
      {"without -N the list's distinct names are the node count", {"-w", "gpu3,gpu3,gpu4"}, "gpu[3-4]", "", 2},
      {"-N keeps its own count", {"-N", "1", "-w", "gpu[1-3]"}, "gpu[1-3]", "", 1},
      {"-x takes a host list and leaves the node count alone", {"-x", "gpu[8-9]"}, "", "gpu[8-9]", 0},
      {"--exclude= is the same option", {"--exclude=gpu1"}, "", "gpu1", 0},
      {"a name with a '/' is a file of names", {"-w", "./hosts"}, "gpu[1-2,9]", "", 3},
      {"the command line wins over #SBATCH", {"-w", "gpu4"}, "gpu4", "", 1},
  };
  const auto context = contextWithFiles({{"./hosts", "gpu9\n# spare nodes\ngpu1 gpu2  # two more\n"}});
  for (const Case& c : cases) {
    SECTION(c.rule) {
      std::vector<std::string> args = c.args;
      args.insert(args.end(), {"--wrap", "true"});
      auto result = sbatch(args, "", context);
      REQUIRE(result.ok());
      CHECK(result->spec.required_nodes() == c.required);
      CHECK(result->spec.excluded_nodes() == c.excluded);
      CHECK(result->spec.min_nodes() == c.minNodes);
    }
  }
}

TEST_CASE("#SBATCH -w and -x lines are read like the options", "[cli][nodelist]") {
  auto result = sbatch({"job.sh"}, "#!/bin/sh\n#SBATCH -w gpu[3-4]\n#SBATCH --exclude=gpu5\nhostname\n");
  REQUIRE(result.ok());
  CHECK(result->spec.required_nodes() == "gpu[3-4]");
  CHECK(result->spec.excluded_nodes() == "gpu5");
  CHECK(result->spec.min_nodes() == 2);
  auto overridden = sbatch({"-w", "gpu9", "job.sh"}, "#!/bin/sh\n#SBATCH -w gpu[3-4]\nhostname\n");
  REQUIRE(overridden.ok());
  CHECK(overridden->spec.required_nodes() == "gpu9");
}

TEST_CASE("bad -w/-x values are refused naming the option", "[cli][nodelist]") {
  struct Case {
    const char* rule;
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"an unbalanced bracket", {"-w", "gpu[1-"}, "command line: --nodelist: Invalid node list specified: "},
      {"a reversed range", {"-x", "gpu[4-2]"}, "command line: --exclude: Invalid node list specified: "},
      {"a missing file", {"-w", "/no/such/hosts"},
       "command line: --nodelist: cannot open node file '/no/such/hosts': No such file or directory"},
      {"an empty file", {"-x", "./empty"}, "command line: --exclude: './empty' names no node"},
      {"a value with no name", {"-w", ","}, "command line: --nodelist: ',' names no node"},
  };
  const auto context = contextWithFiles({{"./empty", "# nothing here\n"}});
  for (const Case& c : cases) {
    SECTION(c.rule) {
      std::vector<std::string> args = c.args;
      args.insert(args.end(), {"--wrap", "true"});
      auto result = sbatch(args, "", context);
      REQUIRE_FALSE(result.ok());
      CHECK(result.error().rfind(c.message, 0) == 0);
    }
  }
}

TEST_CASE("a node file without a reader is refused, not ignored", "[cli][nodelist]") {
  SubmitContext bare{.environment = {}, .workDir = "/tmp", .submitHost = "edge3"};
  auto result = sbatch({"-w", "./hosts", "--wrap", "true"}, "", bare);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().find("--nodelist") != std::string::npos);
}

TEST_CASE("srun and salloc take -w/-x as sbatch does", "[cli][nodelist]") {
  for (const char* program : {"srun", "salloc"}) {
    auto run = prepareInteractive(program, {"-w", "gpu[6-7]", "-x", "gpu8", "hostname"}, contextWithFiles());
    REQUIRE(run.ok());
    CHECK(run->spec.required_nodes() == "gpu[6-7]");
    CHECK(run->spec.excluded_nodes() == "gpu8");
    CHECK(run->spec.min_nodes() == 2);
    CHECK(run->command == std::vector<std::string>{"hostname"});
  }
  // After the command's first word, -w belongs to the command.
  auto later = prepareInteractive("srun", {"-n1", "ls", "-w", "x"}, contextWithFiles());
  REQUIRE(later.ok());
  CHECK(later->spec.required_nodes().empty());
  CHECK(later->command == std::vector<std::string>{"ls", "-w", "x"});
}
