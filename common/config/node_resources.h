// What a node agent registers with: the resources it detected, or, with
// SlurmdParameters=config_overrides (global or in the node's Parameters=),
// the resources gantry.conf gives the node, so a machine with fewer CPUs,
// less memory or no GPUs can stand in for a bigger one (tests, emulation).
// Pure; no I/O.
#pragma once

#include <cstdint>
#include <vector>

#include "common/config/gantry_conf.h"
#include "common/config/gres_spec.h"

namespace gantry::config {

struct NodeResources {
  int cpus = 1, boards = 1, sockets = 1, coresPerSocket = 1, threadsPerCore = 1;
  uint64_t realMemoryMb = 1;
  std::vector<GresCount> gres;
};

// True when config_overrides applies to `node`.
bool configOverridesApply(const GantryConf& conf, const NodeConf& node);

// The configured resources of `node` as a NodeResources.
NodeResources configuredResources(const NodeConf& node);

// `detected` unchanged, or the configured resources when config_overrides
// applies. Devices that are absent stay absent in the agent's GRES records;
// only the counts it reports are replaced.
NodeResources registeredResources(const GantryConf& conf, const NodeConf& node, const NodeResources& detected);

}  // namespace gantry::config
