// What a node really has: CPU topology (through hwloc) and GPUs (through the
// autodetect backends). Every host file is read under DetectOptions::hostRoot,
// so the same calls serve a real node and the fixture trees of the tests.
//
// Not thread-safe: detection runs once at agent start-up (it briefly sets
// HWLOC_FSROOT in the process environment while hwloc loads a host root).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::detect {

struct CpuTopology {
  int boards = 1;
  int sockets = 1;  // after l3cache_as_socket / numa_node_as_socket
  int coresPerSocket = 1;
  int threadsPerCore = 1;
  int cpus = 1;
  uint64_t realMemoryMb = 0;
  // Core ids (0..cores-1, in topology order) of each (possibly redefined) socket.
  std::vector<std::vector<int>> socketCores;
  // Core id of each CPU (hardware thread) by its OS number; -1 where absent.
  std::vector<int> coreOfCpu;
  // The socket-redefining parameter that was applied, "" for physical packages.
  std::string socketParameter;
};

struct DetectedGpu {
  std::string name = "gpu";
  std::string type;                // detected model, lower case, spaces -> '_'
  std::vector<std::string> files;  // /dev paths; several for MIG and amdgpu
  std::vector<int> cores;          // core ids (CpuTopology numbering)
  std::vector<int> links;          // per detected GPU (same order), -1 for itself; empty if unknown
  std::string uuid;
  std::string pciBusId;  // "dddd:bb:dd.f"
  int minor = -1;
  std::string vendor;     // "nvidia" | "amd"
  std::string mechanism;  // backend that found it: nvidia, nvml, amd, rsmi
  bool isMig = false;
  std::string dmemRegion;  // filled by attachDmemRegions()
  uint64_t dmemCapacityBytes = 0;
};

struct DetectOptions {
  std::string hostRoot = "/";
  // "", "off", "nvidia", "nvml", "amd", "rsmi", "oneapi", "nrt", "full".
  // "" and "off" detect nothing.
  std::string autoDetect;
  std::vector<std::string> parameters;  // l3cache_as_socket, numa_node_as_socket
  // dlopen names; empty means the vendor's library name (libnvidia-ml.so.1,
  // librocm_smi64.so). Tests point these at the fake libraries.
  std::string nvmlLibrary, rsmiLibrary;
};

// Sockets, cores, threads, memory. Fails when hwloc cannot load the host
// root or a parameter is not one we know.
Result<CpuTopology> detectCpus(const DetectOptions& options);

// GPUs found by options.autoDetect, sorted by PCI bus id (MIG instances
// follow their parent's position). Cores are mapped through `topology`.
// `log` (may be null) receives one "Found gpu:<type>:<n> with Autodetect=<m>
// (Substring of gpu name may be used instead)" line per type, plus notes.
// Fails on an unknown or unavailable mechanism, on an unusable library or
// driver state (e.g. an AMD GPU outside SPX mode), naming the mechanism.
Result<std::vector<DetectedGpu>> detectGpus(const DetectOptions& options, const CpuTopology& topology,
                                            std::vector<std::string>* log);

// Convenience for callers that did not detect the topology themselves.
Result<std::vector<DetectedGpu>> detectGpus(const DetectOptions& options, std::vector<std::string>* log);

// The detected name as a Type: lower case, spaces replaced by underscores.
std::string typeFromName(const std::string& name);

// gres.conf Type matches a detected type when equal or a substring
// (case-insensitive).
bool typeMatches(const std::string& configuredType, const std::string& detectedType);

}  // namespace gantry::detect
