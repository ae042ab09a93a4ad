#include "controller/select/node_state.h"

#include <algorithm>

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
  idle.freeCpus = CpuSet(cpuCount, true);
  idle.usedCounts.assign(info.countGres.size(), 0);
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
