// Timeslicing of one over-subscribed partition (sched/gang), as a pure
// policy: the core tells it what happened (a job was allocated, ended, was
// held by an administrator, the slice timer fired) and it answers which jobs
// to suspend and which to resume. No I/O, no clock: the caller owns the
// SchedulerTimeSlice timer.
//
// The model. Jobs are kept in a rotation queue. The active set is a group of
// jobs whose resources are disjoint (see Occupancy). A new job that fits
// beside the active set runs at once ("local backfill"); one that overlaps
// it starts suspended. When a slice ends and some job is waiting, the jobs
// that ran move to the back of the queue, keeping their order, and the
// active set is rebuilt from the front: the job that has waited longest
// first, then every following job that still fits. A job that ends frees its
// place at once: waiting jobs that now fit resume, in queue order.
//
// Jobs held by an administrator (scontrol suspend) keep their queue place
// but are never part of the active set until released.
//
// Not thread-safe; the controller core owns one per timesliced partition.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "controller/gang/occupancy.h"

namespace gantry::gang {

// What the executor must do, in this order: suspend first, then resume, so
// that resources are never committed to two jobs at once.
struct GangChanges {
  std::vector<uint64_t> suspend;
  std::vector<uint64_t> resume;
  bool empty() const { return suspend.empty() && resume.empty(); }
};

enum class GangState { Running, Waiting, Held };

class PartitionGang {
 public:
  PartitionGang(Resolution resolution, std::vector<int> capacity);

  // A job newly allocated in the partition. Returns true when it may run
  // now, false when it must start suspended (it overlaps the active set).
  // A job already known is left as it is and reported by its state.
  bool admit(GangJob job);

  // Restores a job after a controller restart in the state it was saved in,
  // appended to the queue in call order (call for waiting jobs first,
  // longest waiting first, then running ones). A running job that no longer
  // fits beside the others is restored waiting and returned in suspend.
  GangChanges restore(GangJob job, GangState state);

  // The job ended or left the partition. Waiting jobs that now fit resume.
  GangChanges remove(uint64_t job);

  // An administrator suspended the job: it leaves the active set and its
  // place is filled. Unknown jobs are ignored.
  GangChanges hold(uint64_t job);
  // An administrator resumed the job: it runs now if it fits beside the
  // active set, otherwise it waits for its turn in its old queue place.
  GangChanges release(uint64_t job);

  // The slice timer fired. Nothing changes while no job is waiting.
  GangChanges rotate();

  std::optional<GangState> state(uint64_t job) const;
  // Queue order, front first (for tests and `scontrol show` debugging).
  std::vector<uint64_t> order() const;
  size_t size() const { return queue_.size(); }
  bool anyWaiting() const;

 private:
  struct Entry {
    GangJob job;
    GangState state = GangState::Waiting;
  };

  Entry* find(uint64_t job);
  const Entry* find(uint64_t job) const;
  // Adds waiting jobs that fit beside the current occupancy, in queue order.
  void fillWaiting(GangChanges& changes);
  void rebuildOccupancy();

  std::vector<Entry> queue_;
  Occupancy occupancy_;
};

}  // namespace gantry::gang
