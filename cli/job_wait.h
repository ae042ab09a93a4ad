// sbatch -W/--wait: sbatch stays until its job has ended and exits with the
// job's exit code, as Slurm's does (a job killed by a signal gives 1).
#pragma once

#include <optional>

#include "gantry/v1/types.pb.h"

namespace gantry::cli {

// The exit status sbatch --wait ends with, or nothing while the job has
// not ended (pending, running, suspended, still completing). Pure.
std::optional<int> waitExitStatus(const gantry::v1::Job& job);

}  // namespace gantry::cli
