// What may be asked of the accounting store: the selections behind sacct
// and `sacctmgr show event`. Every filter that is set must hold (AND);
// within one filter any listed value will do (OR); an empty list does not
// filter. The rules, as in sacct:
//
// - Jobs are selected by their job record (stepId ""); a selected job's
//   steps come with it unless allocationsOnly (-X). A step whose job
//   record was never written is found by no query.
// - ids (-j): JobSelector{id} selects the job and its steps; {id, step}
//   selects only that step (under allocationsOnly, its job).
// - window (-S/-E) without states: the job was eligible, or running, at some
//   time in the window: eligible before the window's end, and not ended
//   before its start (a job still running has not ended). A job that never
//   became eligible is in no window.
// - window with states (-s): the job was in one of those states during the
//   window. PENDING: from eligible to its start (or its end, when it never
//   started). RUNNING: from start to end. SUSPENDED: the same, for a job
//   whose state is SUSPENDED. Any other state (COMPLETED, CANCELLED,
//   FAILED, TIMEOUT, ...): the job's state is that one and it ended inside
//   the window.
// - states without a window: the job's present state is one of them.
// - Events: the event overlaps the window (started before its end and
//   still open, or closed at or after its start); openOnly keeps only
//   events still open.
//
// States and names are compared exactly as stored; the commands make them
// upper case (states) before asking.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace gantry::accounting {

// [start, end], seconds since the epoch; an unset end is "no end".
struct TimeWindow {
  int64_t start = 0;
  int64_t end = std::numeric_limits<int64_t>::max();
};

// A job by id (an array's id: each of its tasks), or with arrayTask the
// task of array jobId with that index (sacct -j 12_4); stepId narrows it
// to one step.
struct JobSelector {
  uint64_t jobId = 0;
  std::optional<uint32_t> arrayTask;
  std::optional<std::string> stepId;
};

struct JobQuery {
  std::vector<std::string> clusters;
  std::vector<JobSelector> ids;
  std::vector<uint32_t> uids;
  std::vector<std::string> accounts;
  std::vector<std::string> states;
  std::optional<TimeWindow> window;
  bool allocationsOnly = false;
};

struct EventQuery {
  std::vector<std::string> clusters;
  std::vector<std::string> nodes;
  std::vector<std::string> states;
  std::optional<TimeWindow> window;
  bool openOnly = false;
};

}  // namespace gantry::accounting
