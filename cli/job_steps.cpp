#include "cli/job_steps.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include "cli/json_render.h"
#include "common/hostlist/hostlist.h"

namespace gantry::cli {
namespace {

// Digits only: no sign, no spaces, no trailing text.
template <typename Number>
std::optional<Number> parseNumber(const std::string& text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  try {
    unsigned long long value = std::stoull(text);
    if (value > static_cast<unsigned long long>(std::numeric_limits<Number>::max())) return std::nullopt;
    return static_cast<Number>(value);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool matches(const StepSelector& selector, uint64_t jobId, uint32_t stepId) {
  return selector.jobId == jobId && (!selector.stepId || *selector.stepId == stepId);
}

}  // namespace

std::optional<StepSelector> parseStepSelector(const std::string& text) {
  size_t dot = text.find('.');
  auto jobId = parseNumber<uint64_t>(text.substr(0, dot));
  if (!jobId) return std::nullopt;
  if (dot == std::string::npos) return StepSelector{.jobId = *jobId, .stepId = std::nullopt};
  auto stepId = parseNumber<uint32_t>(text.substr(dot + 1));
  if (!stepId) return std::nullopt;
  return StepSelector{.jobId = *jobId, .stepId = *stepId};
}

Result<std::vector<StepSelector>> parseStepList(const std::string& list,
                                                const std::string& optionName) {
  std::vector<StepSelector> selectors;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    auto selector = parseStepSelector(item);
    if (!selector) {
      return Error{optionName + ": invalid job step id '" + item + "' (expected <jobid>.<stepid>)"};
    }
    selectors.push_back(*selector);
  }
  return selectors;
}

std::vector<StepRow> selectSteps(const std::vector<gantry::v1::Job>& jobs,
                                 const StepSelection& selection) {
  std::vector<StepRow> rows;
  for (const auto& job : jobs) {
    for (const auto& step : job.steps()) {
      if (selection.runningOnly && !step.running()) continue;
      bool wanted = selection.only.empty() ||
                    std::any_of(selection.only.begin(), selection.only.end(), [&](const StepSelector& s) {
                      return matches(s, job.job_id(), step.step_id());
                    });
      if (!wanted) continue;
      rows.push_back(StepRow{.jobId = job.job_id(),
                             .user = job.user(),
                             .uid = job.uid(),
                             .partition = job.spec().partition(),
                             .step = step});
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const StepRow& a, const StepRow& b) {
    if (a.jobId != b.jobId) return a.jobId < b.jobId;
    return a.step.step_id() < b.step.step_id();
  });
  return rows;
}

std::string stepIdText(const StepRow& row) {
  return std::to_string(row.jobId) + "." + std::to_string(row.step.step_id());
}

std::string stepStateName(const gantry::v1::JobStep& step) {
  if (step.running()) return "RUNNING";
  return step.exit_code() == 0 ? "COMPLETED" : "FAILED";
}

int64_t stepRunSeconds(const gantry::v1::JobStep& step, int64_t now) {
  if (step.start_time() == 0) return 0;
  int64_t until = step.running() || step.end_time() == 0 ? now : step.end_time();
  return std::max<int64_t>(0, until - step.start_time());
}

int32_t stepCpuCount(const gantry::v1::JobStep& step) {
  int32_t cores = 0;
  for (const auto& node : step.allocation()) cores += node.cores_size();
  return cores > 0 ? cores : std::max(step.ntasks(), 1);
}

int32_t stepNodeCount(const gantry::v1::JobStep& step) {
  if (step.allocation_size() > 0) return step.allocation_size();
  auto names = hostlist::expand(step.node_list());
  return names ? static_cast<int32_t>(names->size()) : 0;
}

nlohmann::json stepsToJson(const std::vector<StepRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const StepRow& row : rows) {
    nlohmann::json step = messageToJson(row.step);
    step["id"] = stepIdText(row);
    step["job_id"] = row.jobId;
    step["user"] = row.user;
    step["partition"] = row.partition;
    step["state"] = stepStateName(row.step);
    list.push_back(std::move(step));
  }
  return nlohmann::json{{"steps", list}};
}

}  // namespace gantry::cli
