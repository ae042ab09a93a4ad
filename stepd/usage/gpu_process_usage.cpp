#include "stepd/usage/gpu_process_usage.h"

#include <cstdio>

#include "nodeagent/detect/nvml_abi.h"
#include "nodeagent/detect/rsmi_abi.h"

namespace gantry::stepd {
namespace {

constexpr unsigned kMaxProcessesPerGpu = 256;

template <typename Fn>
Fn as(void* symbol) {
  return reinterpret_cast<Fn>(symbol);
}

}  // namespace

ProcessGpuUsage addUp(const std::vector<ProcessGpuUsage>& samples) {
  ProcessGpuUsage total;
  for (const auto& sample : samples) {
    if (sample.mem_bytes) total.mem_bytes = total.mem_bytes.value_or(0) + *sample.mem_bytes;
    if (sample.util_percent) total.util_percent = total.util_percent.value_or(0) + *sample.util_percent;
  }
  return total;
}

std::string normalPciBusId(const std::string& bus_id) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  char end = 0;
  if (std::sscanf(bus_id.c_str(), "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &end) != 4) return "";
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x", domain, bus, device, function);
  return text;
}

NvmlProcessUsage::NvmlProcessUsage(const detect::SharedLibrary& nvml, const std::set<std::string>& mem_bus_ids,
                                   const std::set<std::string>& util_bus_ids, UsageLogLine log)
    : log_(std::move(log)) {
  auto count = nvml.symbol<nvmlDeviceGetCount_v2_fn>("nvmlDeviceGetCount_v2");
  auto byIndex = nvml.symbol<nvmlDeviceGetHandleByIndex_v2_fn>("nvmlDeviceGetHandleByIndex_v2");
  auto pciInfo = nvml.symbol<nvmlDeviceGetPciInfo_v3_fn>("nvmlDeviceGetPciInfo_v3");
  running_processes_ = reinterpret_cast<void*>(
      nvml.symbol<nvmlDeviceGetComputeRunningProcesses_v3_fn>("nvmlDeviceGetComputeRunningProcesses_v3"));
  if (!running_processes_) {
    // _v2 has the same layout.
    running_processes_ = reinterpret_cast<void*>(
        nvml.symbol<nvmlDeviceGetComputeRunningProcesses_v3_fn>("nvmlDeviceGetComputeRunningProcesses_v2"));
  }
  process_utilization_ =
      reinterpret_cast<void*>(nvml.symbol<nvmlDeviceGetProcessUtilization_fn>("nvmlDeviceGetProcessUtilization"));
  if (!count || !byIndex || !pciInfo) {
    log_("gpu/nvml: the library cannot list its GPUs; no GPU usage is recorded");
    return;
  }
  std::set<std::string> memory, utilisation;
  for (const auto& id : mem_bus_ids) memory.insert(normalPciBusId(id));
  for (const auto& id : util_bus_ids) utilisation.insert(normalPciBusId(id));
  unsigned total = 0;
  if (count(&total) != kNvmlSuccess) total = 0;
  for (unsigned i = 0; i < total; ++i) {
    nvmlDevice_t handle = nullptr;
    nvmlPciInfo_t pci{};
    if (byIndex(i, &handle) != kNvmlSuccess || pciInfo(handle, &pci) != kNvmlSuccess) continue;
    const std::string bus = normalPciBusId(pci.busId);
    Device device{.handle = handle, .bus_id = bus, .memory = memory.count(bus) > 0,
                  .utilisation = utilisation.count(bus) > 0};
    if (device.memory || device.utilisation) devices_.push_back(device);
  }
  if (!running_processes_ && !memory.empty())
    log_("gpu/nvml: the library has no nvmlDeviceGetComputeRunningProcesses; no gpumem is recorded");
  if (!process_utilization_ && !utilisation.empty())
    log_("gpu/nvml: the library has no nvmlDeviceGetProcessUtilization; no gpuutil is recorded");
}

void NvmlProcessUsage::readMemory(const Device& device, std::map<pid_t, std::vector<ProcessGpuUsage>>& seen) {
  if (!running_processes_) return;
  std::vector<nvmlProcessInfo_t> infos(kMaxProcessesPerGpu);
  unsigned count = kMaxProcessesPerGpu;
  auto call = as<nvmlDeviceGetComputeRunningProcesses_v3_fn>(running_processes_);
  nvmlReturn_t rc = call(static_cast<nvmlDevice_t>(device.handle), &count, infos.data());
  if (rc != kNvmlSuccess) {
    log_("gpu/nvml: cannot read the processes on GPU " + device.bus_id + " (NVML error " + std::to_string(rc) +
         "); no gpumem from it this poll");
    return;
  }
  for (unsigned i = 0; i < count && i < kMaxProcessesPerGpu; ++i)
    seen[static_cast<pid_t>(infos[i].pid)].push_back({.mem_bytes = infos[i].usedGpuMemory});
}

void NvmlProcessUsage::readUtilisation(const Device& device, std::map<pid_t, std::vector<ProcessGpuUsage>>& seen) {
  if (!process_utilization_) return;
  std::vector<nvmlProcessUtilizationSample_t> samples(kMaxProcessesPerGpu);
  unsigned count = kMaxProcessesPerGpu;
  auto call = as<nvmlDeviceGetProcessUtilization_fn>(process_utilization_);
  nvmlReturn_t rc = call(static_cast<nvmlDevice_t>(device.handle), samples.data(), &count, 0);
  if (rc == kNvmlErrorNotFound) return;  // no process ran on it lately: nothing to sample
  if (rc != kNvmlSuccess) {
    log_("gpu/nvml: cannot read process utilization on GPU " + device.bus_id + " (NVML error " +
         std::to_string(rc) + "); no gpuutil from it this poll");
    return;
  }
  for (unsigned i = 0; i < count && i < kMaxProcessesPerGpu; ++i)
    seen[static_cast<pid_t>(samples[i].pid)].push_back({.util_percent = samples[i].smUtil});
}

std::map<pid_t, ProcessGpuUsage> NvmlProcessUsage::poll() {
  std::map<pid_t, std::vector<ProcessGpuUsage>> seen;
  for (const auto& device : devices_) {
    if (device.memory) readMemory(device, seen);
    if (device.utilisation) readUtilisation(device, seen);
  }
  std::map<pid_t, ProcessGpuUsage> usage;
  for (const auto& [pid, samples] : seen) usage[pid] = addUp(samples);
  return usage;
}

RsmiProcessUsage::RsmiProcessUsage(const detect::SharedLibrary& rsmi, UsageLogLine log) {
  by_pid_ = reinterpret_cast<void*>(
      rsmi.symbol<rsmi_compute_process_info_by_pid_get_fn>("rsmi_compute_process_info_by_pid_get"));
  if (!by_pid_) log("gpu/rsmi: the library has no rsmi_compute_process_info_by_pid_get; no GPU usage is recorded");
}

std::optional<accounting::RsmiProcessRead> RsmiProcessUsage::read(pid_t pid) {
  if (!by_pid_) return std::nullopt;
  rsmi_process_info_t info{};
  rsmi_status_t rc = as<rsmi_compute_process_info_by_pid_get_fn>(by_pid_)(static_cast<uint32_t>(pid), &info);
  if (rc == kRsmiStatusNotFound) return std::nullopt;
  if (rc != kRsmiSuccess) return accounting::RsmiProcessRead{.outcome = accounting::RsmiOutcome::Failed};
  if (info.cu_occupancy == GANTRY_RSMI_CU_OCCUPANCY_INVALID)
    return accounting::RsmiProcessRead{.outcome = accounting::RsmiOutcome::Invalid, .gpuMemBytes = info.vram_usage};
  return accounting::RsmiProcessRead{
      .outcome = accounting::RsmiOutcome::Value, .gpuUtilPercent = info.cu_occupancy, .gpuMemBytes = info.vram_usage};
}

}  // namespace gantry::stepd
