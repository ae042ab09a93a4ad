#include "cli/step_retry.h"

namespace gantry::cli {

bool retryStepCreation(const Error& refusal) { return refusal.code == ErrorCode::NotNow; }

std::string stepRetryNotice(const Error& refusal, int attempt) {
  if (attempt > 0) return "Job step creation still disabled, retrying";
  std::string line = "Job step creation temporarily disabled, retrying";
  // Display only: whether to retry was decided on the kind.
  if (!refusal.message.empty() && refusal.message != line) line += " (" + refusal.message + ")";
  return line;
}

}  // namespace gantry::cli
