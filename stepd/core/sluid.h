// The job SLUID (common/util/sluid.h), under the name the step launcher
// has always used.
#pragma once

#include "common/util/sluid.h"

namespace gantry::stepd {
using gantry::jobSluid;
}  // namespace gantry::stepd
