// Shared GRES (gres/mps, gres/shard): GPUs divided into shares that many
// jobs may hold at once. The per-GPU counts arrive already resolved from
// gres.conf (common/config/shared_gres.h); this file answers questions about
// them and holds the checks and numbers every program agrees on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/gres/device.h"
#include "common/util/result.h"

namespace gantry::gres {

// True for the GRES names that share a GPU rather than being a device.
inline bool isSharedGresName(std::string_view name) { return name == "mps" || name == "shard"; }

// The shares of `name` the device offers; 0 when none.
uint64_t sharedCountOf(const DeviceInfo& device, std::string_view name);

// The shared GRES names offered on a node, in order of first appearance.
std::vector<std::string> sharedNamesOf(const std::vector<DeviceInfo>& devices);

// One item of a node's Gres= in gantry.conf, e.g. shard:rtx_5090:16.
struct ConfiguredGres {
  std::string name;
  std::string type;  // empty: untyped
  uint64_t count = 0;
};

// The registration check of shared totals against Gres=. For each shared
// name the node declares: a typed item must equal the sum over GPUs of that
// type (compared case-insensitively), and the typed items together must
// cover every share; an untyped item must equal the sum over all GPUs.
// A shared name the node offers but Gres= does not declare is refused too.
// The error names the item and both numbers; it is meant as a drain reason.
Status checkSharedTotals(const std::vector<DeviceInfo>& devices, const std::vector<ConfiguredGres>& configured);

// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE for `shares` of a GPU offering
// `deviceCount`: shares x 100 / deviceCount, rounded down (200 of 1300 -> 15).
// 0 when the device offers none.
int mpsActiveThreadPercentage(uint64_t shares, uint64_t deviceCount);

}  // namespace gantry::gres
