// What the active set of one gang partition holds, node by node, at the
// resolution the partition's selection uses. Pure: no I/O, no clock.
//
// Whole nodes, sockets and cores are units a job claims by index: two jobs
// fit together only when their units are disjoint (CR_Core jobs stay pinned
// to their cores, so only jobs that share cores alternate). CPUs as counts
// (CR_CPU) are a number per node: jobs fit together while the sum stays
// within the node's CPUs, so every sharer takes turns.
//
// Not thread-safe; owned by one PartitionGang.
#pragma once

#include <cstdint>
#include <vector>

#include "controller/select/cpu_set.h"

namespace gantry::gang {

enum class Resolution { WholeNode, Socket, Core, CpuCount };

// What a job holds on one node of its partition.
struct NodeClaim {
  uint32_t node = 0;       // index into the partition's node capacities
  select::CpuSet units;    // claimed units (WholeNode, Socket, Core)
  int count = 0;           // claimed CPUs (CpuCount)
};

struct GangJob {
  uint64_t id = 0;
  std::vector<NodeClaim> claims;
};

class Occupancy {
 public:
  // capacity[i] is node i's units (sockets or cores) or CPUs; ignored for
  // WholeNode, where a node is one unit.
  Occupancy(Resolution resolution, std::vector<int> capacity);

  Resolution resolution() const { return resolution_; }
  // True when the job can run beside everything added since the last clear.
  // A claim on a node the partition does not know never fits.
  bool fits(const GangJob& job) const;
  // Precondition: fits(job).
  void add(const GangJob& job);
  void clear();

 private:
  Resolution resolution_;
  std::vector<int> capacity_;
  std::vector<select::CpuSet> usedUnits_;
  std::vector<int> usedCount_;
  std::vector<uint32_t> touched_;  // nodes to reset on clear()
};

}  // namespace gantry::gang
