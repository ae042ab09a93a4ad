// --signal=[{R|B}:]<sig>[@<time>] (sbatch, srun, salloc): a signal the job
// is sent <time> seconds (default 60, at most 65535) before its time limit.
// B sends it to the batch shell only (otherwise to the steps, not the
// shell); R is kept and shown but changes nothing (Gantry has no
// reservations). <sig> is a name or number (cli/signal_names.h). As in
// Slurm the flag letters are read without case and before any ':', so
// "--signal=BUS" reads as B plus "US" and is refused. Pure.
#pragma once

#include <string>

#include "common/util/result.h"

namespace gantry::cli {

struct WarnSignal {
  int signal = 0;
  int seconds = 60;
  std::string flags;  // "", "B", "R" or "RB" (in that order)
};

// Fails quoting the value and saying what is expected.
Result<WarnSignal> parseWarnSignal(const std::string& text);

}  // namespace gantry::cli
