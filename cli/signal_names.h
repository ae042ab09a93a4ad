// Signal names for `scancel -s`: "KILL", "SIGKILL", "kill" or a number.
#pragma once

#include <string>

#include "common/util/result.h"

namespace gantry::cli {

// The signal number; the error names the text and what is accepted.
Result<int> parseSignal(const std::string& text);

}  // namespace gantry::cli
