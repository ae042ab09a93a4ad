// GPU usage of single processes, as the vendor library the step holds
// reports it: NVML lists the processes on each GPU with their memory and
// their recent SM utilisation; ROCm SMI answers for one process at a time
// over the GPUs its device cgroup allows. Both run on the library the
// launcher already holds for the step (stepd/gpu/step_gpu_library.h).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/accounting/rsmi_usage.h"
#include "nodeagent/detect/shared_library.h"

namespace gantry::stepd {

// One process's figures from one poll; unset: no sample.
struct ProcessGpuUsage {
  std::optional<uint64_t> mem_bytes;
  std::optional<uint64_t> util_percent;
};

// Adds up the figures of several samples (processes, or GPUs of one
// process); a figure stays unset when no sample has it.
ProcessGpuUsage addUp(const std::vector<ProcessGpuUsage>& samples);

// The same PCI address however it is written: NVML's 8-digit domain
// ("00000000:3b:00.0") and the 4-digit one of spec.json ("0000:3B:00.0")
// compare equal. "" when the text is not an address.
std::string normalPciBusId(const std::string& bus_id);

using UsageLogLine = std::function<void(const std::string&)>;

class NvmlProcessUsage {
 public:
  // Finds the handles of the GPUs to read memory and utilisation from (by
  // bus id) in the held NVML. Missing entry points or GPUs are logged once
  // and read nothing.
  NvmlProcessUsage(const detect::SharedLibrary& nvml, const std::set<std::string>& mem_bus_ids,
                   const std::set<std::string>& util_bus_ids, UsageLogLine log);

  // Every process NVML sees on those GPUs, with its memory and SM
  // utilisation added over them. A GPU whose call fails adds nothing and
  // logs a line.
  std::map<pid_t, ProcessGpuUsage> poll();

 private:
  struct Device {
    void* handle = nullptr;
    std::string bus_id;
    bool memory = false, utilisation = false;
  };
  void readMemory(const Device& device, std::map<pid_t, std::vector<ProcessGpuUsage>>& seen);
  void readUtilisation(const Device& device, std::map<pid_t, std::vector<ProcessGpuUsage>>& seen);
  std::vector<Device> devices_;
  void* running_processes_ = nullptr;  // nvmlDeviceGetComputeRunningProcesses_v3 or _v2
  void* process_utilization_ = nullptr;  // nvmlDeviceGetProcessUtilization
  UsageLogLine log_;
};

class RsmiProcessUsage {
 public:
  explicit RsmiProcessUsage(const detect::SharedLibrary& rsmi, UsageLogLine log);

  // What the library returned for the process: a value, its invalid
  // marker, or a failed read. Nullopt when it does not know the process
  // (it uses no GPU, or has not started yet): nothing to record.
  std::optional<accounting::RsmiProcessRead> read(pid_t pid);

 private:
  void* by_pid_ = nullptr;  // rsmi_compute_process_info_by_pid_get
};

}  // namespace gantry::stepd
