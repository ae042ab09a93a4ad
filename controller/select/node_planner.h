// Decides what one node would give a job running `tasks` of its tasks there:
// devices for each demand (chunks, links, sockets, binding), cpus, memory and
// count-only GRES. Returns the grant or the rule that turned the node down.
#pragma once

#include "controller/select/job_shape.h"
#include "controller/select/node_state.h"

namespace gantry::select {

struct PlanInput {
  const Request& request;
  const JobShape& shape;
  int tasks = 0;
  int gpusWanted = 0;  // what is left of a --gpus total; the node may give fewer
  bool byCpu = false;  // CR_CPU
  bool allowSpec = false;
  bool chunkRules = true;  // false for steps inside an allocation
  bool spreadShares = false;  // MULTIPLE_SHARING_GRES_PJ
  bool wholeNodeCpus = false;  // select/linear: the grant takes every cpu of the node
  // The cpus the job may take; null means usage.freeCpus. An over-subscribing
  // pass passes the cpus held by fewer allocations than its level allows.
  const CpuSet* cpus = nullptr;
};

struct PlanResult {
  const char* rule = nullptr;  // null when the node fits
  NodeGrant grant;
  int perJobGpus = 0;  // how much of gpusWanted the grant covers
  bool ok() const { return rule == nullptr; }
};

// `usage` and `drained` are the node's present state, or its idle state for
// canEverRun. Only devices in `allowedDevices` may be given (steps use it to
// stay inside the job's allocation).
PlanResult planNode(const NodeState& node, const NodeUsage& usage, gres::DeviceMask drained,
                    const PlanInput& input, gres::DeviceMask allowedDevices = ~gres::DeviceMask{0});

}  // namespace gantry::select
