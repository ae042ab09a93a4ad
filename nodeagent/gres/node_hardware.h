// One call for the node agent at start-up (and for `gantryd -C` / `-G`):
// detect the CPUs and GPUs under the host root, read the dmem regions, load
// gres.conf for this node and merge it all with every node-side check.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/config/gres_spec.h"
#include "common/util/result.h"
#include "nodeagent/detect/hardware.h"
#include "nodeagent/gres/merge.h"

namespace gantry::nodegres {

struct NodeHardwareOptions {
  std::string nodeName;
  std::string hostRoot = "/";
  std::string gresConfPath;                  // "" or a missing file: no gres.conf
  std::vector<config::GresCount> nodeGres;   // gantry.conf Gres= of this node
  // SlurmdParameters, the node's Parameters= and `-C --parameters=`, together.
  std::vector<std::string> parameters;
  bool constrainDeviceMemory = false;        // cgroup.conf ConstrainDeviceMemory
  std::string cgroupRoot = "/sys/fs/cgroup";
  std::string nvmlLibrary, rsmiLibrary;      // dlopen overrides (tests)
  // When set, replaces gres.conf's AutoDetect (e.g. `gantryd -C` always
  // detects with "full" when gres.conf sets nothing).
  std::string autoDetectOverride;
  // With config_overrides: the topology gantry.conf gives the node, which
  // gres.conf's Cores= are checked against (see MergeInput).
  std::optional<detect::CpuTopology> configuredTopology;
};

struct NodeHardware {
  detect::CpuTopology topology;
  std::vector<detect::DetectedGpu> detected;
  std::string autoDetect;               // the mechanism that was asked for
  std::vector<std::string> detectLog;   // "Found gpu:..." lines and notes
  MergeResult merged;                   // records to register, errors, warnings, dmem log, drain reason
};

// Fails when the topology cannot be read, gres.conf has errors (all listed,
// each "file:line: ..."), AutoDetect fails, or a merge check is fatal.
Result<NodeHardware> loadNodeHardware(const NodeHardwareOptions& options);

}  // namespace gantry::nodegres
