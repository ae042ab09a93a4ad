#include "controller/core/backfill_plan.h"

#include <algorithm>

namespace gantry::core {

bool BackfillPlan::canPlan(uint32_t uid) const {
  if (tried_ >= maxPlanned_) return false;
  if (maxPerUser_ == 0) return true;
  auto tried = triedByUser_.find(uid);
  return tried == triedByUser_.end() || tried->second < maxPerUser_;
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
      ++triedByUser_[request.uid];
      return &shape.planned;
    }
  }
  return nullptr;
}

void BackfillPlan::plan(const select::Request& request, const select::PartitionView& partition, Planned planned) {
  if (!planned.nodes.empty()) reserve(planned.nodes, planned.start);
  shapes_.push_back(Shape{&partition, request, std::move(planned)});
  ++tried_;
  ++triedByUser_[request.uid];
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
