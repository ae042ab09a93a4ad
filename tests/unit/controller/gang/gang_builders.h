// Builders for gang tests: jobs claiming whole nodes, core ranges or CPU
// counts, written in a line each.
#pragma once

#include <initializer_list>
#include <utility>

#include "controller/gang/partition_gang.h"

namespace gantry::gang::test {

// A job holding whole nodes first..last (inclusive).
inline GangJob onNodes(uint64_t id, uint32_t first, uint32_t last) {
  GangJob job{.id = id};
  for (uint32_t n = first; n <= last; ++n) job.claims.push_back({.node = n, .units = select::CpuSet(1, true)});
  return job;
}

// A job holding units [from, to] (inclusive) of `unitsPerNode` on each node
// first..last.
inline GangJob onUnits(uint64_t id, uint32_t first, uint32_t last, int unitsPerNode,
                       std::pair<int, int> range) {
  GangJob job{.id = id};
  for (uint32_t n = first; n <= last; ++n) {
    select::CpuSet units(unitsPerNode, false);
    for (int u = range.first; u <= range.second; ++u) units.set(u);
    job.claims.push_back({.node = n, .units = units});
  }
  return job;
}

// A job counting `cpus` CPUs on each node first..last.
inline GangJob withCpus(uint64_t id, uint32_t first, uint32_t last, int cpus) {
  GangJob job{.id = id};
  for (uint32_t n = first; n <= last; ++n) job.claims.push_back({.node = n, .count = cpus});
  return job;
}

inline std::vector<int> nodes(size_t count, int capacity = 1) {
  return std::vector<int>(count, capacity);
}

}  // namespace gantry::gang::test
