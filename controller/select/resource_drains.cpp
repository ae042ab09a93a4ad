#include "controller/select/resource_drains.h"

#include <algorithm>
#include <climits>

namespace gantry::select {

namespace {

// What a drained cpu counts as holders: more than any over-subscription
// level, so no pass offers it.
constexpr uint16_t kDrainedCpuHolders = UINT16_MAX;

bool keyNamesEntry(const std::string& key, const gres::CountedGres& counted) {
  return key == gres::countedGresKey(counted) || key == counted.name;
}

uint64_t saturatingAdd(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

}  // namespace

ResourceDrains fitResourceDrains(const NodeState& node, ResourceDrains drains) {
  auto& cpus = drains.cpus;
  cpus.erase(std::remove_if(cpus.begin(), cpus.end(), [&](int c) { return c < 0 || c >= node.cpuCount; }),
             cpus.end());
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  auto& counts = drains.counts;
  counts.erase(std::remove_if(counts.begin(), counts.end(),
                              [&](const auto& entry) {
                                if (entry.second == 0) return true;
                                return std::none_of(node.counted.begin(), node.counted.end(),
                                                    [&](const auto& c) { return keyNamesEntry(entry.first, c); });
                              }),
               counts.end());
  return drains;
}

NodeUsage withResourceDrains(const NodeState& node, const NodeUsage& usage, const ResourceDrains& drains) {
  NodeUsage open = usage;
  for (int cpu : drains.cpus) {
    if (cpu < 0 || cpu >= open.freeCpus.size()) continue;
    open.freeCpus.reset(cpu);
    open.cpuHolders[cpu] = kDrainedCpuHolders;
    ++open.cpusDrained;
  }
  open.memoryDrainedMb = saturatingAdd(open.memoryDrainedMb, drains.memoryMb);
  if (!drains.counts.empty()) open.countsDrained.assign(node.counted.size(), 0);
  for (const auto& entry : drains.counts) {
    // Not a structured binding: a lambda below names the key.
    const std::string& key = entry.first;
    uint64_t amount = entry.second;
    // A key that names one entry exactly drains that entry; an untyped key
    // of a typed GRES covers its entries in order.
    auto exact = std::find_if(node.counted.begin(), node.counted.end(),
                              [&](const auto& c) { return key == gres::countedGresKey(c); });
    if (exact != node.counted.end()) {
      uint64_t& drained = open.countsDrained[exact - node.counted.begin()];
      drained = saturatingAdd(drained, amount);
      continue;
    }
    uint64_t left = amount;
    for (size_t i = 0; i < node.counted.size() && left > 0; ++i) {
      if (node.counted[i].name != key) continue;
      uint64_t room = node.counted[i].count - std::min(node.counted[i].count, open.countsDrained[i]);
      uint64_t take = std::min(left, room);
      open.countsDrained[i] += take;
      left -= take;
    }
  }
  return open;
}

void refreshOpenUsage(NodeState& node) {
  if (node.hasResourceDrains) node.openUsage = withResourceDrains(node, node.usage, node.resourceDrains);
}

void setNodeResourceDrains(NodeState& node, ResourceDrains drains) {
  node.resourceDrains = fitResourceDrains(node, std::move(drains));
  const ResourceDrains& fitted = node.resourceDrains;
  node.hasResourceDrains = !fitted.cpus.empty() || fitted.memoryMb > 0 || !fitted.counts.empty();
  if (!node.hasResourceDrains) {
    node.openUsage = NodeUsage{};
    node.openIdle = NodeUsage{};
    return;
  }
  node.openUsage = withResourceDrains(node, node.usage, fitted);
  node.openIdle = withResourceDrains(node, node.idle, fitted);
}

}  // namespace gantry::select
