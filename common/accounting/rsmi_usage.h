// GPU usage as the ROCm SMI library (gpu/rsmi) reports it, and what Gantry
// records from each reading. The library reads a per-process counter of
// occupied compute units (CUs) from the amdgpu driver over the GPUs the
// launcher's device cgroup allows; gres/gpuutil is that total over the CUs of
// those GPUs. The driver does not always provide the counter, and what the
// library then returns depends on the ROCm release: the caller gives the
// outcome of each read (rsmiReadOutcome() states the release rules).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gantry::accounting {

enum class CgroupVersion { V1, V2 };

// The GPUs of the node the library may read.
struct RsmiReadScope {
  bool constrainDevices = false;  // cgroup.conf ConstrainDevices (default no)
  CgroupVersion cgroup = CgroupVersion::V2;
};

// The indexes of the GPUs read: every AMD GPU of the node without
// ConstrainDevices; with it, the job's GPUs under cgroup v2 (the device
// filter sits on the job's cgroup) and the step's GPUs under cgroup v1.
std::vector<uint32_t> rsmiReadGpus(const RsmiReadScope& scope, const std::vector<uint32_t>& nodeAmdGpus,
                                   const std::vector<uint32_t>& jobGpus, const std::vector<uint32_t>& stepGpus);

// One GPU read, in the library's order.
struct GpuCuCount {
  uint64_t occupiedCus = 0;  // CUs the process occupies on this GPU
  uint64_t totalCus = 0;     // CUs the GPU has
};

// gres/gpuutil of one process: its occupied CUs over all read GPUs, as a
// whole percentage (rounded down) of the CUs of those GPUs. 0 when no CUs.
// One GPU of four identical ones fully busy gives 25.
uint64_t rsmiUtilPercent(const std::vector<GpuCuCount>& readGpus);

// What the library returned for one process at one poll.
enum class RsmiOutcome {
  Value,       // a utilization value (maybe wrong: see rsmiReadOutcome)
  Invalid,     // the library's invalid marker
  Failed,      // the call failed
};

struct RsmiProcessRead {
  RsmiOutcome outcome = RsmiOutcome::Failed;
  uint64_t gpuUtilPercent = 0;  // with Value
  uint64_t gpuMemBytes = 0;     // with Value or Invalid
};

// What Gantry records for that process at that poll.
struct RsmiSample {
  std::optional<uint64_t> gpuMemBytes;
  std::optional<uint64_t> gpuUtilPercent;
};

struct RsmiPoll {
  std::vector<RsmiSample> samples;  // one per process read, in order
  std::vector<std::string> logLines;  // "RSMI: Failed to get usage", once per failed process
};

// A value of 100 or less records both TRES (a wrong value cannot be told
// from a real one). An invalid value, or one above 100, records gpumem and
// no gpuutil. A failed read records neither.
RsmiSample rsmiSampleFrom(const RsmiProcessRead& read);

// One poll of every process of a task; each failed read adds one log line.
RsmiPoll rsmiPollFrom(const std::vector<RsmiProcessRead>& reads);

// ROCm release rules, for stating what a read returns on a given release.
struct RocmRelease {
  int major = 0, minor = 0, patch = 0;
  auto operator<=>(const RocmRelease&) const = default;
};

// Whether the driver gives the counter for one read GPU.
enum class CuCounter {
  Provided,
  Unsupported,   // the GPU generation or driver lacks it
  Inaccessible,  // the process may not use the GPU: never provided
};

// What the library returns when it reads these GPUs, in its order:
enum class RsmiLibraryResult { Correct, WrongValue, Invalid, Failed };
// - every GPU provides the counter: Correct;
// - before 6.1.1, any GPU lacking it: Failed;
// - before 6.3.0, an inaccessible GPU: still Failed;
// - from 6.1.1, a GPU with the counter read after the last one lacking it:
//   WrongValue (a value that looks real); otherwise Invalid.
RsmiLibraryResult rsmiReadOutcome(const RocmRelease& release, const std::vector<CuCounter>& readGpus);

// How the launcher sees that result: a correct or a wrong value alike is a
// Value.
RsmiOutcome outcomeSeen(RsmiLibraryResult result);

}  // namespace gantry::accounting
