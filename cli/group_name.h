// A gid's group name from this host's group database, for the commands
// that show a Group (scontrol show job, sacct).
#pragma once

#include <cstdint>
#include <string>

namespace gantry::cli {

// The group's name, or the number as text when the gid has no entry.
std::string groupName(uint32_t gid);

}  // namespace gantry::cli
