// A scheduling pass in progress (scheduling.cpp): the pending jobs it
// tests, highest priority first, and what it has planned so far. An
// event's pass (a submission, a job's end, a freed node) tests the first
// default_queue_depth jobs and ends at once; the periodic full pass tests
// the whole queue a slice at a time, giving the strand back between
// slices so that requests are answered while it runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "controller/core/backfill_plan.h"

namespace gantry::core {

struct SchedulingPass {
  std::vector<uint64_t> order;  // job ids, highest priority first
  size_t next = 0;              // the next of `order` to test
  std::optional<BackfillPlan> plan;  // under sched/backfill
  int64_t window = 0;           // bf_window, seconds
  int64_t resolution = 1;       // bf_resolution, seconds
  uint64_t epoch = 0;           // the core's state epoch when the pass gave the strand back
  uint64_t configuration = 0;   // the core's reconfigure count when the pass began
};

// Whether a pass that gave the strand back goes on: its plan names the
// partitions and nodes of the configuration it began under, so it ends
// after a reconfigure; and without bf_continue it ends when jobs or nodes
// changed meanwhile (Slurm's rule), since its order and plans are stale.
inline bool passGoesOn(const SchedulingPass& pass, uint64_t epochNow, uint64_t configurationsNow, bool bfContinue) {
  if (pass.configuration != configurationsNow) return false;
  return bfContinue || pass.next == 0 || pass.epoch == epochNow;
}

// Jobs the full pass tests before it gives the strand back: about 10 ms
// of selection on 10,000 nodes.
inline constexpr size_t kFullPassSlice = 100;

}  // namespace gantry::core
