// --help and --usage in Slurm's layout, drawn from the options a command's
// CLI::App declares (the option tables of job_options.cpp and
// srun_options.cpp for the launchers; sinfo, squeue and scancel declare
// theirs in place), so the text never lists an option the command does not
// take. Pure.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace gantry::cli {

// The section the help and usage flags go in, printed last as Slurm does.
inline constexpr const char* kHelpSection = "Help options";
// The section of the options taken for Slurm's sake that change nothing.
inline constexpr const char* kIgnoredSection = "Accepted and ignored options";

// "Usage: srun [OPTIONS(0)...] ..." then one section per option group, one
// line per option ("  -N, --nodes=N    description"), "Help options" last.
std::string renderHelp(const CLI::App& app, const std::string& command);

// "Usage: srun [-N nodes] [-n ntasks] ... executable [args...]", wrapped.
std::string renderUsage(const CLI::App& app, const std::string& command);

// The rows of docs/compatibility.md for the app: one per option shown in
// the help, "| `-N, --nodes=N` | supported | description |", the status
// "accepted and ignored with a warning" for kIgnoredSection.
std::string renderOptionTable(const CLI::App& app);

}  // namespace gantry::cli
