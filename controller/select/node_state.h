// Everything selection knows about one node: the registered hardware, the
// derived topology (links, chunk domains, device-to-socket binding) and the
// current usage. Internal to the select library.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/gres/chunks.h"
#include "common/gres/link_graph.h"
#include "controller/select/cluster.h"
#include "controller/select/cpu_set.h"
#include "controller/select/user_sharing.h"

namespace gantry::select {

using SocketMask = uint64_t;  // sockets beyond 64 share the last bit

struct NodeUsage {
  CpuSet freeCpus;  // cpus no allocation holds
  // Per cpu: how many committed allocations hold it (above 1 only where a
  // partition over-subscribes cpus).
  std::vector<uint16_t> cpuHolders;
  // Per cpu: the share group of its holders (meaningless while free).
  std::vector<int> cpuGroup;
  gres::DeviceMask usedDevices = 0;
  uint64_t usedMemoryMb = 0;
  std::vector<uint64_t> usedCounts;  // parallel to NodeState::counted
  // Shares held, [pool][device], pools as in NodeState::pools.
  std::vector<std::vector<uint64_t>> sharesUsed;
  gres::DeviceMask sharedDevices = 0;  // devices holding any share: never given whole
  int grants = 0;                    // allocations holding anything here
  // Allocations here per user, and how many of them are --exclusive=user.
  std::map<uint32_t, UserGrants> grantsByUser;
  bool wholeNode = false;            // held whole by one job
  // What resource drains keep out of service in this view (NodeState::openUsage,
  // openIdle; zero elsewhere). Drained cpus are also out of freeCpus and
  // counted as held past any sharing level; memory and counts are
  // subtracted by the planner, so what jobs hold stays apart from it.
  int cpusDrained = 0;
  uint64_t memoryDrainedMb = 0;
  std::vector<uint64_t> countsDrained;  // parallel to usedCounts; empty when nothing is drained
};

// One shared GRES name on a node: how many shares each device offers.
struct SharedPool {
  std::string name;
  std::vector<uint64_t> capacity;  // per device, 0 where it offers none
  gres::DeviceMask devices = 0;    // devices offering any
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
  std::vector<SharedPool> pools;      // one per shared GRES name offered
  std::vector<gres::CountedGres> counted;  // NodeInfo::countGres, then NodeInfo::countedGres
  // RestrictedCoresPerGPU: the cpus each device keeps (empty sets where it
  // keeps none) and all of them; `restricted` is empty when none is kept.
  std::vector<CpuSet> keptCpusOfDevice;
  CpuSet restricted;
  bool hasRestricted = false;
  // The cores every GPU keeps, node-wide ids in order (scontrol show node).
  std::vector<int> restrictedCores;

  bool available = true;
  gres::DeviceMask drained = 0;
  NodeUsage usage;
  NodeUsage idle;  // the same node with nothing allocated, for canEverRun
  // Drained cpus, memory and counts (Cluster::setResourceDrains), and the
  // views new work plans against when there are any: usage and idle with
  // the drained part taken out (resource_drains.h). A node without them
  // plans against usage and idle themselves, at no extra cost.
  ResourceDrains resourceDrains;
  bool hasResourceDrains = false;
  NodeUsage openUsage;
  NodeUsage openIdle;
  const NodeUsage& schedulable() const { return hasResourceDrains ? openUsage : usage; }
  const NodeUsage& schedulableIdle() const { return hasResourceDrains ? openIdle : idle; }

  explicit NodeState(NodeInfo nodeInfo);
  NodeState(const NodeState&) = delete;
  NodeState& operator=(const NodeState&) = delete;

  int socketOfCpu(int cpu) const {
    int s = cpu / cpusPerSocket;
    return s < 63 ? s : 63;
  }
  gres::DeviceMask devicesNamed(const std::string& name, const std::string& type) const;
  int poolIndex(const std::string& name) const;
  // Free shares of pool `p` on device `d` under `usage`; 0 when the device
  // is held whole, drained, or holds shares of another pool.
  uint64_t freeShares(const NodeUsage& usage, gres::DeviceMask drained, int p, int d) const;
  // The largest share request any one call could still place here: the
  // free shares of the best device, or of all devices when `spread`.
  uint64_t shareRoom(const NodeUsage& usage, gres::DeviceMask drained, bool spread) const;
  // Recomputes usage.sharedDevices from usage.sharesUsed.
  void refreshSharedDevices(NodeUsage& usage) const;
  // `free` less the cpus kept for GPUs a job holding `devices` does not
  // hold (RestrictedCoresPerGPU); a copy of `free` when nothing is kept.
  CpuSet openToDevices(const CpuSet& free, gres::DeviceMask devices) const;

 private:
  void keepRestrictedCores();  // fills keptCpusOfDevice, restricted, restrictedCores
};

}  // namespace gantry::select
