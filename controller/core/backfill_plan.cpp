#include "controller/core/backfill_plan.h"

#include <algorithm>
#include <charconv>

namespace gantry::core {

int backfillMaxJobTest(const std::vector<std::string>& schedulerParameters) {
  int value = 500;
  const std::string_view key = "bf_max_job_test=";
  for (const auto& item : schedulerParameters) {
    if (item.rfind(key, 0) != 0) continue;
    int parsed = 0;
    auto [end, error] = std::from_chars(item.data() + key.size(), item.data() + item.size(), parsed);
    if (error == std::errc{} && end == item.data() + item.size() && parsed > 0) value = parsed;
  }
  return value;
}

void BackfillPlan::reserve(const std::vector<int>& nodes, int64_t start) {
  for (int node : nodes) {
    if (node < 0) continue;
    if (static_cast<size_t>(node) >= plannedFrom_.size()) plannedFrom_.resize(node + 1, kNeverEnds);
    plannedFrom_[node] = std::min(plannedFrom_[node], start);
  }
  ++planned_;
}

bool BackfillPlan::anyPlanned(const select::Allocation& allocation) const {
  for (const auto& grant : allocation.nodes) {
    if (grant.node >= 0 && static_cast<size_t>(grant.node) < plannedFrom_.size() &&
        plannedFrom_[grant.node] != kNeverEnds) {
      return true;
    }
  }
  return false;
}

bool BackfillPlan::plannedAlike(const select::Request& request, const select::PartitionView& partition) {
  for (const auto& [view, shape] : shapes_) {
    if (view == &partition && shape == request) {
      ++tried_;
      return true;
    }
  }
  return false;
}

void BackfillPlan::rememberShape(const select::Request& request, const select::PartitionView& partition) {
  shapes_.emplace_back(&partition, request);
  ++tried_;
}

const select::PartitionView& BackfillPlan::viewFor(const select::PartitionView& partition, int64_t end) {
  if (planned_ == 0) return partition;
  Narrowed& narrowed = narrowed_[&partition];
  if (narrowed.planned != planned_) {
    // Worked out again only when a plan was added since: once per plan and
    // partition, not once per job.
    narrowed.planned = planned_;
    narrowed.withoutPlanned = partition;
    narrowed.withoutPlanned.nodes.clear();
    narrowed.earliestStart = kNeverEnds;
    for (int node : partition.nodes) {
      int64_t from = static_cast<size_t>(node) < plannedFrom_.size() ? plannedFrom_[node] : kNeverEnds;
      if (from == kNeverEnds) {
        narrowed.withoutPlanned.nodes.push_back(node);
      } else {
        narrowed.earliestStart = std::min(narrowed.earliestStart, from);
      }
    }
  }
  if (narrowed.earliestStart == kNeverEnds || end <= narrowed.earliestStart) return partition;
  return narrowed.withoutPlanned;
}

}  // namespace gantry::core
