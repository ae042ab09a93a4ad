#include "cli/time_format.h"

#include <cstdio>
#include <ctime>

namespace gantry::cli {

std::string formatElapsedShort(int64_t seconds) {
  if (seconds < 0) seconds = 0;
  int64_t days = seconds / 86400;
  int64_t hours = (seconds / 3600) % 24;
  int64_t minutes = (seconds / 60) % 60;
  int64_t secs = seconds % 60;
  char buf[64];
  if (days > 0) {
    std::snprintf(buf, sizeof buf, "%lld-%02lld:%02lld:%02lld", static_cast<long long>(days),
                  static_cast<long long>(hours), static_cast<long long>(minutes),
                  static_cast<long long>(secs));
  } else if (hours > 0) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(hours),
                  static_cast<long long>(minutes), static_cast<long long>(secs));
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(minutes),
                  static_cast<long long>(secs));
  }
  return buf;
}

std::string formatElapsedLong(int64_t seconds) {
  if (seconds < 0) seconds = 0;
  int64_t days = seconds / 86400;
  char buf[64];
  if (days > 0) {
    std::snprintf(buf, sizeof buf, "%lld-%02lld:%02lld:%02lld", static_cast<long long>(days),
                  static_cast<long long>((seconds / 3600) % 24),
                  static_cast<long long>((seconds / 60) % 60), static_cast<long long>(seconds % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", static_cast<long long>(seconds / 3600),
                  static_cast<long long>((seconds / 60) % 60), static_cast<long long>(seconds % 60));
  }
  return buf;
}

std::string formatLimitMinutes(int64_t minutes, const std::string& unlimitedWord) {
  if (minutes < 0) return unlimitedWord;
  return formatElapsedShort(minutes * 60);
}

std::string formatTimestamp(int64_t unixSeconds, const std::string& zeroWord) {
  if (unixSeconds == 0) return zeroWord;
  std::time_t t = static_cast<std::time_t>(unixSeconds);
  std::tm local{};
  localtime_r(&t, &local);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &local);
  return buf;
}

std::string longListingDateLine(int64_t unixSeconds) {
  time_t when = static_cast<time_t>(unixSeconds);
  struct tm local {};
  localtime_r(&when, &local);
  char text[32];
  std::strftime(text, sizeof text, "%a %b %d %T %Y", &local);
  return std::string(text) + "\n";
}

}  // namespace gantry::cli
