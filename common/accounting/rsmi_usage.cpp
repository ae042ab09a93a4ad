#include "common/accounting/rsmi_usage.h"

#include <algorithm>

namespace gantry::accounting {

std::vector<uint32_t> rsmiReadGpus(const RsmiReadScope& scope, const std::vector<uint32_t>& nodeAmdGpus,
                                   const std::vector<uint32_t>& jobGpus, const std::vector<uint32_t>& stepGpus) {
  if (!scope.constrainDevices) return nodeAmdGpus;
  return scope.cgroup == CgroupVersion::V2 ? jobGpus : stepGpus;
}

uint64_t rsmiUtilPercent(const std::vector<GpuCuCount>& readGpus) {
  uint64_t occupied = 0, total = 0;
  for (const GpuCuCount& gpu : readGpus) {
    occupied += gpu.occupiedCus;
    total += gpu.totalCus;
  }
  return total == 0 ? 0 : occupied * 100 / total;
}

RsmiSample rsmiSampleFrom(const RsmiProcessRead& read) {
  switch (read.outcome) {
    case RsmiOutcome::Failed: return {};
    case RsmiOutcome::Invalid: return {.gpuMemBytes = read.gpuMemBytes, .gpuUtilPercent = std::nullopt};
    case RsmiOutcome::Value:
      if (read.gpuUtilPercent > 100) return {.gpuMemBytes = read.gpuMemBytes, .gpuUtilPercent = std::nullopt};
      return {.gpuMemBytes = read.gpuMemBytes, .gpuUtilPercent = read.gpuUtilPercent};
  }
  return {};
}

RsmiPoll rsmiPollFrom(const std::vector<RsmiProcessRead>& reads) {
  RsmiPoll poll;
  for (const RsmiProcessRead& read : reads) {
    poll.samples.push_back(rsmiSampleFrom(read));
    if (read.outcome == RsmiOutcome::Failed) poll.logLines.push_back("RSMI: Failed to get usage");
  }
  return poll;
}

RsmiLibraryResult rsmiReadOutcome(const RocmRelease& release, const std::vector<CuCounter>& readGpus) {
  constexpr RocmRelease kInvalidMarker{6, 1, 1};    // reports invalid instead of failing
  constexpr RocmRelease kInaccessibleOk{6, 3, 0};  // an inaccessible GPU no longer fails
  auto lacking = [](CuCounter c) { return c != CuCounter::Provided; };
  auto lastLacking = std::find_if(readGpus.rbegin(), readGpus.rend(), lacking);
  if (lastLacking == readGpus.rend()) return RsmiLibraryResult::Correct;
  if (release < kInvalidMarker) return RsmiLibraryResult::Failed;
  bool anyInaccessible = std::find(readGpus.begin(), readGpus.end(), CuCounter::Inaccessible) != readGpus.end();
  if (release < kInaccessibleOk && anyInaccessible) return RsmiLibraryResult::Failed;
  // A GPU with the counter after the last lacking one overwrites the marker.
  bool providedAfter = lastLacking != readGpus.rbegin();
  return providedAfter ? RsmiLibraryResult::WrongValue : RsmiLibraryResult::Invalid;
}

RsmiOutcome outcomeSeen(RsmiLibraryResult result) {
  switch (result) {
    case RsmiLibraryResult::Correct:
    case RsmiLibraryResult::WrongValue: return RsmiOutcome::Value;
    case RsmiLibraryResult::Invalid: return RsmiOutcome::Invalid;
    case RsmiLibraryResult::Failed: return RsmiOutcome::Failed;
  }
  return RsmiOutcome::Failed;
}

}  // namespace gantry::accounting
