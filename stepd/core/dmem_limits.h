// Device-memory limits of shard allocations (cgroup v2 dmem controller).
// A step holding k shards of a device gets k slices of that device's memory
// as both its limit (dmem.max) and its reservation (dmem.min). Devices
// without a region, with DmemRegion=off, without a known slice, or with
// ConstrainDeviceMemory off are unenforced: no limit and no variable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepd/core/step_spec.h"

namespace gantry::stepd {

struct DmemLimit {
  std::string region;      // as listed in dmem.capacity, e.g. nvidia/0000:01:00/vidmem
  std::string pci_bus_id;  // for SLURM_SHARD_MEM_PER_GPU
  uint64_t bytes = 0;      // shares x slice
};

bool isDmemEnforced(const GpuAllocation& gpu, bool constrain_device_memory);

// One limit per enforced shard device, in the order of `gpus`; shares of
// the same device (same index) are added together.
std::vector<DmemLimit> dmemLimits(const std::vector<GpuAllocation>& gpus, bool constrain_device_memory);

// "0000:01:00.0=3002M,...": each limit in whole MiB, rounded down. Empty
// when there is no limit.
std::string shardMemPerGpuValue(const std::vector<DmemLimit>& limits);

}  // namespace gantry::stepd
