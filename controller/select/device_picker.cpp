#include "controller/select/device_picker.h"

#include <algorithm>
#include <bit>

#include "controller/select/rules.h"

namespace gantry::select {

namespace {

gres::LinkMode linkModeFor(const DeviceDemand& demand, LinkPolicy policy) {
  // Shared GRES never follow links.
  if (demand.name == "mps" || demand.name == "shard") return gres::LinkMode::Ignore;
  switch (policy) {
    case LinkPolicy::Enforce: return gres::LinkMode::Enforce;
    case LinkPolicy::Ignore: return gres::LinkMode::Ignore;
    case LinkPolicy::Prefer: break;
  }
  return gres::LinkMode::Prefer;
}

DevicePick failed(const char* rule) { return DevicePick{rule, 0, 0}; }

DevicePick pickChunked(const gres::ChunkDomain& domain, const DevicePickInput& in) {
  switch (in.demand.kind) {
    case DemandKind::PerJob: return failed(rules::kChunkUnfixed);
    case DemandKind::PerSocket: return failed(rules::kChunkPerSocket);
    case DemandKind::PerTask:
      if (!in.tasksPerNodeFixed) return failed(rules::kChunkUnfixed);
      break;
    case DemandKind::PerNode: break;
  }
  if (!gres::isChunkCount(domain, in.count)) return failed(rules::kChunkCount);
  if (in.count < static_cast<int>(domain.devices.size()) && in.canSpread) return failed(rules::kChunkSpread);
  auto chunk = gres::pickChunk(domain, in.available & domain.mask, in.count, in.inUse);
  if (!chunk) return failed(rules::kChunkNoneFree);
  return DevicePick{nullptr, *chunk, 0};
}

// --gpus-per-socket: the count on each of socketsPerNode sockets. Devices
// with no known affinity may serve any socket.
DevicePick pickPerSocket(const NodeState& node, const DevicePickInput& in, gres::LinkMode mode) {
  int sockets = std::min(node.info.sockets, 64);
  gres::DeviceMask unbound = 0;
  std::vector<gres::DeviceMask> onSocket(sockets, 0);
  for (gres::DeviceMask rest = in.available; rest; rest &= rest - 1) {
    int d = std::countr_zero(rest);
    if (node.deviceSockets[d] == 0) unbound |= gres::bitOf(d);
    for (int s = 0; s < sockets; ++s)
      if ((node.deviceSockets[d] >> s) & 1) onSocket[s] |= gres::bitOf(d);
  }
  std::vector<int> order(sockets);
  for (int s = 0; s < sockets; ++s) order[s] = s;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return std::popcount(onSocket[a]) > std::popcount(onSocket[b]);
  });
  DevicePick pick;
  int served = 0;
  for (int s : order) {
    if (served == in.socketsPerNode) break;
    auto got = gres::pickDevices(node.links, (onSocket[s] | unbound) & ~pick.devices, in.demand.count,
                                 gres::LinkPickOptions{.mode = mode});
    if (!got) continue;
    pick.devices |= *got;
    pick.sockets |= SocketMask{1} << s;
    ++served;
  }
  if (served < in.socketsPerNode) return failed(rules::kPerSocket);
  return pick;
}

}  // namespace

const gres::ChunkDomain* chunkDomainFor(const NodeState& node, const DeviceDemand& demand,
                                        const char** rule) {
  const gres::ChunkDomain* match = nullptr;
  bool anyOfName = false;
  for (const auto& domain : node.domains) {
    if (domain.layout->name != demand.name) continue;
    anyOfName = true;
    if (!demand.type.empty() && domain.layout->type == demand.type) return &domain;
    if (demand.type.empty()) match = &domain;
  }
  if (!demand.type.empty() || !anyOfName) return nullptr;
  // Untyped: chunk rules hold only when every device of the name is in one domain.
  if (match && node.devicesNamed(demand.name, "") == match->mask) return match;
  *rule = rules::kChunkMixedTypes;
  return nullptr;
}

DevicePick pickForDemand(const NodeState& node, const DevicePickInput& in) {
  if (in.chunkRules) {
    const char* rule = nullptr;
    const gres::ChunkDomain* domain = chunkDomainFor(node, in.demand, &rule);
    if (rule) return failed(rule);
    if (domain) return pickChunked(*domain, in);
  }
  gres::LinkMode mode = linkModeFor(in.demand, in.links);
  if (in.demand.kind == DemandKind::PerSocket && mode != gres::LinkMode::Enforce)
    return pickPerSocket(node, in, mode);
  gres::LinkPickOptions options{.mode = mode};
  if (in.demand.kind == DemandKind::PerJob) {
    // As many as this node can give, down to none; enforce-links takes the
    // largest linked set, which may push the rest onto more nodes.
    for (int c = std::min(in.count, std::popcount(in.available)); c >= 1; --c)
      if (auto got = gres::pickDevices(node.links, in.available, c, options)) return DevicePick{nullptr, *got, 0};
    return DevicePick{};
  }
  auto got = gres::pickDevices(node.links, in.available, in.count, options);
  if (got) return DevicePick{nullptr, *got, 0};
  bool enoughFree = std::popcount(in.available) >= in.count;
  return failed(enoughFree && mode == gres::LinkMode::Enforce ? rules::kLinks : rules::kDevices);
}

}  // namespace gantry::select
