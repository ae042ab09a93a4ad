// The "defined options" block Slurm's srun, salloc and sbatch print with -v:
// every option the command line set, by its long name, with its value
// ("set" for a flag, the count for -v and -Q), between separator lines. Pure.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace gantry::cli {

// The lines without the "srun: " prefix, in the order the options are
// declared (Slurm uses its own table's order; both are fixed).
std::vector<std::string> definedOptionLines(const CLI::App& app);

}  // namespace gantry::cli
