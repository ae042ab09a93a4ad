// The GRES device model shared by the controller, the node agent and the
// views: one record per device (a GPU or a MIG instance), the chunk layout of
// a Type domain, and the 64-bit device masks selection works on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gantry::gres {

// Selection keeps one bit per device of a node, so a node may carry at most
// this many devices (of all GRES names together). Nodes above it are refused
// by validation rather than silently truncated.
inline constexpr int kMaxDevicesPerNode = 64;

using DeviceMask = uint64_t;

inline DeviceMask bitOf(int device) { return DeviceMask{1} << device; }
inline DeviceMask lowBits(int count) {
  return count >= 64 ? ~DeviceMask{0} : (DeviceMask{1} << count) - 1;
}

// Shares of one GPU offered under a shared GRES name (gres/mps, gres/shard):
// many jobs may hold shares of the GPU at once, up to `count`.
struct SharedCount {
  std::string name;  // "mps" or "shard"
  uint64_t count = 0;
};

struct DeviceInfo {
  std::string name = "gpu";
  std::string type;                // empty: untyped
  std::vector<std::string> files;  // device files, e.g. /dev/nvidia0
  std::vector<int> cores;          // node-wide core ids bound to it; empty = unknown
  std::vector<int> links;          // link capacity to each device of the node, -1 for itself; empty = unknown
  std::string uuid;
  bool explicitOnly = false;       // Flags=explicit: never given implicitly (e.g. to --exclusive)
  std::vector<SharedCount> shared; // shares this GPU offers, one entry per shared GRES name; empty: none
};

// A GRES with a count but no device files (Flags=CountOnly, or a Gres= item
// gres.conf gives no File), e.g. "bandwidth:lustre:no_consume:4G".
struct CountedGres {
  std::string name;
  std::string type;  // empty: untyped
  uint64_t count = 0;
  bool noConsume = false;  // jobs may ask for up to `count` without using it up
};

// How grants name a count-only GRES: "bandwidth", or "bandwidth:lustre" when typed.
inline std::string countedGresKey(const CountedGres& counted) {
  return counted.type.empty() ? counted.name : counted.name + ":" + counted.type;
}

// Chunk configuration of one chunk domain: the devices of one GRES name and
// one Type on a node (devices with no Type form a domain of their own).
struct ChunkLayout {
  std::string type;
  std::vector<int> sizes;  // ascending, each a multiple of the previous
  std::vector<int> order;  // order[position] = domain ordinal; empty = identity
  std::string name = "gpu";
};

}  // namespace gantry::gres
