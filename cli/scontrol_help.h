// scontrol's help in Slurm's layout: "scontrol [<OPTION>] [<COMMAND>]", the
// options the CLI::App declares ("-d or --details: ..."), then the commands
// Gantry's scontrol runs, one line each. Pure.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace gantry::cli {

struct ScontrolCommand {
  const char* syntax;       // "show <ENTITY> [<ID>]"
  const char* description;  // what it does, in our words
};

// Every command runScontrol dispatches, in the order the help lists them.
const std::vector<ScontrolCommand>& scontrolCommands();

std::string renderScontrolHelp(const CLI::App& app);

// The same layout for any command that takes a command word after its
// options (sacctmgr): "<program> [<OPTION>] [<COMMAND>]", the options, then
// `commands`.
std::string renderCommandWordHelp(const CLI::App& app, const std::string& program,
                                  const std::vector<ScontrolCommand>& commands);

// The command words Gantry's sacctmgr runs.
const std::vector<ScontrolCommand>& sacctmgrCommands();

}  // namespace gantry::cli
