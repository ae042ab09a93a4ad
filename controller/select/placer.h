// Builds a job's allocation from nodes offered one at a time, in the order
// the caller prefers: gives each node as many of the remaining tasks (and
// --gpus) as it can take, keeping enough tasks back for the minimum node
// count, until the job is complete or the node limit is reached.
#pragma once

#include "controller/select/node_planner.h"

namespace gantry::select {

struct PlacerOptions {
  bool byCpu = false;
  bool allowSpec = false;
  bool chunkRules = true;
  bool spreadShares = false;  // MULTIPLE_SHARING_GRES_PJ
  bool wholeNodeCpus = false;  // select/linear
  SelectTrace* trace = nullptr;
};

class Placer {
 public:
  Placer(const Request& request, const JobShape& shape, PlacerOptions options);

  // Tries the node; returns true once the job is complete. `cpus`, when
  // given, replaces usage.freeCpus as the cpus the job may take.
  bool offer(int index, const NodeState& node, const NodeUsage& usage, gres::DeviceMask drained,
             gres::DeviceMask allowed = ~gres::DeviceMask{0}, const CpuSet* cpus = nullptr);
  bool complete() const;
  int chosen() const { return static_cast<int>(allocation_.nodes.size()); }
  bool full() const { return static_cast<int>(allocation_.nodes.size()) >= shape_.maxNodes; }
  void rejectNode(int index, const char* rule);
  Allocation takeAllocation() { return std::move(allocation_); }

 private:
  const Request& request_;
  const JobShape& shape_;
  PlacerOptions options_;
  int tasksLeft_;
  int gpusLeft_;
  Allocation allocation_;
};

}  // namespace gantry::select
