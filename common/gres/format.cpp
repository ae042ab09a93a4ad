#include "common/gres/format.h"

#include <bit>

#include "common/gres/chunks.h"
#include "common/gres/index_list.h"
#include "common/gres/shared.h"

namespace gantry::gres {

namespace {

std::string groupName(const DeviceInfo& device) {
  return device.type.empty() ? device.name : device.name + ":" + device.type;
}

// name:type groups in order of first appearance, each with its device mask.
std::vector<std::pair<std::string, DeviceMask>> deviceGroups(const std::vector<DeviceInfo>& devices) {
  std::vector<std::pair<std::string, DeviceMask>> groups;
  for (int i = 0; i < static_cast<int>(devices.size()) && i < kMaxDevicesPerNode; ++i) {
    std::string key = groupName(devices[i]);
    auto it = groups.begin();
    while (it != groups.end() && it->first != key) ++it;
    if (it == groups.end()) groups.emplace_back(key, bitOf(i));
    else it->second |= bitOf(i);
  }
  return groups;
}

std::string joinSlash(const std::vector<int>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i ? "/" : "") + std::to_string(values[i]);
  return out;
}

std::string indexesIn(DeviceMask mask) { return formatIndexList(maskToIndexes(mask)); }

}  // namespace

std::string formatGresChunks(const std::vector<DeviceInfo>& devices,
                             const std::vector<ChunkLayout>& layouts) {
  std::string out;
  auto domains = chunkDomains(devices, layouts);
  for (const auto& domain : domains) {
    const ChunkLayout& layout = *domain.layout;
    std::vector<int> order = layout.order;
    if (order.empty())
      for (int i = 0; i < static_cast<int>(domain.devices.size()); ++i) order.push_back(i);
    if (!out.empty()) out += ',';
    out += layout.name + (layout.type.empty() ? "" : ":" + layout.type);
    out += ":sizes=" + joinSlash(layout.sizes) + ";order=" + joinSlash(order);
  }
  return out;
}

std::string formatCount(uint64_t count) {
  static const char kSuffix[] = {'K', 'M', 'G', 'T', 'P'};
  if (count == 0) return "0";
  int level = -1;
  while (level < 4 && count % 1024 == 0) {
    count /= 1024;
    ++level;
  }
  return std::to_string(count) + (level >= 0 ? std::string(1, kSuffix[level]) : "");
}

std::string formatDeviceGrant(const std::vector<DeviceInfo>& devices, DeviceMask mask) {
  std::string out;
  for (const auto& [name, groupMask] : deviceGroups(devices)) {
    DeviceMask taken = groupMask & mask;
    if (!taken) continue;
    if (!out.empty()) out += ',';
    out += name + ":" + std::to_string(std::popcount(taken)) + "(IDX:" + indexesIn(taken) + ")";
  }
  return out;
}

std::string formatGresUsed(const std::vector<DeviceInfo>& devices, DeviceMask used) {
  std::string out;
  for (const auto& [name, groupMask] : deviceGroups(devices)) {
    DeviceMask taken = groupMask & used;
    if (!out.empty()) out += ',';
    out += name + ":" + std::to_string(std::popcount(taken)) + "(IDX:" +
           (taken ? indexesIn(taken) : std::string("N/A")) + ")";
  }
  return out;
}

std::string formatSharedUsed(const std::vector<DeviceInfo>& devices, const std::string& name,
                             const std::vector<uint64_t>& usedPerDevice, DeviceMask heldWhole, DeviceMask drained) {
  std::string entries;
  uint64_t total = 0;
  for (int d = 0; d < static_cast<int>(devices.size()) && d < kMaxDevicesPerNode; ++d) {
    uint64_t count = sharedCountOf(devices[d], name);
    if (count == 0) continue;
    uint64_t used = d < static_cast<int>(usedPerDevice.size()) ? usedPerDevice[d] : 0;
    total += used;
    bool isDrained = (drained & bitOf(d)) != 0;
    std::string held = (heldWhole & bitOf(d))     ? "-"
                       : isDrained && used == 0   ? ""
                                                  : std::to_string(used);
    if (!entries.empty()) entries += ',';
    entries += (isDrained ? "d" : "") + held + "/" + std::to_string(count);
  }
  return name + ":" + std::to_string(total) + "(" + entries + ")";
}

std::string formatShareGrant(const std::vector<DeviceInfo>& devices, const std::string& name,
                             const std::vector<std::pair<int, uint64_t>>& deviceShares) {
  uint64_t total = 0;
  std::vector<uint64_t> held(devices.size(), 0);
  for (const auto& [device, count] : deviceShares) {
    total += count;
    if (device >= 0 && device < static_cast<int>(held.size())) held[device] += count;
  }
  if (total == 0) return "";
  std::string entries;
  for (size_t d = 0; d < devices.size(); ++d) {
    uint64_t capacity = sharedCountOf(devices[d], name);
    if (capacity == 0) continue;
    if (!entries.empty()) entries += ',';
    entries += std::to_string(held[d]) + "/" + std::to_string(capacity);
  }
  return name + ":" + std::to_string(total) + "(" + entries + ")";
}

std::string formatCounted(const std::string& name, const std::string& type, uint64_t count) {
  return name + (type.empty() ? "" : ":" + type) + ":" + formatCount(count);
}

std::string formatGresTotals(const std::vector<DeviceInfo>& devices,
                             const std::vector<std::pair<std::string, uint64_t>>& countGres) {
  std::string out;
  for (const auto& [name, groupMask] : deviceGroups(devices)) {
    if (!out.empty()) out += ',';
    out += name + ":" + std::to_string(std::popcount(groupMask));
  }
  for (const auto& [name, count] : countGres) {
    if (!out.empty()) out += ',';
    out += name + ":" + formatCount(count);
  }
  return out;
}

}  // namespace gantry::gres
