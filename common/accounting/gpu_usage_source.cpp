#include "common/accounting/gpu_usage_source.h"

namespace gantry::accounting {

using config::AutoDetect;

UsageReader usagePluginFor(AutoDetect autoDetect, AutoDetect firstDetector) {
  AutoDetect selected = autoDetect == AutoDetect::Full ? firstDetector : autoDetect;
  switch (selected) {
    case AutoDetect::Nvml: return UsageReader::Nvml;
    case AutoDetect::Rsmi: return UsageReader::Rsmi;
    default: return UsageReader::None;
  }
}

namespace {

// The vendor library that can read this GPU, if it is the selected plugin.
UsageReader vendorReader(const GpuUsageInputs& gpu) {
  UsageReader plugin = usagePluginFor(gpu.autoDetect, gpu.firstDetector);
  if (plugin == UsageReader::Nvml && gpu.vendor == GpuVendor::Nvidia) return plugin;
  if (plugin == UsageReader::Rsmi && gpu.vendor == GpuVendor::Amd) return plugin;
  return UsageReader::None;
}

}  // namespace

GpuUsageSource gpuUsageSourceFor(const GpuUsageInputs& gpu) {
  // NVML reports no usage for MIG instances, and their shared dmem region
  // cannot be attributed to one instance.
  if (gpu.isMig || gpu.disableGpuAcct) return {};
  UsageReader vendor = vendorReader(gpu);
  GpuUsageSource source;
  if (gpu.tracksGpuMem) source.gpuMem = gpu.dmemEnforced ? UsageReader::KernelDmem : vendor;
  if (gpu.tracksGpuUtil) source.gpuUtil = vendor;
  return source;
}

}  // namespace gantry::accounting
