// Device memory (dmem cgroup controller) regions of a node, and which region
// belongs to which GPU. The kernel lists the regions with their capacity in
// <cgroup root>/dmem.capacity, one "<driver>/<pci address>/<kind> <bytes>"
// per line; NVIDIA writes the address without the function number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/util/result.h"
#include "nodeagent/detect/hardware.h"

namespace gantry::detect {

struct DmemRegion {
  std::string name;  // e.g. "nvidia/0000:17:00/vidmem", "drm/0000:79:00.0/vram0"
  uint64_t capacityBytes = 0;
};

// Regions of <hostRoot><cgroupRoot>/dmem.capacity. No file (kernel without
// dmem) is an empty list; a malformed line is an error naming file and line.
Result<std::vector<DmemRegion>> readDmemRegions(const std::string& hostRoot,
                                                const std::string& cgroupRoot = "/sys/fs/cgroup");

// The device-memory region of the GPU at `busId` ("dddd:bb:dd.f"): same PCI
// device, and a VRAM kind (vram*, vidmem), never system-memory kinds like gtt.
std::optional<DmemRegion> regionForBusId(const std::vector<DmemRegion>& regions, const std::string& busId);

// The region called `name`, for DmemRegion= overrides.
std::optional<DmemRegion> regionNamed(const std::vector<DmemRegion>& regions, const std::string& name);

// Fills dmemRegion/dmemCapacityBytes of every non-MIG GPU that has a region.
// MIG instances share their parent's region and stay without one.
void attachDmemRegions(std::vector<DetectedGpu>& gpus, const std::vector<DmemRegion>& regions);

// The PCI address behind a device file: /dev/nvidiaN through the NVIDIA
// driver's procfs, /dev/dri/{cardN,renderDN} through sysfs. nullopt if unknown.
std::optional<std::string> busIdOfDeviceFile(const std::string& hostRoot, const std::string& deviceFile);

}  // namespace gantry::detect
