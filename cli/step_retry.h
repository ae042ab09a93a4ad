// srun's answer to a refused CreateStep, decided on the Error's kind alone:
// NotNow (the job is suspended or pending, an --exclusive step's resources
// are held by other steps) is asked again a second later; every other kind
// ends srun with the controller's message. Unavailable is not retried
// either: a controller that cannot be reached fails srun now, as before.
#pragma once

#include <string>

#include "common/util/result.h"

namespace gantry::cli {

bool retryStepCreation(const Error& refusal);

// What srun prints (after "srun: ") before asking again; `attempt` counts
// the refusals before this one. The first line gives the controller's
// reason in parentheses unless the reason is that very line; later lines
// only say that srun still waits.
std::string stepRetryNotice(const Error& refusal, int attempt);

}  // namespace gantry::cli
