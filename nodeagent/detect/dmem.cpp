#include "nodeagent/detect/dmem.h"

#include <sstream>

#include "nodeagent/detect/host_files.h"

namespace gantry::detect {

Result<std::vector<DmemRegion>> readDmemRegions(const std::string& hostRoot, const std::string& cgroupRoot) {
  std::vector<DmemRegion> regions;
  std::string file = hostPath(hostRoot, cgroupRoot + "/dmem.capacity");
  auto text = readText(file);
  if (!text) return regions;
  std::stringstream lines(*text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (trim(line).empty()) continue;
    std::stringstream fields(line);
    DmemRegion region;
    std::string capacity;
    fields >> region.name >> capacity;
    if (region.name.empty() || capacity.empty() ||
        capacity.find_first_not_of("0123456789") != std::string::npos) {
      return Error{file + ":" + std::to_string(number) + ": expected '<region> <capacity in bytes>', got '" + line + "'"};
    }
    region.capacityBytes = std::stoull(capacity);
    regions.push_back(std::move(region));
  }
  return regions;
}

namespace {

struct RegionName {
  std::string address;
  std::string kind;
};

std::optional<RegionName> splitRegionName(const std::string& name) {
  auto first = name.find('/');
  auto last = name.rfind('/');
  if (first == std::string::npos || last == first) return std::nullopt;
  return RegionName{normalizeBusId(name.substr(first + 1, last - first - 1)), name.substr(last + 1)};
}

bool isDeviceMemoryKind(const std::string& kind) { return kind.starts_with("vram") || kind == "vidmem"; }

// "0000:17:00" (no function) names every function of the device.
bool addressMatches(const std::string& regionAddress, const std::string& busId) {
  if (regionAddress == busId) return true;
  return regionAddress.find('.') == std::string::npos && busId.starts_with(regionAddress + ".");
}

}  // namespace

std::optional<DmemRegion> regionForBusId(const std::vector<DmemRegion>& regions, const std::string& busId) {
  std::string wanted = normalizeBusId(busId);
  for (const auto& region : regions) {
    auto parts = splitRegionName(region.name);
    if (parts && isDeviceMemoryKind(parts->kind) && addressMatches(parts->address, wanted)) return region;
  }
  return std::nullopt;
}

std::optional<DmemRegion> regionNamed(const std::vector<DmemRegion>& regions, const std::string& name) {
  for (const auto& region : regions) {
    if (region.name == name) return region;
  }
  return std::nullopt;
}

void attachDmemRegions(std::vector<DetectedGpu>& gpus, const std::vector<DmemRegion>& regions) {
  for (auto& gpu : gpus) {
    if (gpu.isMig) continue;
    if (auto region = regionForBusId(regions, gpu.pciBusId)) {
      gpu.dmemRegion = region->name;
      gpu.dmemCapacityBytes = region->capacityBytes;
    }
  }
}

std::optional<std::string> busIdOfDeviceFile(const std::string& hostRoot, const std::string& deviceFile) {
  const std::string nvidiaPrefix = "/dev/nvidia";
  if (deviceFile.starts_with(nvidiaPrefix)) {
    std::string minor = deviceFile.substr(nvidiaPrefix.size());
    if (minor.empty() || minor.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    std::string gpusDir = hostPath(hostRoot, "/proc/driver/nvidia/gpus");
    for (const auto& entry : listDir(gpusDir)) {
      auto text = readText(gpusDir + "/" + entry + "/information");
      if (text && findKeyedValue(*text, "Device Minor:") == minor) {
        if (auto bus = findKeyedValue(*text, "Bus Location:")) return normalizeBusId(*bus);
      }
    }
    return std::nullopt;
  }
  const std::string driPrefix = "/dev/dri/";
  if (deviceFile.starts_with(driPrefix)) {
    auto uevent = readText(hostPath(hostRoot, "/sys/class/drm/" + deviceFile.substr(driPrefix.size()) + "/device/uevent"));
    if (!uevent) return std::nullopt;
    if (auto slot = findKeyedValue(*uevent, "PCI_SLOT_NAME=")) return normalizeBusId(*slot);
  }
  return std::nullopt;
}

}  // namespace gantry::detect
