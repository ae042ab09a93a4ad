#include "controller/accounting/record_checks.h"

#include <algorithm>
#include <cstdint>

namespace gantry::accounting {
namespace {

std::string jobName(uint64_t jobId, const std::string& stepId) {
  return std::to_string(jobId) + (stepId.empty() ? "" : "." + stepId);
}

Status checkWindow(const std::optional<TimeWindow>& window) {
  if (window && window->start > window->end) {
    return Error{"time window: its start " + std::to_string(window->start) + " is after its end " +
                 std::to_string(window->end)};
  }
  return okStatus();
}

}  // namespace

bool isStepId(const std::string& stepId) {
  if (stepId.empty() || stepId == "batch" || stepId == "extern" || stepId == "interactive") return true;
  if (stepId.size() > 9) return false;  // a step number fits in 32 bits
  return std::all_of(stepId.begin(), stepId.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Status checkJobRecord(const JobRecord& record) {
  std::string where = "job record " + jobName(record.jobId, record.stepId) +
                      (record.cluster.empty() ? "" : " of cluster " + record.cluster) + ": ";
  if (record.cluster.empty()) return Error{where + "no cluster"};
  if (record.jobId == 0) return Error{where + "the job id must be above 0"};
  if (record.jobId > static_cast<uint64_t>(INT64_MAX)) return Error{where + "the job id is too large"};
  if (!isStepId(record.stepId)) {
    return Error{where + "step id \"" + record.stepId + "\" is not batch, extern, interactive or a step number"};
  }
  if (record.submitTime <= 0) return Error{where + "no submit time"};
  if (record.state.empty()) return Error{where + "no state"};
  if (record.startTime != 0 && record.endTime != 0 && record.endTime < record.startTime) {
    return Error{where + "it ends (" + std::to_string(record.endTime) + ") before it starts (" +
                 std::to_string(record.startTime) + ")"};
  }
  return okStatus();
}

Status checkNodeEvent(const NodeEvent& event) {
  std::string where = "node event of node " + (event.node.empty() ? std::string("(none)") : event.node) +
                      (event.cluster.empty() ? "" : " of cluster " + event.cluster) + ": ";
  if (event.cluster.empty()) return Error{where + "no cluster"};
  if (event.node.empty()) return Error{where + "no node name"};
  if (event.state.empty()) return Error{where + "no state"};
  if (event.startTime <= 0) return Error{where + "no start time"};
  if (event.endTime != 0 && event.endTime < event.startTime) {
    return Error{where + "it ends (" + std::to_string(event.endTime) + ") before it starts (" +
                 std::to_string(event.startTime) + ")"};
  }
  return okStatus();
}

Status checkJobQuery(const JobQuery& query) {
  for (const auto& selector : query.ids) {
    std::string name = jobName(selector.jobId, selector.stepId.value_or(""));
    if (selector.jobId == 0 || selector.jobId > static_cast<uint64_t>(INT64_MAX)) {
      return Error{"job selection " + name + ": the job id must be above 0"};
    }
    if (selector.stepId && (selector.stepId->empty() || !isStepId(*selector.stepId))) {
      return Error{"job selection " + name + ": step id \"" + *selector.stepId +
                   "\" is not batch, extern, interactive or a step number"};
    }
  }
  return checkWindow(query.window);
}

Status checkEventQuery(const EventQuery& query) { return checkWindow(query.window); }

}  // namespace gantry::accounting
