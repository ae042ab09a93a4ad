// Where the GPU usage TRES of one GPU of a step come from: gres/gpumem (device
// memory in use) and gres/gpuutil (how busy the GPU is). Only the GPU plugin
// that AutoDetect selected reads usage, and only for its own vendor's GPUs:
// NVML for NVIDIA, ROCm SMI for AMD. Devices under shard device memory
// enforcement (cgroup.conf ConstrainDeviceMemory) take gres/gpumem from the
// kernel's dmem counters instead, whatever their vendor. MIG instances have
// no usage source at all.
#pragma once

#include "common/config/gres_conf.h"

namespace gantry::accounting {

enum class GpuVendor { Nvidia, Amd, Intel, Other };

// Who reads one usage TRES.
enum class UsageReader {
  None,        // not recorded
  Nvml,        // the NVIDIA management library
  Rsmi,        // the ROCm System Management Interface library
  KernelDmem,  // the dmem cgroup counters of the step
};

struct GpuUsageInputs {
  GpuVendor vendor = GpuVendor::Other;
  config::AutoDetect autoDetect = config::AutoDetect::Off;  // effective for the node
  // Under AutoDetect=full: the mechanism that found the node's first device
  // (Nvml, Rsmi, Nvidia, Amd or Nrt); Off when none did. Ignored otherwise.
  config::AutoDetect firstDetector = config::AutoDetect::Off;
  bool isMig = false;        // a MIG instance of an NVIDIA GPU
  bool dmemEnforced = false;  // shard device memory enforced on this device
  bool tracksGpuMem = false;   // gres/gpumem tracked (TrackedTres)
  bool tracksGpuUtil = false;  // gres/gpuutil tracked
  bool disableGpuAcct = false;  // JobAcctGatherParams=DisableGPUAcct
};

struct GpuUsageSource {
  UsageReader gpuMem = UsageReader::None;
  UsageReader gpuUtil = UsageReader::None;
};

// The GPU plugin AutoDetect selects for usage: the library named by
// AutoDetect=nvml or AutoDetect=rsmi, or under AutoDetect=full the one whose
// mechanism found the first device. None for every other mode, including
// the driver-only ones (nvidia, amd, nrt) and oneapi, which read no usage.
UsageReader usagePluginFor(config::AutoDetect autoDetect, config::AutoDetect firstDetector);

// Where this GPU's gres/gpumem and gres/gpuutil come from. An untracked TRES
// has no reader, and DisableGPUAcct turns every reader off (the kernel's
// too: the administrator asked for no GPU usage accounting). A MIG instance has none, even if marked dmem enforced (MIG
// instances are never enforced). A dmem-enforced device takes gpumem from
// the kernel and gpuutil from its vendor's library when that library is the
// selected plugin. Otherwise both come from the selected plugin when it is
// NVML on an NVIDIA GPU or ROCm SMI on an AMD one, and from nowhere else.
GpuUsageSource gpuUsageSourceFor(const GpuUsageInputs& gpu);

}  // namespace gantry::accounting
