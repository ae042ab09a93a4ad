// The GPU autodetect mechanisms, one per file; detect_gpus.cpp chooses among
// them. Internal to gantry_detect.
#pragma once

#include <string>
#include <vector>

#include "nodeagent/detect/hardware.h"

namespace gantry::detect {

// What one mechanism found. Link endpoints are kept as PCI bus ids (one entry
// per physical link) until the final device order is known.
struct FoundGpu {
  DetectedGpu gpu;
  bool linksKnown = false;
  std::vector<std::string> linkPeers;
  // NVLinks that end at an NVSwitch: GPUs on the same switch fabric reach
  // each other over all of them.
  int switchLinks = 0;
};

// Outcome of one mechanism: `unavailable` means its library or driver is not
// on this node (AutoDetect=full then moves on); an Error is a real failure.
struct BackendResult {
  std::vector<FoundGpu> gpus;
  bool unavailable = false;
  std::string note;  // why it was unavailable
};

Result<BackendResult> detectNvidiaProcfs(const DetectOptions& options, const CpuTopology& topology);
Result<BackendResult> detectNvml(const DetectOptions& options, const CpuTopology& topology);
Result<BackendResult> detectAmdSysfs(const DetectOptions& options, const CpuTopology& topology);
Result<BackendResult> detectRsmi(const DetectOptions& options, const CpuTopology& topology);
Result<BackendResult> detectNeuronSysfs(const DetectOptions& options, const CpuTopology& topology);

// Core ids of the given OS CPU numbers, sorted, without duplicates.
std::vector<int> coresOfCpus(const CpuTopology& topology, const std::vector<int>& cpus);

// Cores near a PCI device from <root>/sys/bus/pci/devices/<bus>/local_cpulist;
// empty when the file is absent.
Result<std::vector<int>> pciDeviceCores(const std::string& hostRoot, const std::string& busId,
                                        const CpuTopology& topology);

// amdgpu only runs in SPX compute partition mode here; fails naming the GPU.
Status checkAmdComputePartition(const std::string& hostRoot, const std::string& busId,
                                const std::string& mechanism);

// /dev/dri nodes (render first, then primary) of a PCI device from its sysfs drm/ folder.
std::vector<std::string> driNodesOfPciDevice(const std::string& hostRoot, const std::string& busId);

}  // namespace gantry::detect
