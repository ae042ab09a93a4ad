// Which of a step's GPUs feed gres/gpumem and gres/gpuutil, and from where,
// by the rules of common/accounting (gpuUsageSourceFor): one decision per
// GPU from spec.json's gpus and accounting keys. Pure.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "stepd/core/step_spec.h"

namespace gantry::stepd {

struct GpuUsagePlan {
  // NVIDIA GPUs NVML reads, by PCI bus id, for memory and for utilisation.
  std::set<std::string> nvml_mem_bus_ids, nvml_util_bus_ids;
  // ROCm SMI reads per process over the GPUs its device cgroup allows, so
  // only whether it reads each TRES matters.
  bool rsmi_mem = false, rsmi_util = false;
  // dmem regions whose kernel counters give gpumem.
  std::set<std::string> dmem_regions;

  bool readsGpu() const {
    return !nvml_mem_bus_ids.empty() || !nvml_util_bus_ids.empty() || rsmi_mem || rsmi_util || !dmem_regions.empty();
  }
  bool needsLibrary() const {
    return !nvml_mem_bus_ids.empty() || !nvml_util_bus_ids.empty() || rsmi_mem || rsmi_util;
  }
};

// The plan for `spec` (no accounting key: nothing is read). A GPU is
// dmem-enforced when its device memory is limited for the step (the same
// rule that writes the limit: dmemLimits).
GpuUsagePlan gpuUsagePlanFor(const StepSpec& spec);

}  // namespace gantry::stepd
