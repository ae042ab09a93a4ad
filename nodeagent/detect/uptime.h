// How long the node has been up, for the UpTime= line of `gantryd -C`.
#pragma once

#include <string>

namespace gantry::detect {

// Whole seconds since boot from <hostRoot>/proc/uptime; from sysinfo(2)
// when that file is absent or unreadable (a fixture tree without it).
long long uptimeSeconds(const std::string& hostRoot);

// 200885 -> "2-07:48:05": days, then hours:minutes:seconds.
std::string formatUptime(long long seconds);

}  // namespace gantry::detect
