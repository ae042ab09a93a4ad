#include "stepd/core/dmem_limits.h"

namespace gantry::stepd {

bool isDmemEnforced(const GpuAllocation& gpu, bool constrain_device_memory) {
  return constrain_device_memory && gpu.name == "shard" && gpu.shares > 0 && !gpu.dmem_region.empty() &&
         gpu.dmem_region != "off" && gpu.dmem_slice_bytes > 0;
}

std::vector<DmemLimit> dmemLimits(const std::vector<GpuAllocation>& gpus, bool constrain_device_memory) {
  std::vector<DmemLimit> limits;
  for (const auto& gpu : gpus) {
    if (!isDmemEnforced(gpu, constrain_device_memory)) continue;
    const uint64_t bytes = static_cast<uint64_t>(gpu.shares) * gpu.dmem_slice_bytes;
    bool merged = false;
    for (auto& limit : limits) {
      if (limit.region == gpu.dmem_region) {
        limit.bytes += bytes;
        merged = true;
      }
    }
    if (!merged) limits.push_back({.region = gpu.dmem_region, .pci_bus_id = gpu.pci_bus_id, .bytes = bytes});
  }
  return limits;
}

std::string shardMemPerGpuValue(const std::vector<DmemLimit>& limits) {
  constexpr uint64_t kMiB = 1024 * 1024;
  std::string value;
  for (const auto& limit : limits) {
    if (!value.empty()) value += ',';
    value += limit.pci_bus_id + "=" + std::to_string(limit.bytes / kMiB) + "M";
  }
  return value;
}

}  // namespace gantry::stepd
