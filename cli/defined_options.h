// The "defined options" block Slurm's srun, salloc and sbatch print with -v:
// every option the command line set, by its long name, with its value
// ("set" for a flag, the count for -v and -Q), between separator lines. Pure.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

namespace gantry::cli {

// The lines without the "srun: " prefix, in the order the options are
// declared (Slurm uses its own table's order; both are fixed).
std::vector<std::string> definedOptionLines(const CLI::App& app);

// The options `app` set, by long name, added to `into` (a later app's
// value replaces an earlier one's): sbatch's #SBATCH lines, one app each,
// then its command line.
void collectDefinedOptions(const CLI::App& app, std::map<std::string, std::string>& into);
// The block for options gathered so, in the order `declared` declares them.
std::vector<std::string> definedOptionLines(const CLI::App& declared, const std::map<std::string, std::string>& set);

}  // namespace gantry::cli
