// Everything selection knows about one node: the registered hardware, the
// derived topology (links, chunk domains, device-to-socket binding) and the
// current usage. Internal to the select library.
#pragma once

#include <cstdint>
#include <vector>

#include "common/gres/chunks.h"
#include "common/gres/link_graph.h"
#include "controller/select/cluster.h"
#include "controller/select/cpu_set.h"

namespace gantry::select {

using SocketMask = uint64_t;  // sockets beyond 64 share the last bit

struct NodeUsage {
  CpuSet freeCpus;
  gres::DeviceMask usedDevices = 0;
  uint64_t usedMemoryMb = 0;
  std::vector<uint64_t> usedCounts;  // parallel to NodeInfo::countGres
  int grants = 0;                    // allocations holding anything here
  bool wholeNode = false;            // held whole by one job
};

struct NodeState {
  NodeInfo info;
  bool usable = true;  // false when the node breaks the model's limits
  gres::LinkGraph links;
  std::vector<gres::ChunkDomain> domains;  // point into info.chunks: never copy a NodeState
  std::vector<SocketMask> deviceSockets;   // per device; 0 = no affinity known
  gres::DeviceMask allDevices = 0;
  int cpuCount = 0;
  int cpusPerSocket = 1;

  bool available = true;
  gres::DeviceMask drained = 0;
  NodeUsage usage;
  NodeUsage idle;  // the same node with nothing allocated, for canEverRun

  explicit NodeState(NodeInfo nodeInfo);
  NodeState(const NodeState&) = delete;
  NodeState& operator=(const NodeState&) = delete;

  int socketOfCpu(int cpu) const {
    int s = cpu / cpusPerSocket;
    return s < 63 ? s : 63;
  }
  gres::DeviceMask devicesNamed(const std::string& name, const std::string& type) const;
};

}  // namespace gantry::select
