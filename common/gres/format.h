// GRES strings exactly as the views print them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/gres/device.h"

namespace gantry::gres {

// "gpu:sizes=2/4/8/16;order=0/1/..." per chunked Type, comma separated
// ("gpu:a100:sizes=..." for a typed domain). The order is always printed,
// identity when none was configured. Empty when the node has no chunks, so
// the caller prints no GresChunks= line at all.
std::string formatGresChunks(const std::vector<DeviceInfo>& devices,
                             const std::vector<ChunkLayout>& layouts);

// A count with the largest exact binary suffix: 4096 -> "4K", 4294967296 -> "4G".
std::string formatCount(uint64_t count);

// The devices of `mask`, grouped by name and type in node order, with
// indexes: "gpu:a100:2(IDX:0-1),gpu:l4:1(IDX:20)". Empty for an empty mask.
std::string formatDeviceGrant(const std::vector<DeviceInfo>& devices, DeviceMask mask);

// Every name:type group of the node with how many of its devices `used`
// holds, "(IDX:N/A)" when none: "gpu:a100:2(IDX:0-1),gpu:l4:0(IDX:N/A)".
std::string formatGresUsed(const std::vector<DeviceInfo>& devices, DeviceMask used);

// One shared GRES of a node as GresUsed shows it: the shares held in all,
// then one entry per GPU offering `name` (devices offering none are left
// out), in device order: "shard:8(-/5,5/5,3/5,0/5)". An entry is "-/N" for a
// GPU held whole, "u/N" otherwise, with a leading "d" for a drained GPU and
// the count dropped when a drained GPU holds none ("d/5", "d3/5").
// `usedPerDevice` is indexed by device; missing entries count as 0.
std::string formatSharedUsed(const std::vector<DeviceInfo>& devices, const std::string& name,
                             const std::vector<uint64_t>& usedPerDevice, DeviceMask heldWhole, DeviceMask drained);

// The shares one job holds on one node, as Slurm's scontrol -d shows a
// job's: the total, then held/offered for each device offering `name`, in
// index order: "shard:8(0/5,5/5,3/5,0/5)". Empty when there are none.
std::string formatShareGrant(const std::vector<DeviceInfo>& devices, const std::string& name,
                             const std::vector<std::pair<int, uint64_t>>& deviceShares);

// A count-only GRES as the views print it: "bandwidth:lustre:4G".
std::string formatCounted(const std::string& name, const std::string& type, uint64_t count);

// Configured totals: "gpu:a100:8,gpu:l4:2" plus count-only GRES "bandwidth:4G".
std::string formatGresTotals(const std::vector<DeviceInfo>& devices,
                             const std::vector<std::pair<std::string, uint64_t>>& countGres);

}  // namespace gantry::gres
