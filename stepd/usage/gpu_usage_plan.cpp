#include "stepd/usage/gpu_usage_plan.h"

#include <algorithm>

#include "common/accounting/gpu_usage_source.h"
#include "common/accounting/tracked_tres.h"
#include "stepd/core/dmem_limits.h"

namespace gantry::stepd {
namespace {

using accounting::GpuVendor;
using accounting::UsageReader;
using config::AutoDetect;

GpuVendor vendorOf(const std::string& vendor) {
  if (vendor == "nvidia") return GpuVendor::Nvidia;
  if (vendor == "amd") return GpuVendor::Amd;
  if (vendor == "intel") return GpuVendor::Intel;
  return GpuVendor::Other;
}

// The agent passes the plugin already chosen (AutoDetect=full resolved to
// the mechanism that found the first device), so it stands as the mode.
AutoDetect pluginMode(const std::string& plugin) {
  if (plugin == "nvml") return AutoDetect::Nvml;
  if (plugin == "rsmi") return AutoDetect::Rsmi;
  return AutoDetect::Off;
}

void take(GpuUsagePlan& plan, UsageReader reader, bool memory, const GpuAllocation& gpu) {
  switch (reader) {
    case UsageReader::Nvml:
      (memory ? plan.nvml_mem_bus_ids : plan.nvml_util_bus_ids).insert(gpu.pci_bus_id);
      break;
    case UsageReader::Rsmi: (memory ? plan.rsmi_mem : plan.rsmi_util) = true; break;
    case UsageReader::KernelDmem: plan.dmem_regions.insert(gpu.dmem_region); break;
    case UsageReader::None: break;
  }
}

}  // namespace

GpuUsagePlan gpuUsagePlanFor(const StepSpec& spec) {
  GpuUsagePlan plan;
  if (!spec.accounting) return plan;
  const AccountingSpec& acct = *spec.accounting;
  auto tracked = accounting::trackedTresFrom(acct.tracked_tres);
  if (!tracked) return plan;  // the agent sends only lists it could read
  const bool constrain_device_memory = spec.cgroup && spec.cgroup->constrain_device_memory;
  for (const auto& gpu : spec.gpus) {
    auto known = std::find_if(acct.gpus.begin(), acct.gpus.end(),
                              [&](const AccountingSpec::Gpu& g) { return g.index == gpu.index; });
    const bool mig = known != acct.gpus.end() && known->mig;
    const std::string& vendor = known != acct.gpus.end() && !known->vendor.empty() ? known->vendor : gpu.vendor;
    auto source = accounting::gpuUsageSourceFor({.vendor = vendorOf(vendor),
                                                 .autoDetect = pluginMode(acct.gpu_plugin),
                                                 .isMig = mig,
                                                 .dmemEnforced = isDmemEnforced(gpu, constrain_device_memory),
                                                 .tracksGpuMem = tracked->tracksGpuMem(),
                                                 .tracksGpuUtil = tracked->tracksGpuUtil(),
                                                 .disableGpuAcct = acct.disable_gpu_acct});
    take(plan, source.gpuMem, true, gpu);
    take(plan, source.gpuUtil, false, gpu);
  }
  return plan;
}

}  // namespace gantry::stepd
