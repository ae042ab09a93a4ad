// Device choice for one demand on one node, without cpus or memory.
#pragma once

#include <optional>

#include "controller/select/job_shape.h"
#include "controller/select/node_state.h"

namespace gantry::select {

struct DevicePick {
  const char* rule = nullptr;  // null on success
  gres::DeviceMask devices = 0;
  SocketMask sockets = 0;      // sockets chosen for --gpus-per-socket
};

struct DevicePickInput {
  const DeviceDemand& demand;
  int count = 0;              // devices wanted on this node (PerJob: at most this many)
  gres::DeviceMask available; // free, undrained, allowed, of this name and type
  gres::DeviceMask inUse = 0;  // held by other jobs or drained (chunk preference)
  LinkPolicy links = LinkPolicy::Prefer;
  int socketsPerNode = 0;
  bool canSpread = false;
  bool tasksPerNodeFixed = false;
  bool chunkRules = true;
};

// The chunk domain a demand falls under on this node, or null when the
// devices are allocated one by one. Sets `rule` when an untyped request meets
// a node that mixes chunked types.
const gres::ChunkDomain* chunkDomainFor(const NodeState& node, const DeviceDemand& demand,
                                        const char** rule);

DevicePick pickForDemand(const NodeState& node, const DevicePickInput& input);

}  // namespace gantry::select
