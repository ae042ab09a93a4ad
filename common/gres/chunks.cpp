#include "common/gres/chunks.h"

#include <algorithm>
#include <string>

namespace gantry::gres {

std::vector<ChunkDomain> chunkDomains(const std::vector<DeviceInfo>& devices,
                                      const std::vector<ChunkLayout>& layouts) {
  std::vector<ChunkDomain> domains;
  for (const auto& layout : layouts) {
    ChunkDomain domain;
    domain.layout = &layout;
    for (int i = 0; i < static_cast<int>(devices.size()) && i < kMaxDevicesPerNode; ++i)
      if (devices[i].name == layout.name && devices[i].type == layout.type) {
        domain.devices.push_back(i);
        domain.mask |= bitOf(i);
      }
    domains.push_back(std::move(domain));
  }
  return domains;
}

Status validateChunkLayout(const ChunkLayout& layout, int domainDevices) {
  std::string what = "gres/" + layout.name + (layout.type.empty() ? "" : ":" + layout.type);
  if (layout.sizes.empty()) return Error{what + ": ChunkOrder is set without ChunkSizes"};
  for (size_t i = 0; i < layout.sizes.size(); ++i) {
    int size = layout.sizes[i];
    if (size <= 0 || size > kMaxChunkDomainDevices)
      return Error{what + ": ChunkSizes value " + std::to_string(size) + " is outside 1-1024"};
    if (i > 0 && (size <= layout.sizes[i - 1] || size % layout.sizes[i - 1] != 0))
      return Error{what + ": ChunkSizes must ascend with each size a multiple of the one before (" +
                   std::to_string(size) + " after " + std::to_string(layout.sizes[i - 1]) + ")"};
  }
  if (domainDevices <= 0) return Error{what + ": chunk domain has no devices"};
  if (domainDevices > kMaxChunkDomainDevices)
    return Error{what + ": chunk domain has " + std::to_string(domainDevices) +
                 " devices, more than 1024"};
  int largest = layout.sizes.back();
  if (domainDevices < largest || domainDevices % largest != 0)
    return Error{what + ": chunk domain of " + std::to_string(domainDevices) +
                 " devices is not a multiple of the largest chunk size " + std::to_string(largest)};
  if (!layout.order.empty()) {
    if (static_cast<int>(layout.order.size()) != domainDevices)
      return Error{what + ": ChunkOrder has " + std::to_string(layout.order.size()) +
                   " entries but the chunk domain has " + std::to_string(domainDevices) + " devices"};
    std::vector<bool> seen(domainDevices, false);
    for (int entry : layout.order) {
      if (entry < 0 || entry >= domainDevices)
        return Error{what + ": ChunkOrder entry " + std::to_string(entry) + " is outside 0-" +
                     std::to_string(domainDevices - 1)};
      if (seen[entry]) return Error{what + ": ChunkOrder repeats entry " + std::to_string(entry)};
      seen[entry] = true;
    }
  }
  return okStatus();
}

DeviceMask chunkMask(const ChunkDomain& domain, int size, int start) {
  DeviceMask mask = 0;
  const auto& order = domain.layout->order;
  int n = static_cast<int>(domain.devices.size());
  for (int position = start; position < start + size && position < n; ++position) {
    int ordinal = order.empty() ? position : order[position];
    if (ordinal >= 0 && ordinal < n) mask |= bitOf(domain.devices[ordinal]);
  }
  return mask;
}

bool isChunkCount(const ChunkDomain& domain, int count) {
  if (count == static_cast<int>(domain.devices.size())) return true;
  const auto& sizes = domain.layout->sizes;
  return std::find(sizes.begin(), sizes.end(), count) != sizes.end();
}

std::optional<DeviceMask> pickChunk(const ChunkDomain& domain, DeviceMask free, int count) {
  return pickChunk(domain, free, count, ~free);
}

std::optional<DeviceMask> pickChunk(const ChunkDomain& domain, DeviceMask free, int count, DeviceMask inUse) {
  int n = static_cast<int>(domain.devices.size());
  if (count == n) {
    if ((domain.mask & free) == domain.mask) return domain.mask;
    return std::nullopt;
  }
  const auto& sizes = domain.layout->sizes;
  auto it = std::find(sizes.begin(), sizes.end(), count);
  if (it == sizes.end()) return std::nullopt;
  // The enclosing chunk is the next larger size, or the whole domain.
  int parentSize = (it + 1 != sizes.end()) ? *(it + 1) : n;
  std::optional<DeviceMask> firstFree;
  for (int start = 0; start + count <= n; start += count) {
    DeviceMask chunk = chunkMask(domain, count, start);
    if ((chunk & free) != chunk) continue;
    DeviceMask parent = chunkMask(domain, parentSize, start - start % parentSize);
    if ((parent & inUse) != 0) return chunk;  // parent already partly taken
    if (!firstFree) firstFree = chunk;
  }
  return firstFree;
}

}  // namespace gantry::gres
