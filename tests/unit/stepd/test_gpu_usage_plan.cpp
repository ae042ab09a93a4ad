#include <catch2/catch.hpp>

#include "stepd/usage/gpu_usage_plan.h"

using namespace gantry::stepd;

namespace {

const std::string kRegion = "nvidia/0000:5e:00/vidmem";

GpuAllocation wholeGpu(const std::string& vendor, int index = 2, const std::string& bus = "0000:5e:00.0") {
  return {.index = index, .name = "gpu", .pci_bus_id = bus, .vendor = vendor};
}

GpuAllocation enforcedShard() {
  return {.index = 2, .name = "shard", .pci_bus_id = "0000:5e:00.0", .vendor = "nvidia", .shares = 3,
          .share_count = 12, .dmem_region = kRegion, .dmem_slice_bytes = 1 << 30};
}

StepSpec stepWith(std::vector<GpuAllocation> gpus, AccountingSpec accounting, bool constrain_device_memory = false) {
  StepSpec spec;
  spec.gpus = std::move(gpus);
  spec.accounting = std::move(accounting);
  if (constrain_device_memory) spec.cgroup = CgroupSpec{.root = "/sys/fs/cgroup", .constrain_device_memory = true};
  return spec;
}

AccountingSpec tracking(std::vector<std::string> tres, std::string plugin) {
  return {.interval_sec = 5, .tracked_tres = std::move(tres), .gpu_plugin = std::move(plugin)};
}

struct Row {
  const char* rule;
  StepSpec spec;
  bool nvml_mem, nvml_util, rsmi_mem, rsmi_util, dmem;
};

}  // namespace

TEST_CASE("which reader feeds gpumem and gpuutil for a step's GPU", "[stepd][usage]") {
  AccountingSpec mig = tracking({"gres/gpu"}, "nvml");
  mig.gpus = {{.index = 2, .mig = true}};
  // The controller may name an AMD GPU's vendor wrongly; detection's word wins.
  AccountingSpec detectedAmd = tracking({"gres/gpu"}, "rsmi");
  detectedAmd.gpus = {{.index = 2, .vendor = "amd"}};
  AccountingSpec disabled = tracking({"gres/gpu"}, "nvml");
  disabled.disable_gpu_acct = true;
  const std::vector<Row> rows = {
      {"NVML reads an NVIDIA GPU when gres/gpu is tracked", stepWith({wholeGpu("nvidia")}, tracking({"gres/gpu"}, "nvml")),
       true, true, false, false, false},
      {"ROCm SMI reads an AMD GPU", stepWith({wholeGpu("amd")}, tracking({"gres/gpu"}, "rsmi")), false, false, true,
       true, false},
      {"the vendor detection found is the GPU's vendor", stepWith({wholeGpu("nvidia")}, detectedAmd), false, false,
       true, true, false},
      {"NVML does not read an AMD GPU", stepWith({wholeGpu("amd")}, tracking({"gres/gpu"}, "nvml")), false, false,
       false, false, false},
      {"a driver-only plugin reads nothing", stepWith({wholeGpu("nvidia")}, tracking({"gres/gpu"}, "nvidia")), false,
       false, false, false, false},
      {"a MIG instance gets nothing", stepWith({wholeGpu("nvidia")}, mig), false, false, false, false, false},
      {"DisableGPUAcct turns every reader off", stepWith({enforcedShard()}, disabled, true), false, false, false,
       false, false},
      {"untracked gres/gpu gives no reader", stepWith({wholeGpu("nvidia")}, tracking({"gres/gpu:h100"}, "nvml")),
       false, false, false, false, false},
      {"gres/gpumem alone reads only memory", stepWith({wholeGpu("nvidia")}, tracking({"gres/gpumem"}, "nvml")),
       true, false, false, false, false},
      {"gres/gpuutil alone reads only utilisation", stepWith({wholeGpu("amd")}, tracking({"gres/gpuutil"}, "rsmi")),
       false, false, false, true, false},
      {"a dmem-enforced device takes gpumem from the kernel, gpuutil from NVML",
       stepWith({enforcedShard()}, tracking({"gres/gpu"}, "nvml"), true), false, true, false, false, true},
      {"the kernel feeds gpumem of an enforced device whatever the plugin",
       stepWith({enforcedShard()}, tracking({"gres/gpu"}, "rsmi"), true), false, false, false, false, true},
      {"a shard without ConstrainDeviceMemory is not enforced",
       stepWith({enforcedShard()}, tracking({"gres/gpu"}, "nvml"), false), true, true, false, false, false},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      GpuUsagePlan plan = gpuUsagePlanFor(row.spec);
      CHECK(plan.nvml_mem_bus_ids.count("0000:5e:00.0") == (row.nvml_mem ? 1u : 0u));
      CHECK(plan.nvml_util_bus_ids.count("0000:5e:00.0") == (row.nvml_util ? 1u : 0u));
      CHECK(plan.rsmi_mem == row.rsmi_mem);
      CHECK(plan.rsmi_util == row.rsmi_util);
      CHECK(plan.dmem_regions.count(kRegion) == (row.dmem ? 1u : 0u));
    }
  }
}

TEST_CASE("without the accounting key no GPU is read", "[stepd][usage]") {
  StepSpec spec;
  spec.gpus = {wholeGpu("nvidia")};
  CHECK_FALSE(gpuUsagePlanFor(spec).readsGpu());
}
