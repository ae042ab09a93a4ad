#include <catch2/catch.hpp>

#include "common/accounting/gpu_usage_source.h"

using namespace gantry::accounting;
using gantry::config::AutoDetect;

namespace {

constexpr UsageReader kNone = UsageReader::None;
constexpr UsageReader kNvml = UsageReader::Nvml;
constexpr UsageReader kRsmi = UsageReader::Rsmi;
constexpr UsageReader kDmem = UsageReader::KernelDmem;

struct Row {
  const char* rule;
  GpuUsageInputs gpu;
  UsageReader gpuMem;
  UsageReader gpuUtil;
};

void checkRows(const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      GpuUsageSource source = gpuUsageSourceFor(row.gpu);
      CHECK(source.gpuMem == row.gpuMem);
      CHECK(source.gpuUtil == row.gpuUtil);
    }
  }
}

// A GPU with both usage TRES tracked.
GpuUsageInputs gpu(GpuVendor vendor, AutoDetect autoDetect, AutoDetect firstDetector = AutoDetect::Off) {
  GpuUsageInputs in;
  in.vendor = vendor;
  in.autoDetect = autoDetect;
  in.firstDetector = firstDetector;
  in.tracksGpuMem = true;
  in.tracksGpuUtil = true;
  return in;
}

GpuUsageInputs mig(GpuUsageInputs in) {
  in.isMig = true;
  return in;
}

GpuUsageInputs dmem(GpuUsageInputs in) {
  in.dmemEnforced = true;
  return in;
}

GpuUsageInputs tracking(GpuUsageInputs in, bool mem, bool util) {
  in.tracksGpuMem = mem;
  in.tracksGpuUtil = util;
  return in;
}

}  // namespace

TEST_CASE("NVIDIA GPUs report usage through NVML only", "[accounting][gpu_source]") {
  checkRows({
      {"AutoDetect=nvml reads an NVIDIA GPU", gpu(GpuVendor::Nvidia, AutoDetect::Nvml), kNvml, kNvml},
      {"AutoDetect=nvidia reads nothing", gpu(GpuVendor::Nvidia, AutoDetect::Nvidia), kNone, kNone},
      {"AutoDetect=off reads nothing", gpu(GpuVendor::Nvidia, AutoDetect::Off), kNone, kNone},
      {"AutoDetect=rsmi does not read an NVIDIA GPU", gpu(GpuVendor::Nvidia, AutoDetect::Rsmi), kNone, kNone},
      {"AutoDetect=full with NVML first reads it",
       gpu(GpuVendor::Nvidia, AutoDetect::Full, AutoDetect::Nvml), kNvml, kNvml},
      {"AutoDetect=full with the driver's procfs first reads nothing",
       gpu(GpuVendor::Nvidia, AutoDetect::Full, AutoDetect::Nvidia), kNone, kNone},
  });
}

TEST_CASE("AMD GPUs report usage through ROCm SMI only", "[accounting][gpu_source]") {
  checkRows({
      {"AutoDetect=rsmi reads an AMD GPU", gpu(GpuVendor::Amd, AutoDetect::Rsmi), kRsmi, kRsmi},
      {"AutoDetect=full with RSMI first reads it", gpu(GpuVendor::Amd, AutoDetect::Full, AutoDetect::Rsmi), kRsmi,
       kRsmi},
      {"AutoDetect=full with amdgpu sysfs first reads nothing",
       gpu(GpuVendor::Amd, AutoDetect::Full, AutoDetect::Amd), kNone, kNone},
      {"AutoDetect=amd reads nothing", gpu(GpuVendor::Amd, AutoDetect::Amd), kNone, kNone},
      {"AutoDetect=nvml does not read an AMD GPU", gpu(GpuVendor::Amd, AutoDetect::Nvml), kNone, kNone},
      {"an Intel GPU under oneapi reads nothing", gpu(GpuVendor::Intel, AutoDetect::OneApi), kNone, kNone},
  });
}

TEST_CASE("MIG instances have no usage source", "[accounting][gpu_source]") {
  checkRows({
      {"a MIG instance under nvml", mig(gpu(GpuVendor::Nvidia, AutoDetect::Nvml)), kNone, kNone},
      {"a MIG instance under full with NVML first", mig(gpu(GpuVendor::Nvidia, AutoDetect::Full, AutoDetect::Nvml)),
       kNone, kNone},
      {"a MIG instance marked dmem enforced", mig(dmem(gpu(GpuVendor::Nvidia, AutoDetect::Nvml))), kNone, kNone},
  });
}

TEST_CASE("dmem-enforced devices take gpumem from the kernel whatever the vendor", "[accounting][gpu_source]") {
  checkRows({
      {"NVIDIA under nvml: kernel gpumem, NVML gpuutil", dmem(gpu(GpuVendor::Nvidia, AutoDetect::Nvml)), kDmem,
       kNvml},
      {"AMD under rsmi: kernel gpumem, RSMI gpuutil", dmem(gpu(GpuVendor::Amd, AutoDetect::Rsmi)), kDmem, kRsmi},
      {"Intel (xe): kernel gpumem, no gpuutil", dmem(gpu(GpuVendor::Intel, AutoDetect::OneApi)), kDmem, kNone},
      {"AMD under amd sysfs: kernel gpumem, no gpuutil", dmem(gpu(GpuVendor::Amd, AutoDetect::Amd)), kDmem, kNone},
      {"NVIDIA with AutoDetect off: kernel gpumem, no gpuutil", dmem(gpu(GpuVendor::Nvidia, AutoDetect::Off)), kDmem,
       kNone},
  });
}

TEST_CASE("an untracked usage TRES has no source", "[accounting][gpu_source]") {
  checkRows({
      {"neither tracked", tracking(gpu(GpuVendor::Nvidia, AutoDetect::Nvml), false, false), kNone, kNone},
      {"neither tracked under dmem", tracking(dmem(gpu(GpuVendor::Amd, AutoDetect::Rsmi)), false, false), kNone,
       kNone},
      {"only gpumem tracked", tracking(gpu(GpuVendor::Amd, AutoDetect::Rsmi), true, false), kRsmi, kNone},
      {"only gpuutil tracked", tracking(gpu(GpuVendor::Nvidia, AutoDetect::Nvml), false, true), kNone, kNvml},
      {"only gpuutil tracked under dmem", tracking(dmem(gpu(GpuVendor::Intel, AutoDetect::OneApi)), false, true),
       kNone, kNone},
  });
}

TEST_CASE("DisableGPUAcct turns every GPU usage reader off", "[accounting][gpu_source]") {
  auto disabled = [](GpuUsageInputs in) {
    in.disableGpuAcct = true;
    return in;
  };
  checkRows({
      {"no NVML usage", disabled(gpu(GpuVendor::Nvidia, AutoDetect::Nvml)), kNone, kNone},
      {"no RSMI usage under full", disabled(gpu(GpuVendor::Amd, AutoDetect::Full, AutoDetect::Rsmi)), kNone, kNone},
      {"no kernel dmem usage either", disabled(dmem(gpu(GpuVendor::Intel, AutoDetect::OneApi))), kNone, kNone},
  });
}

TEST_CASE("the usage plugin is the one AutoDetect selects", "[accounting][gpu_source]") {
  CHECK(usagePluginFor(AutoDetect::Nvml, AutoDetect::Rsmi) == kNvml);  // firstDetector only counts under full
  CHECK(usagePluginFor(AutoDetect::Rsmi, AutoDetect::Off) == kRsmi);
  CHECK(usagePluginFor(AutoDetect::Full, AutoDetect::Rsmi) == kRsmi);
  CHECK(usagePluginFor(AutoDetect::Full, AutoDetect::Off) == kNone);
  CHECK(usagePluginFor(AutoDetect::Nrt, AutoDetect::Off) == kNone);
}
