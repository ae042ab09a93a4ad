#include "controller/select/node_state.h"

#include <algorithm>
#include <bit>

#include "common/gres/shared.h"

namespace gantry::select {

NodeState::NodeState(NodeInfo nodeInfo) : info(std::move(nodeInfo)) {
  info.sockets = std::max(info.sockets, 1);
  info.coresPerSocket = std::max(info.coresPerSocket, 1);
  info.threadsPerCore = std::max(info.threadsPerCore, 1);
  usable = Cluster::validateNode(info).ok();
  int deviceCount = std::min<int>(info.devices.size(), gres::kMaxDevicesPerNode);
  allDevices = gres::lowBits(deviceCount);
  links = gres::LinkGraph::fromDevices(info.devices);
  domains = gres::chunkDomains(info.devices, info.chunks);
  cpusPerSocket = info.coresPerSocket * info.threadsPerCore;
  cpuCount = info.sockets * cpusPerSocket;
  deviceSockets.assign(deviceCount, 0);
  for (int d = 0; d < deviceCount; ++d)
    for (int core : info.devices[d].cores) {
      if (core < 0) continue;
      int socket = std::min(core / info.coresPerSocket, 63);
      deviceSockets[d] |= SocketMask{1} << socket;
    }
  for (const auto& [name, count] : info.countGres) counted.push_back({name, "", count, false});
  counted.insert(counted.end(), info.countedGres.begin(), info.countedGres.end());
  for (const auto& name : gres::sharedNamesOf(info.devices)) {
    SharedPool pool{name, std::vector<uint64_t>(deviceCount, 0), 0};
    for (int d = 0; d < deviceCount; ++d) {
      pool.capacity[d] = gres::sharedCountOf(info.devices[d], name);
      if (pool.capacity[d] > 0) pool.devices |= gres::bitOf(d);
    }
    pools.push_back(std::move(pool));
  }
  keepRestrictedCores();
  idle.freeCpus = CpuSet(cpuCount, true);
  idle.cpuHolders.assign(cpuCount, 0);
  idle.cpuGroup.assign(cpuCount, -1);
  idle.usedCounts.assign(counted.size(), 0);
  idle.sharesUsed.assign(pools.size(), std::vector<uint64_t>(deviceCount, 0));
  usage = idle;
}

gres::DeviceMask NodeState::devicesNamed(const std::string& name, const std::string& type) const {
  gres::DeviceMask mask = 0;
  int n = std::min<int>(info.devices.size(), gres::kMaxDevicesPerNode);
  for (int d = 0; d < n; ++d)
    if (info.devices[d].name == name && (type.empty() || info.devices[d].type == type))
      mask |= gres::bitOf(d);
  return mask;
}

}  // namespace gantry::select

namespace gantry::select {

int NodeState::poolIndex(const std::string& name) const {
  for (size_t p = 0; p < pools.size(); ++p)
    if (pools[p].name == name) return static_cast<int>(p);
  return -1;
}

uint64_t NodeState::freeShares(const NodeUsage& usage, gres::DeviceMask drained, int p, int d) const {
  gres::DeviceMask bit = gres::bitOf(d);
  if (!(pools[p].devices & bit) || (usage.usedDevices & bit) || (drained & bit)) return 0;
  for (size_t other = 0; other < pools.size(); ++other)
    if (static_cast<int>(other) != p && usage.sharesUsed[other][d] > 0) return 0;
  uint64_t used = usage.sharesUsed[p][d];
  return pools[p].capacity[d] - std::min(used, pools[p].capacity[d]);
}

uint64_t NodeState::shareRoom(const NodeUsage& usage, gres::DeviceMask drained, bool spread) const {
  uint64_t room = 0;
  for (size_t p = 0; p < pools.size(); ++p) {
    uint64_t poolRoom = 0;
    for (gres::DeviceMask rest = pools[p].devices; rest; rest &= rest - 1) {
      uint64_t free = freeShares(usage, drained, static_cast<int>(p), std::countr_zero(rest));
      poolRoom = spread ? poolRoom + free : std::max(poolRoom, free);
    }
    room = std::max(room, poolRoom);
  }
  return room;
}

std::vector<std::vector<int>> restrictedCoresByDevice(const NodeInfo& node) {
  std::vector<std::vector<int>> byDevice(std::min<size_t>(node.devices.size(), gres::kMaxDevicesPerNode));
  if (node.restrictedCoresPerGpu <= 0) return byDevice;
  const int cores = std::max(node.sockets, 1) * std::max(node.coresPerSocket, 1);
  std::vector<bool> kept(cores, false);
  for (size_t d = 0; d < byDevice.size(); ++d) {
    if (node.devices[d].name != "gpu") continue;
    for (int core : node.devices[d].cores) {
      if (static_cast<int>(byDevice[d].size()) == node.restrictedCoresPerGpu) break;
      if (core < 0 || core >= cores || kept[core]) continue;
      kept[core] = true;
      byDevice[d].push_back(core);
    }
  }
  return byDevice;
}

void NodeState::keepRestrictedCores() {
  auto byDevice = restrictedCoresByDevice(info);
  keptCpusOfDevice.assign(byDevice.size(), CpuSet(cpuCount, false));
  restricted = CpuSet(cpuCount, false);
  for (size_t d = 0; d < byDevice.size(); ++d) {
    for (int core : byDevice[d]) {
      restrictedCores.push_back(core);
      for (int t = 0; t < info.threadsPerCore; ++t) {
        keptCpusOfDevice[d].set(core * info.threadsPerCore + t);
        restricted.set(core * info.threadsPerCore + t);
      }
    }
  }
  std::sort(restrictedCores.begin(), restrictedCores.end());
  hasRestricted = !restrictedCores.empty();
}

CpuSet NodeState::openToDevices(const CpuSet& free, gres::DeviceMask devices) const {
  if (!hasRestricted) return free;
  CpuSet closed = restricted;
  for (gres::DeviceMask rest = devices & allDevices; rest; rest &= rest - 1) {
    const CpuSet& own = keptCpusOfDevice[std::countr_zero(rest)];
    for (int c = 0; c < cpuCount; ++c)
      if (own.test(c)) closed.reset(c);
  }
  CpuSet open = free;
  for (int c = 0; c < std::min(cpuCount, open.size()); ++c)
    if (closed.test(c)) open.reset(c);
  return open;
}

void NodeState::refreshSharedDevices(NodeUsage& usage) const {
  usage.sharedDevices = 0;
  for (const auto& perDevice : usage.sharesUsed)
    for (size_t d = 0; d < perDevice.size(); ++d)
      if (perDevice[d] > 0) usage.sharedDevices |= gres::bitOf(static_cast<int>(d));
}

}  // namespace gantry::select
