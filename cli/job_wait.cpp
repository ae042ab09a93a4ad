#include "cli/job_wait.h"

namespace gantry::cli {

std::optional<int> waitExitStatus(const gantry::v1::Job& job) {
  switch (job.state()) {
    case gantry::v1::COMPLETED:
    case gantry::v1::FAILED:
    case gantry::v1::CANCELLED:
    case gantry::v1::TIMEOUT:
    case gantry::v1::NODE_FAIL:
      // Slurm's rule: the exit status when the job exited, 1 when a signal ended it.
      if (job.term_signal() != 0) return 1;
      return job.exit_code() & 0xff;
    default:
      // COMPLETING too: its nodes may still report the batch step's status.
      return std::nullopt;
  }
}

}  // namespace gantry::cli
