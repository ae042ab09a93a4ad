// Reads a command line the way glibc's getopt_long reads it, against the
// options a CLI::App declares, so that every command treats its words as
// the Slurm command of the same name does: an unknown option, a missing
// value or an ambiguous abbreviation is refused in getopt's own words; a
// long option may be shortened to any unique prefix; short options may be
// bundled (-lN2); "--" ends the options. srun, salloc and sbatch stop at
// their first operand (what follows belongs to the program or script);
// the other commands take options anywhere, as getopt's default order does.
//
// The options come back spelled one way (--long[=value], or -Xvalue for an
// option without a long name) for CLI11 to assign. Pure.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::cli {

enum class OperandOrder {
  kOptionsFirst,  // the first operand and everything after it are operands
  kAnywhere,      // operands and options may be mixed
};

struct ScannedLine {
  std::vector<std::string> options;   // canonical spellings, in the order given
  std::vector<std::string> operands;  // the words that are not options, "--" dropped
};

// Fails with getopt's message without the program name, e.g.
// "unrecognized option '--bogus'" or "option requires an argument -- 'N'".
Result<ScannedLine> scanCommandLine(const CLI::App& app, const std::vector<std::string>& words,
                                    OperandOrder order);

}  // namespace gantry::cli
