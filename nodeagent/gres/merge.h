// Merging gres.conf with what AutoDetect found, and every node-side check of
// the result: devices whose detected Cores or Links contradict gres.conf are
// omitted with an error, Cores must cover whole sockets, Links are dropped on
// chunked records, shared GRES (shard, mps) are spread over their GPUs, shard
// device memory slices come from the dmem regions, and devices gantry.conf
// does not account for ask for a drain.
//
// Pure: no I/O except resolving device files to PCI addresses under
// DmemOptions::hostRoot when shard memory enforcement is on.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/config/gres_conf.h"
#include "common/config/gres_spec.h"
#include "common/util/result.h"
#include "nodeagent/detect/dmem.h"
#include "nodeagent/detect/hardware.h"
#include "nodeagent/gres/records.h"

namespace gantry::nodegres {

struct DmemOptions {
  bool constrainDeviceMemory = false;  // cgroup.conf ConstrainDeviceMemory=yes
  std::string hostRoot = "/";
  std::vector<detect::DmemRegion> regions;  // from detect::readDmemRegions()
};

struct MergeInput {
  std::string nodeName;
  const config::GresConf* gresConf = nullptr;     // null or !present: no gres.conf
  std::vector<detect::DetectedGpu> detected;      // detect::detectGpus(), in its order
  detect::CpuTopology topology;                   // detect::detectCpus()
  // With config_overrides, the topology of the node's gantry.conf line:
  // gres.conf's Cores= are checked against it rather than the machine's.
  std::optional<detect::CpuTopology> configuredTopology;
  std::vector<config::GresCount> nodeGres;        // gantry.conf Gres= of this node
  DmemOptions dmem;
};

// Device order: detected GPUs in PCI bus order, then configured devices the
// detection did not see, in gres.conf order; then other GRES, then shared.
// Fails (the agent must not register) on Cores that split a socket or name
// cores the node lacks, a shared GRES with no GPU to share, or a DmemRegion=
// that names no region; every such problem is listed, one per line.
Result<MergeResult> mergeGres(const MergeInput& input);

}  // namespace gantry::nodegres
