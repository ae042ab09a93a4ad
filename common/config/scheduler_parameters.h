// The SchedulerParameters items that steer the scheduling passes
// (docs/scheduling.md, "Passes"): how deep an event's pass looks, how often
// the whole queue is tested, and backfill's limits. Pure: text in, values
// or an error out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gantry::config {

struct SchedulingParameters {
  int bfMaxJobTest = 500;     // bf_max_job_test: jobs one pass plans at most
  int bfMaxJobUser = 0;       // bf_max_job_user: of them per user; 0: no limit
  int64_t bfWindowSec = 86400;  // bf_window (minutes in the file): how far ahead a start is planned
  int bfResolutionSec = 60;   // bf_resolution: running jobs' ends are rounded up to it
  int bfIntervalSec = 30;     // bf_interval: between backfill passes; -1: no backfill
  bool bfContinue = false;    // bf_continue: a pass that gave the strand back goes on after changes
  int defaultQueueDepth = 100;  // default_queue_depth: jobs an event's pass tests
  int schedIntervalSec = 60;  // sched_interval: between full main passes; -1: no main passes

  bool backfillOn() const { return bfIntervalSec > 0; }
  bool mainPassesOn() const { return schedIntervalSec >= 0; }
};

// Reads one SchedulerParameters item into `into`. `recognised` is false
// for an item that is none of these keys; `error` names the item and what
// its value must be, and then `into` is unchanged.
struct ParameterReading {
  bool recognised = false;
  std::string error;
};
ParameterReading readSchedulingParameter(std::string_view item, SchedulingParameters& into);

}  // namespace gantry::config
