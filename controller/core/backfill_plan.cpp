#include "controller/core/backfill_plan.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>

namespace gantry::core {

namespace {

// The positive number after `key` in the last item that starts with it.
std::optional<int> parameter(const std::vector<std::string>& items, std::string_view key) {
  std::optional<int> value;
  for (const auto& item : items) {
    if (item.rfind(key, 0) != 0) continue;
    int parsed = 0;
    auto [end, error] = std::from_chars(item.data() + key.size(), item.data() + item.size(), parsed);
    if (error == std::errc{} && end == item.data() + item.size() && parsed > 0) value = parsed;
  }
  return value;
}

}  // namespace

int backfillMaxJobTest(const std::vector<std::string>& schedulerParameters) {
  return parameter(schedulerParameters, "bf_max_job_test=").value_or(500);
}

int64_t backfillWindowSeconds(const std::vector<std::string>& schedulerParameters) {
  return int64_t{60} * parameter(schedulerParameters, "bf_window=").value_or(1440);
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

const BackfillPlan::Planned* BackfillPlan::plannedAlike(const select::Request& request,
                                                        const select::PartitionView& partition) {
  for (const Shape& shape : shapes_) {
    if (shape.partition == &partition && shape.request == request) {
      ++tried_;
      return &shape.planned;
    }
  }
  return nullptr;
}

void BackfillPlan::plan(const select::Request& request, const select::PartitionView& partition, Planned planned) {
  if (!planned.nodes.empty()) reserve(planned.nodes, planned.start);
  shapes_.push_back(Shape{&partition, request, std::move(planned)});
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
