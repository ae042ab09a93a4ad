// Logging set-up shared by the daemons: spdlog to a file when one is
// configured, to stderr otherwise, at the level gantry.conf names.
#pragma once

#include <string>

#include "common/util/result.h"

namespace gantry {

// level: one of quiet, fatal, error, info, verbose, debug, debug2..debug5
// (the SlurmctldDebug/SlurmdDebug values) or spdlog's own names.
Status setupLogging(const std::string& program, const std::string& file, const std::string& level);

}  // namespace gantry
