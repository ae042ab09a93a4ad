#include "controller/gang/occupancy.h"

#include <cassert>

namespace gantry::gang {

namespace {

bool countsUnits(Resolution r) { return r != Resolution::CpuCount; }

}  // namespace

Occupancy::Occupancy(Resolution resolution, std::vector<int> capacity)
    : resolution_(resolution), capacity_(std::move(capacity)) {
  if (resolution_ == Resolution::WholeNode)
    for (int& c : capacity_) c = 1;
  usedCount_.assign(capacity_.size(), 0);
  usedUnits_.reserve(capacity_.size());
  for (int c : capacity_) usedUnits_.emplace_back(c, false);
}

bool Occupancy::fits(const GangJob& job) const {
  for (const NodeClaim& claim : job.claims) {
    if (claim.node >= capacity_.size()) return false;
    if (resolution_ == Resolution::WholeNode) {
      if (usedCount_[claim.node] > 0) return false;
    } else if (countsUnits(resolution_)) {
      if (usedUnits_[claim.node].intersects(claim.units)) return false;
    } else if (usedCount_[claim.node] + claim.count > capacity_[claim.node]) {
      return false;
    }
  }
  return true;
}

void Occupancy::add(const GangJob& job) {
  assert(fits(job));
  for (const NodeClaim& claim : job.claims) {
    touched_.push_back(claim.node);
    if (resolution_ == Resolution::WholeNode) {
      usedCount_[claim.node] = 1;
    } else if (countsUnits(resolution_)) {
      usedUnits_[claim.node].unite(claim.units);
    } else {
      usedCount_[claim.node] += claim.count;
    }
  }
}

void Occupancy::clear() {
  for (uint32_t node : touched_) {
    usedCount_[node] = 0;
    usedUnits_[node] = select::CpuSet(capacity_[node], false);
  }
  touched_.clear();
}

}  // namespace gantry::gang
