// --help, --usage and -V/--version of the query and admin commands (sinfo,
// squeue, scancel, scontrol, sacct, sacctmgr). The texts come from the options the command's
// CLI::App declares (usage_text.h), so they list exactly what is accepted.
// Pure.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "cli/arg_parsing.h"

namespace gantry::cli {

// The Slurm release whose commands and outputs Gantry follows; -V prints
// "slurm <this>" because scripts read Slurm's version from that line.
inline constexpr const char* kSlurmVersion = "26.11.0";

// "slurm 26.11.0\n".
std::string versionText();

struct HelpRequest {
  bool usage = false;
  bool version = false;
};

// Declares --help and --usage in the "Help options" section and
// -V/--version among the command's own options. `helpNames` is
// "--help" where -h means something else (sinfo's and squeue's -h is
// --noheader), "-h,--help" otherwise.
void declareHelpFlags(CLI::App& app, HelpRequest& request, const std::string& helpNames = "--help");

// What to print before stopping when the line asked for help, usage or the
// version (in that order of precedence, as each stops the command); nothing
// when the command should go on.
std::optional<std::string> helpAnswer(const CLI::App& app, const std::string& command, const ParseOutcome& parsed,
                                      const HelpRequest& request);

}  // namespace gantry::cli
