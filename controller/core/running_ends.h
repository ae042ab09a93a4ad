// When each running job gives its resources back, as start estimates
// (--test-only, backfill's planned starts) take it: at the end of its time
// limit. A job without a limit is taken to run for a year, so it never
// makes room in an estimate. Ends are rounded up to `resolution` seconds
// (bf_resolution). In endTime order (Cluster::estimateStartSorted).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "controller/core/records.h"
#include "controller/select/cluster.h"

namespace gantry::core {

inline constexpr int64_t kUnlimitedRunSeconds = 365 * 86400;

// `time` rounded up to a whole number of `resolution` seconds (bf_resolution:
// backfill plans on a grid, as Slurm's does).
inline int64_t roundUpTo(int64_t time, int64_t resolution) {
  if (resolution <= 1) return time;
  return (time + resolution - 1) / resolution * resolution;
}

inline std::vector<select::RunningJob> runningJobEnds(const std::map<uint64_t, JobRecord>& jobs, int64_t now,
                                                      int64_t resolution = 1) {
  std::vector<select::RunningJob> running;
  for (const auto& [id, job] : jobs) {
    if (!job.holdsResources) continue;
    int64_t limit = job.timeLimitSeconds > 0 ? job.timeLimitSeconds : kUnlimitedRunSeconds;
    running.push_back({.allocation = job.allocation, .endTime = roundUpTo(now - job.runSeconds(now) + limit, resolution)});
  }
  std::stable_sort(running.begin(), running.end(),
                   [](const select::RunningJob& a, const select::RunningJob& b) { return a.endTime < b.endTime; });
  return running;
}

// Adds a job started since the list was made, keeping the order.
inline void addRunningJob(std::vector<select::RunningJob>& running, select::RunningJob job) {
  auto at = std::upper_bound(running.begin(), running.end(), job.endTime,
                             [](int64_t end, const select::RunningJob& other) { return end < other.endTime; });
  running.insert(at, std::move(job));
}

}  // namespace gantry::core
