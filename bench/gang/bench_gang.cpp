// The timeslicer's rebuild at scale: 10,000 gang jobs in one partition of
// 1,000 nodes (2 sockets x 32 cores each), rotated slice after slice.
//
// Job i starts on node i mod 1000 and spans one to three nodes; at core
// resolution it holds 8 cores a node (block (i / 1000) mod 8, so about ten
// jobs share each node and some blocks twice); at cpu-count resolution 8
// CPUs a node; at whole-node resolution the nodes themselves. Every slice
// has waiting jobs, so each rotate() rebuilds the whole active set.
//
// One machine-readable line per resolution: the median and the slowest of
// the timed slices, in milliseconds.
//
// Usage: bench_gang [slices, default 21] [jobs, default 10000] [nodes, default 1000]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "controller/gang/partition_gang.h"

using namespace gantry::gang;
using gantry::select::CpuSet;

namespace {

constexpr int kCoresPerNode = 64;

GangJob makeJob(uint64_t i, Resolution resolution, uint32_t nodeCount) {
  GangJob job{.id = i + 1};
  uint32_t first = static_cast<uint32_t>(i % nodeCount);
  uint32_t span = 1 + static_cast<uint32_t>(i % 3);
  int block = static_cast<int>((i / nodeCount) % 8);
  for (uint32_t k = 0; k < span; ++k) {
    NodeClaim claim{.node = (first + k) % nodeCount};
    if (resolution == Resolution::CpuCount) {
      claim.count = 8;
    } else if (resolution == Resolution::WholeNode) {
      claim.units = CpuSet(1, true);
    } else {
      claim.units = CpuSet(kCoresPerNode, false);
      for (int c = block * 8; c < block * 8 + 8; ++c) claim.units.set(c);
    }
    job.claims.push_back(std::move(claim));
  }
  return job;
}

void run(const char* name, Resolution resolution, int slices, uint64_t jobs, uint32_t nodeCount) {
  int capacity = resolution == Resolution::WholeNode ? 1 : kCoresPerNode;
  PartitionGang gang(resolution, std::vector<int>(nodeCount, capacity));
  for (uint64_t i = 0; i < jobs; ++i) gang.admit(makeJob(i, resolution, nodeCount));
  std::vector<double> ms;
  size_t changed = 0;
  for (int s = 0; s < slices; ++s) {
    auto start = std::chrono::steady_clock::now();
    GangChanges changes = gang.rotate();
    auto end = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    changed += changes.suspend.size() + changes.resume.size();
  }
  std::sort(ms.begin(), ms.end());
  std::printf("case=gang_slice resolution=%s jobs=%llu nodes=%u slices=%d median_ms=%.2f max_ms=%.2f "
              "changes_per_slice=%zu\n",
              name, static_cast<unsigned long long>(jobs), nodeCount, slices, ms[ms.size() / 2],
              ms.back(), changed / static_cast<size_t>(slices));
}

}  // namespace

int main(int argc, char** argv) {
  int slices = argc > 1 ? std::atoi(argv[1]) : 21;
  uint64_t jobs = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10000;
  uint32_t nodeCount = argc > 3 ? static_cast<uint32_t>(std::atoi(argv[3])) : 1000;
  if (slices < 1 || jobs < 1 || nodeCount < 1) {
    std::fprintf(stderr, "usage: bench_gang [slices>=1] [jobs>=1] [nodes>=1]\n");
    return 2;
  }
  run("whole_node", Resolution::WholeNode, slices, jobs, nodeCount);
  run("core", Resolution::Core, slices, jobs, nodeCount);
  run("cpu_count", Resolution::CpuCount, slices, jobs, nodeCount);
  return 0;
}
