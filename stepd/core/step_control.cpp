#include "stepd/core/step_control.h"

#include <signal.h>

namespace gantry::stepd {

namespace {
constexpr int kReachShift = 8;
constexpr int kSignalMask = (1 << kReachShift) - 1;
}  // namespace

int taskSignalChannel() { return SIGRTMIN + 2; }

int encodeTaskSignal(const TaskSignal& request) {
  return request.signal | (static_cast<int>(request.reach) << kReachShift);
}

std::optional<TaskSignal> decodeTaskSignal(int value) {
  const int signal = value & kSignalMask;
  const int reach = value >> kReachShift;
  if (value < 0 || signal < 1 || signal > SIGRTMAX) return std::nullopt;
  if (reach != static_cast<int>(TaskSignalReach::AllProcesses) &&
      reach != static_cast<int>(TaskSignalReach::TaskLeaderOnly)) {
    return std::nullopt;
  }
  return TaskSignal{.signal = signal, .reach = static_cast<TaskSignalReach>(reach)};
}

}  // namespace gantry::stepd
