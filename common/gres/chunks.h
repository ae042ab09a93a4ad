// Device chunks: devices of one chunk domain are handed out only in aligned
// groups whose sizes come from the domain's ChunkLayout. Chunk position p
// holds domain ordinal order[p]; ordinal i is the i-th device of the domain
// in node index order.
#pragma once

#include <optional>
#include <vector>

#include "common/gres/device.h"
#include "common/util/result.h"

namespace gantry::gres {

// The largest chunk domain the layout rules allow.
inline constexpr int kMaxChunkDomainDevices = 1024;

struct ChunkDomain {
  const ChunkLayout* layout = nullptr;
  std::vector<int> devices;  // node device indexes, by domain ordinal
  DeviceMask mask = 0;       // the same devices as a mask
};

// One domain per layout, holding the node's devices of that name and type.
std::vector<ChunkDomain> chunkDomains(const std::vector<DeviceInfo>& devices,
                                      const std::vector<ChunkLayout>& layouts);

// The checks made when a node registers: sizes ascending and nesting, the
// domain a multiple of the largest size, at most 1024 devices, an order of
// the domain's length that is a permutation. The error text names the rule
// and is meant as the node's drain reason.
Status validateChunkLayout(const ChunkLayout& layout, int domainDevices);

// The devices of the aligned chunk of `size` starting at chunk position `start`.
DeviceMask chunkMask(const ChunkDomain& domain, int size, int start);

// True when `count` may be given from this domain: one of the sizes, or all of it.
bool isChunkCount(const ChunkDomain& domain, int count);

// Picks an aligned chunk of `count` devices all inside `free`. Among free
// chunks, prefers one whose enclosing larger chunk is already partly taken,
// keeping completely free larger chunks for larger jobs. A count equal to the
// whole domain takes the whole domain. `inUse` marks devices other jobs hold
// (or drains) for that preference; by default every device not in `free`.
std::optional<DeviceMask> pickChunk(const ChunkDomain& domain, DeviceMask free, int count);
std::optional<DeviceMask> pickChunk(const ChunkDomain& domain, DeviceMask free, int count, DeviceMask inUse);

}  // namespace gantry::gres
