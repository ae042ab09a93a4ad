// Runs a CLI11 parser over a word list without letting CLI11's exceptions
// escape. The words are first read as getopt_long reads them
// (getopt_scan.h), so unknown options are refused in Slurm's words before
// CLI11 assigns anything. The outcome is "parsed" (with the operands),
// "help was asked for" (with the text), "getopt refused the line" (with its
// complaint), or an error naming the option.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/getopt_scan.h"
#include "common/util/result.h"

namespace gantry::cli {

struct ParseOutcome {
  bool helpRequested = false;
  std::string helpText;
  // getopt's complaint ("unrecognized option '--bogus'"); when set nothing
  // was parsed. The command prints it with usageErrorText().
  std::string usageError;
  // kOptionsFirst only: the first operand and every word after it. In
  // kAnywhere order the operands go to the app's positional arguments.
  std::vector<std::string> operands;
};

// `words` excludes the program name. Options' callbacks run as CLI11 calls
// them; a callback may throw CLI::ValidationError to reject a value.
Result<ParseOutcome> parseWords(CLI::App& app, const std::vector<std::string>& words,
                                OperandOrder order = OperandOrder::kAnywhere);

// What Slurm's command prints for getopt's complaint: the complaint after
// the command's name, then (except for sacct, which stops there) the
// pointer to --help.
std::string usageErrorText(const std::string& command, const std::string& complaint);
// Slurm's exit status for it: 255 (exit(-1)) for sbatch, srun and salloc,
// 1 for the others.
int usageExitCode(const std::string& command);

// Adds --conf-dir to a subcommand's parser (the directory of gantry.conf).
void addConfDirOption(CLI::App& app, std::string& confDir);

// The words after the program name.
std::vector<std::string> argsAfterProgram(int argc, char** argv, int skip);

}  // namespace gantry::cli
