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

}  // namespace gantry::cli
