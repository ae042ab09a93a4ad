// srun's and salloc's command lines: the sbatch resource options (-n, -N,
// --ntasks-per-node, --gres, --gpus*, --exclusive, --cpus-per-task, --mem,
// ...) plus -l/--label, --pty and (srun) --exact, then the command to run;
// the first word that is not an option starts the command. Pure: the
// environment and directory arrive as a SubmitContext.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/job_options.h"
#include "common/util/result.h"
#include "gantry/v1/types.pb.h"

namespace gantry::cli {

struct InteractiveInvocation {
  // The resource request. Inside an allocation it describes the step; out
  // of one it is also the job that srun/salloc allocates (no script).
  gantry::v1::JobSpec spec;
  std::vector<std::string> command;  // argv of the tasks (srun) or of the shell (salloc)
  bool label = false;                // -l: prefix output lines with the task id
  bool pty = false;                  // --pty: one task on a terminal
  uint64_t jobId = 0;                // srun --jobid: the allocation to run in (0: SLURM_JOB_ID, or a new one)
  bool noShell = false;              // salloc --no-shell: keep the allocation and run nothing
  bool exact = false;                // srun --exact: the step gets only what it asks for
  // --exclusive=allocation: the job takes whole nodes, but its steps are
  // not exclusive; srun's step gets every CPU of the job on its nodes
  // unless --exact is given too (wholeStep).
  bool exclusiveAllocation = false;
  bool whole = false;                // srun --whole: the same whole step, asked for alone
  bool wholeStep = false;
  bool overlap = false;              // srun --overlap: share the job's resources with its other steps
  std::string confDir;
  std::string helpText;              // non-empty: --help or --usage was given
  // Non-empty: getopt refused the command line; print usageErrorText()
  // and exit with usageExitCode(), before any contact with the controller.
  std::string usageError;
  Verbosity verbosity;
  // With -v: Slurm's "defined options" block (defined_options.h), one line
  // each, for "srun: " / "salloc: ".
  std::vector<std::string> definedOptions;
  std::vector<std::string> warnings;  // one line each, for "srun: warning: "
};

// Adds every option of `program` ("srun" or "salloc") to `app`: sbatch's
// (declareSbatchOptions) and the launcher's own, which land in `result`.
void declareInteractiveOptions(CLI::App& app, const std::string& program, SbatchOptions& options,
                               InteractiveInvocation& result, const std::string* origin);

// `program` is "srun" or "salloc": srun needs a command, salloc may run the
// user's shell. Errors name the option and the rule.
Result<InteractiveInvocation> prepareInteractive(const std::string& program,
                                                 const std::vector<std::string>& args,
                                                 const SubmitContext& context);

}  // namespace gantry::cli
