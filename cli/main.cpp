// The `gantry` program: picks the subcommand from the name it was called by
// (a symlink such as `squeue`) or from its first word, and runs it.
#include <map>

#include "cli/arg_parsing.h"
#include "cli/dispatch.h"
#include "cli/subcommands.h"

namespace {

using Entry = int (*)(const std::vector<std::string>&);

const std::map<std::string, Entry>& subcommandTable() {
  static const std::map<std::string, Entry> table = {
      {"sbatch", gantry::cli::runSbatch},   {"squeue", gantry::cli::runSqueue},
      {"sinfo", gantry::cli::runSinfo},     {"scancel", gantry::cli::runScancel},
      {"scontrol", gantry::cli::runScontrol},
      {"srun", gantry::cli::runSrun},       {"salloc", gantry::cli::runSalloc},
      {"sacct", gantry::cli::runSacct},     {"sacctmgr", gantry::cli::runSacctmgr},
      {"sprio", gantry::cli::runSprio},     {"sshare", gantry::cli::runSshare},
      {"api", gantry::cli::runApi},
  };
  return table;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> names;
  for (const auto& [name, entry] : subcommandTable()) names.push_back(name);
  std::vector<std::string> args = gantry::cli::argsAfterProgram(argc, argv, 1);
  std::string self = gantry::cli::programName(argc > 0 ? argv[0] : "gantry");
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h") &&
      subcommandTable().count(self) == 0) {
    std::cout << "usage: gantry <subcommand> [options]\nsubcommands:";
    for (const std::string& name : names) std::cout << " " << name;
    std::cout << "\nEach subcommand takes --help.\n";
    return 0;
  }
  auto invocation = gantry::cli::resolveInvocation(argc > 0 ? argv[0] : "gantry", args, names);
  if (!invocation) return gantry::cli::reportError("gantry", invocation.error());
  return subcommandTable().at(invocation->subcommand)(invocation->args);
}
