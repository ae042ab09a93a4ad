#include "controller/gang/partition_gang.h"

#include <algorithm>

namespace gantry::gang {

PartitionGang::PartitionGang(Resolution resolution, std::vector<int> capacity)
    : occupancy_(resolution, std::move(capacity)) {}

PartitionGang::Entry* PartitionGang::find(uint64_t job) {
  for (Entry& e : queue_)
    if (e.job.id == job) return &e;
  return nullptr;
}

const PartitionGang::Entry* PartitionGang::find(uint64_t job) const {
  return const_cast<PartitionGang*>(this)->find(job);
}

std::optional<GangState> PartitionGang::state(uint64_t job) const {
  const Entry* e = find(job);
  if (!e) return std::nullopt;
  return e->state;
}

std::vector<uint64_t> PartitionGang::order() const {
  std::vector<uint64_t> ids;
  ids.reserve(queue_.size());
  for (const Entry& e : queue_) ids.push_back(e.job.id);
  return ids;
}

bool PartitionGang::anyWaiting() const {
  return std::any_of(queue_.begin(), queue_.end(),
                     [](const Entry& e) { return e.state == GangState::Waiting; });
}

void PartitionGang::rebuildOccupancy() {
  occupancy_.clear();
  for (const Entry& e : queue_)
    if (e.state == GangState::Running) occupancy_.add(e.job);
}

void PartitionGang::fillWaiting(GangChanges& changes) {
  for (Entry& e : queue_) {
    if (e.state != GangState::Waiting || !occupancy_.fits(e.job)) continue;
    occupancy_.add(e.job);
    e.state = GangState::Running;
    changes.resume.push_back(e.job.id);
  }
}

bool PartitionGang::admit(GangJob job) {
  if (const Entry* known = find(job.id)) return known->state == GangState::Running;
  bool runs = occupancy_.fits(job);
  if (runs) occupancy_.add(job);
  queue_.push_back({std::move(job), runs ? GangState::Running : GangState::Waiting});
  return runs;
}

GangChanges PartitionGang::restore(GangJob job, GangState state) {
  GangChanges changes;
  if (find(job.id)) return changes;
  if (state == GangState::Running && !occupancy_.fits(job)) {
    state = GangState::Waiting;
    changes.suspend.push_back(job.id);
  }
  if (state == GangState::Running) occupancy_.add(job);
  queue_.push_back({std::move(job), state});
  return changes;
}

GangChanges PartitionGang::remove(uint64_t job) {
  GangChanges changes;
  auto it = std::find_if(queue_.begin(), queue_.end(),
                         [job](const Entry& e) { return e.job.id == job; });
  if (it == queue_.end()) return changes;
  bool wasRunning = it->state == GangState::Running;
  queue_.erase(it);
  if (wasRunning) {
    rebuildOccupancy();
    fillWaiting(changes);
  }
  return changes;
}

GangChanges PartitionGang::hold(uint64_t job) {
  GangChanges changes;
  Entry* e = find(job);
  if (!e || e->state == GangState::Held) return changes;
  bool wasRunning = e->state == GangState::Running;
  e->state = GangState::Held;
  if (wasRunning) {
    rebuildOccupancy();
    fillWaiting(changes);
  }
  return changes;
}

GangChanges PartitionGang::release(uint64_t job) {
  GangChanges changes;
  Entry* e = find(job);
  if (!e || e->state != GangState::Held) return changes;
  if (occupancy_.fits(e->job)) {
    occupancy_.add(e->job);
    e->state = GangState::Running;
    changes.resume.push_back(job);
  } else {
    e->state = GangState::Waiting;
  }
  return changes;
}

GangChanges PartitionGang::rotate() {
  GangChanges changes;
  if (!anyWaiting()) return changes;
  // Jobs that ran this slice go to the back, keeping their order; waiting
  // and held jobs keep theirs at the front, so the longest waiting leads.
  auto ran = std::stable_partition(queue_.begin(), queue_.end(),
                                   [](const Entry& e) { return e.state != GangState::Running; });
  for (auto it = ran; it != queue_.end(); ++it) it->state = GangState::Waiting;
  occupancy_.clear();
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    Entry& e = *it;
    bool ranBefore = it >= ran;
    bool runsNow = e.state == GangState::Waiting && occupancy_.fits(e.job);
    if (runsNow) {
      occupancy_.add(e.job);
      e.state = GangState::Running;
    }
    if (ranBefore && !runsNow) changes.suspend.push_back(e.job.id);
    if (!ranBefore && runsNow) changes.resume.push_back(e.job.id);
  }
  return changes;
}

}  // namespace gantry::gang
