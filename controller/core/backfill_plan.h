// Backfill (SchedulerType=sched/backfill, the default): the planned starts
// of pending jobs that cannot start now, and the nodes a job behind them
// may take without delaying any of them. Pure: node indexes and times, no
// clock and no cluster; the scheduling pass asks selection where and when
// a blocked job would start (Cluster::estimateStartSorted) and reserves that.
//
// Rules, one pass at a time (jobs come in priority order):
//   - a job that cannot start now is planned on the nodes, and from the
//     time, selection estimates from the running jobs' time limits, if
//     that time is within bf_window;
//   - a later job that will have ended before the earliest planned start
//     on its partition's nodes may use any of them: it is gone in time;
//   - any other later job may use only nodes that no planned start needs;
//   - at most `maxPlanned` jobs are planned in one pass (bf_max_job_test),
//     and at most `maxPerUser` of one user's (bf_max_job_user); later jobs
//     are still kept off the planned nodes, but plan nothing themselves;
//   - a job of a request already planned in the partition adds nothing
//     (the estimate would be the same): it is not estimated again.
//
// Threading: one pass owns one plan (the controller core's strand).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "controller/select/cluster.h"

namespace gantry::core {

inline constexpr int64_t kNeverEnds = std::numeric_limits<int64_t>::max();

class BackfillPlan {
 public:
  // maxPerUser 0: no limit per user.
  BackfillPlan(int maxPlanned, int maxPerUser) : maxPlanned_(maxPlanned), maxPerUser_(maxPerUser) {}

  // Whether another job of this user may still be planned in this pass.
  bool canPlan(uint32_t uid) const;
  // A blocked job will start at `start` on these nodes.
  void reserve(const std::vector<int>& nodes, int64_t start);
  // What an estimate planned for a request: no nodes when it found none.
  struct Planned {
    int64_t start = 0;
    std::vector<int> nodes;
  };
  // What was planned in this pass for a job of the same request in the
  // same partition, or nullptr: selection's estimate ignores plans, so it
  // would answer the same nodes and time again, and the plan already keeps
  // later jobs clear of them. Counts toward the limits when found.
  const Planned* plannedAlike(const select::Request& request, const select::PartitionView& partition);
  // A job of this request was estimated (whatever the estimate said):
  // counts toward the limits. Reserves what was planned.
  void plan(const select::Request& request, const select::PartitionView& partition, Planned planned);

  // The nodes of `partition` a job that ends at `end` (kNeverEnds without a
  // time limit) may be placed on: the partition itself, or a copy without
  // the planned nodes. The reference stays valid until the next reserve().
  const select::PartitionView& viewFor(const select::PartitionView& partition, int64_t end);
  // Whether any node of the allocation is planned for a job.
  bool anyPlanned(const select::Allocation& allocation) const;

 private:
  struct Narrowed {
    size_t planned = 0;  // planned_ when this was worked out
    select::PartitionView withoutPlanned;
    int64_t earliestStart = kNeverEnds;  // of the plans on the partition's nodes
  };

  int maxPlanned_;
  int maxPerUser_;
  int tried_ = 0;       // jobs estimated or planned alike, toward maxPlanned_
  std::map<uint32_t, int> triedByUser_;  // toward maxPerUser_
  size_t planned_ = 0;  // reserve() calls: views are worked out again after one
  std::vector<int64_t> plannedFrom_;  // by node index: the earliest start planned there
  std::map<const select::PartitionView*, Narrowed> narrowed_;
  struct Shape {
    const select::PartitionView* partition;
    select::Request request;
    Planned planned;
  };
  std::vector<Shape> shapes_;
};

}  // namespace gantry::core
