// The GRES records a node agent registers: one record per device (a GPU, a
// MIG instance, one device of another GRES with File=), per shared slice of a
// GPU (shard/mps: one record per GPU carrying its count), or per count-only
// GRES. Records of one name appear in device order, which is the index order
// jobs see.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gantry::nodegres {

struct GresRecord {
  std::string name;
  std::string type;
  // A GPU's type as AutoDetect named it before gantry.conf's shorter Type
  // replaced it ("" when not detected): shard/mps Type= lines match either.
  std::string detectedType;
  std::vector<std::string> files;  // several for MultipleFiles, MIG and amdgpu devices
  std::vector<int> cores;          // core ids; empty = any
  std::vector<int> links;          // per device of the same name, -1 for itself; empty = unknown
  std::string uuid;
  uint64_t count = 1;
  std::vector<std::string> flags;  // as written in gres.conf (e.g. env_uuid, explicit)
  std::vector<int> chunkSizes, chunkOrder;
  std::string pciBusId;            // "" when unknown
  bool autodetected = false;       // came from (or was checked against) AutoDetect
  bool isMig = false;
  // Shard device memory: the region enforced for this device and the bytes
  // one shard may use (0 = not enforced). Set on shard records and on the GPU
  // record they share.
  std::string dmemRegion;
  uint64_t dmemCapacityBytes = 0;
  uint64_t dmemSliceBytes = 0;
  std::string sourceFile;  // gres.conf line it came from; empty for pure autodetect
  int sourceLine = 0;
};

struct MergeResult {
  std::vector<GresRecord> records;
  // Problems that cost the node a device (e.g. a GPU whose detected Cores,
  // Links or UUID differ from gres.conf is omitted); the agent logs them.
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
  // The detected devices left out for those errors, for `gantryd -G`.
  std::vector<GresRecord> omitted;
  // Informational lines for the agent log, e.g. the "shard: ..." dmem lines.
  std::vector<std::string> log;
  // Non-empty when the node must be drained at registration (detected
  // devices that gantry.conf does not account for); the reason to show.
  std::string drainReason;
};

}  // namespace gantry::nodegres
