#include "nodeagent/gres/shard_memory.h"

#include <optional>

namespace gantry::nodegres {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

std::string regionList(const std::vector<detect::DmemRegion>& regions) {
  std::string out;
  for (const auto& r : regions) out += (out.empty() ? "" : ", ") + r.name;
  return out.empty() ? "none" : out;
}

}  // namespace

void assignShardMemory(MergeResult& out, const DmemOptions& options,
                       const std::vector<const config::GresRecord*>& gpuSources, std::vector<std::string>& fatal) {
  const size_t gpuCount = gpuSources.size();
  for (size_t s = gpuCount; s < out.records.size(); ++s) {
    GresRecord& shard = out.records[s];
    if (shard.name != "shard" || shard.count == 0) continue;
    size_t g = 0;
    while (g < gpuCount && out.records[g].files != shard.files) ++g;
    if (g == gpuCount) continue;
    GresRecord& gpu = out.records[g];
    const config::GresRecord* source = gpuSources[g];
    std::string setting = source ? source->dmemRegion : "";

    std::optional<detect::DmemRegion> region;
    if (!setting.empty() && setting != "off") {
      region = detect::regionNamed(options.regions, setting);
      if (!region) {
        fatal.push_back(source->sourceFile + ":" + std::to_string(source->sourceLine) + ": DmemRegion=" + setting +
                        " names no dmem region of node (available: " + regionList(options.regions) + ")");
        continue;
      }
    } else if (!gpu.isMig) {
      std::string bus = gpu.pciBusId;
      if (bus.empty() && !gpu.files.empty()) {
        bus = detect::busIdOfDeviceFile(options.hostRoot, gpu.files.front()).value_or("");
      }
      if (!bus.empty()) region = detect::regionForBusId(options.regions, bus);
    }

    std::string line = "shard: " + (gpu.files.empty() ? gpu.type : gpu.files.front()) +
                       " shards=" + std::to_string(shard.count) + " region=" + (region ? region->name : "none");
    bool enforced = region && setting != "off" && !gpu.isMig && region->capacityBytes > 0;
    if (!enforced) {
      out.log.push_back(line + " dmem=off");
      continue;
    }
    uint64_t slice = region->capacityBytes / shard.count;
    for (GresRecord* r : {&shard, &gpu}) {
      r->dmemRegion = region->name;
      r->dmemCapacityBytes = region->capacityBytes;
      r->dmemSliceBytes = slice;
    }
    out.log.push_back(line + " capacity=" + std::to_string(region->capacityBytes / kMiB) + "MiB slice=" +
                      std::to_string(slice / kMiB) + "MiB dmem=enforced");
  }
}

}  // namespace gantry::nodegres
