#include "common/config/scheduler_parameters.h"

#include <charconv>
#include <optional>

namespace gantry::config {

namespace {

// A whole-number value within [least, most]; -1 too where `offValue` (the
// way Slurm turns a loop off).
struct Bounds {
  int64_t least;
  int64_t most;
  bool offValue = false;
  const char* unit;
};

std::optional<int64_t> boundedNumber(std::string_view text, const Bounds& bounds) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  if (bounds.offValue && value == -1) return value;
  if (value < bounds.least || value > bounds.most) return std::nullopt;
  return value;
}

std::string boundsText(const Bounds& bounds) {
  std::string text = "a number of " + std::string(bounds.unit) + " from " + std::to_string(bounds.least) + " to " +
                     std::to_string(bounds.most);
  if (bounds.offValue) text += ", or -1 to turn it off";
  return text;
}

}  // namespace

ParameterReading readSchedulingParameter(std::string_view item, SchedulingParameters& into) {
  if (item == "bf_continue") {
    into.bfContinue = true;
    return {.recognised = true, .error = {}};
  }
  size_t eq = item.find('=');
  if (eq == std::string_view::npos) return {};
  std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
  struct Knob {
    std::string_view key;
    Bounds bounds;
    void (*store)(SchedulingParameters&, int64_t);
  };
  // Slurm's ranges (its backfill and main scheduler refuse the rest).
  static const Knob kKnobs[] = {
      {"bf_max_job_test", {1, 1'000'000, false, "jobs"},
       [](SchedulingParameters& p, int64_t v) { p.bfMaxJobTest = static_cast<int>(v); }},
      {"bf_max_job_user", {0, 1'000'000, false, "jobs"},
       [](SchedulingParameters& p, int64_t v) { p.bfMaxJobUser = static_cast<int>(v); }},
      {"bf_window", {1, 9'999'999, false, "minutes"},
       [](SchedulingParameters& p, int64_t v) { p.bfWindowSec = v * 60; }},
      {"bf_resolution", {1, 3600, false, "seconds"},
       [](SchedulingParameters& p, int64_t v) { p.bfResolutionSec = static_cast<int>(v); }},
      {"bf_interval", {1, 10800, true, "seconds"},
       [](SchedulingParameters& p, int64_t v) { p.bfIntervalSec = static_cast<int>(v); }},
      {"default_queue_depth", {1, 1'000'000, false, "jobs"},
       [](SchedulingParameters& p, int64_t v) { p.defaultQueueDepth = static_cast<int>(v); }},
      {"sched_interval", {1, 86400, true, "seconds"},
       [](SchedulingParameters& p, int64_t v) { p.schedIntervalSec = static_cast<int>(v); }},
  };
  for (const Knob& knob : kKnobs) {
    if (key != knob.key) continue;
    std::optional<int64_t> number = boundedNumber(value, knob.bounds);
    if (!number) {
      return {.recognised = true,
              .error = std::string(item) + ": " + std::string(key) + " must be " + boundsText(knob.bounds)};
    }
    knob.store(into, *number);
    return {.recognised = true, .error = {}};
  }
  return {};
}

}  // namespace gantry::config
