#include "common/accounting/tres_usage_format.h"

#include <cstdio>

namespace gantry::accounting {

namespace {

std::string cpuTime(uint64_t seconds) {
  uint64_t days = seconds / 86400, hours = seconds / 3600 % 24, minutes = seconds / 60 % 60, secs = seconds % 60;
  char text[48];
  if (days > 0) {
    std::snprintf(text, sizeof text, "%llu-%02llu:%02llu:%02llu", static_cast<unsigned long long>(days),
                  static_cast<unsigned long long>(hours), static_cast<unsigned long long>(minutes),
                  static_cast<unsigned long long>(secs));
  } else {
    std::snprintf(text, sizeof text, "%02llu:%02llu:%02llu", static_cast<unsigned long long>(hours),
                  static_cast<unsigned long long>(minutes), static_cast<unsigned long long>(secs));
  }
  return text;
}

// Bytes in a unit with its suffix; zero stays a bare 0 as in "vmem=0".
std::string inUnit(uint64_t bytes, uint64_t unit, char suffix) {
  if (bytes == 0) return "0";
  return std::to_string(bytes / unit) + suffix;
}

template <typename Map, typename Show>
std::string joined(const Map& entries, Show show) {
  std::string out;
  for (const auto& [name, entry] : entries) {
    if (!out.empty()) out += ',';
    out += name + "=" + show(name, entry);
  }
  return out;
}

}  // namespace

std::string formatTresValue(std::string_view tres, uint64_t value) {
  if (tres == "cpu") return cpuTime(value);
  if (tres == "mem" || tres == "vmem") return inUnit(value, 1024, 'K');
  if (tres == "gres/gpumem") return inUnit(value, 1024 * 1024, 'M');
  return std::to_string(value);
}

std::string formatTresValues(const std::map<std::string, uint64_t>& values) {
  return joined(values, [](const std::string& name, uint64_t value) { return formatTresValue(name, value); });
}

std::string formatTresValues(const std::map<std::string, TresExtreme>& extremes) {
  return joined(extremes,
                [](const std::string& name, const TresExtreme& e) { return formatTresValue(name, e.value); });
}

std::string formatTresNodes(const std::map<std::string, TresExtreme>& extremes) {
  return joined(extremes, [](const std::string&, const TresExtreme& e) { return e.node; });
}

std::string formatTresTasks(const std::map<std::string, TresExtreme>& extremes) {
  return joined(extremes, [](const std::string&, const TresExtreme& e) { return std::to_string(e.task); });
}

}  // namespace gantry::accounting
