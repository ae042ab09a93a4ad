#include "controller/switch/switch_record.h"

#include <algorithm>

namespace gantry::interconnect {

SwitchRecord newSwitchRecord(uint64_t job) {
  SwitchRecord record;
  record.job = job;
  return record;
}

bool requestsNetwork(const std::string& network) { return !network.empty(); }

bool managesSteps(const SwitchRecord& record) {
  return record.setup == SetupPhase::Configured && record.stepinfo.has_value();
}

bool hasOutstandingCalls(const SwitchRecord& record) {
  return std::any_of(record.calls.begin(), record.calls.end(),
                     [](const SwitchCall& call) { return call.state != CallState::Abandoned; });
}

const char* toString(SetupPhase phase) {
  switch (phase) {
    case SetupPhase::None: return "none";
    case SetupPhase::Running: return "running";
    case SetupPhase::Configured: return "configured";
    case SetupPhase::Declined: return "declined";
    case SetupPhase::Failed: return "failed";
    case SetupPhase::Abandoned: return "abandoned";
  }
  return "unknown";
}

const char* toString(CallKind kind) {
  switch (kind) {
    case CallKind::Setup: return "switch setup";
    case CallKind::Teardown: return "switch teardown";
    case CallKind::LateTeardown: return "late switch teardown";
  }
  return "switch call";
}

const char* toString(CallState state) {
  switch (state) {
    case CallState::Running: return "running";
    case CallState::WaitingForRetry: return "waiting for retry";
    case CallState::Abandoned: return "abandoned";
    case CallState::Killed: return "killed";
  }
  return "unknown";
}

}  // namespace gantry::interconnect
