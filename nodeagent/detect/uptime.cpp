#include "nodeagent/detect/uptime.h"

#include <sys/sysinfo.h>

#include <cstdio>

#include "nodeagent/detect/host_files.h"

namespace gantry::detect {

long long uptimeSeconds(const std::string& hostRoot) {
  // The first field is the seconds since boot, with a fraction.
  if (auto line = readLine(hostPath(hostRoot, "/proc/uptime"))) {
    try {
      double seconds = std::stod(*line);
      if (seconds >= 0) return static_cast<long long>(seconds);
    } catch (...) {
    }
  }
  struct sysinfo info {};
  return ::sysinfo(&info) == 0 ? static_cast<long long>(info.uptime) : 0;
}

std::string formatUptime(long long seconds) {
  if (seconds < 0) seconds = 0;
  char text[48];
  std::snprintf(text, sizeof text, "%lld-%02lld:%02lld:%02lld", seconds / 86400, seconds / 3600 % 24,
                seconds / 60 % 60, seconds % 60);
  return text;
}

}  // namespace gantry::detect
