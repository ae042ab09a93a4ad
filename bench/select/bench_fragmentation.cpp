// GPU fragmentation on a synthetic job trace: how many GPU-hours stay free
// while jobs wait that none of the waiting jobs can use ("stranded"), with
// Gantry's placement (best fit: the nodes with the fewest free GPUs that
// can serve come first) against plain first fit (the first node, in index
// order, that can serve). Both run the same trace through the same
// selection library and the same scheduler; only the node order differs
// (first fit is selection over a candidate list in index order).
//
// The cluster: 128 nodes of 8 GPUs (2 sockets x 32 cores). The trace,
// drawn from a fixed seed (splitmix64, so every machine draws the same):
//   GPUs per job   1: 45%, 2: 20%, 4: 15%, 8: 12%, 16 (2 whole nodes): 5%,
//                  32 (4 whole nodes): 3%; 4 cores per GPU
//   durations      10 minutes: 30%, 1 hour: 40%, 4 hours: 20%, 12 hours: 10%
//   arrivals       Poisson, the mean gap set so that the work offered is
//                  `load` (default 0.95) of the cluster's GPUs
// Scheduling: at every arrival and every end, the first 64 waiting jobs in
// arrival order are tried, and each that fits starts (as sched/builtin). A
// job runs for its duration exactly.
//
// Stranded, at any moment while jobs wait: the free GPUs of each node that
// has fewer free GPUs than the smallest per-node GPU need among the
// waiting jobs (a job of 8 or more needs whole nodes), summed over the
// time up to the last arrival (the drain after it is left out).
//
// Usage: bench_fragmentation [jobs, default 6000] [load, default 0.95] [seed, default 7]
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <vector>

#include "controller/select/cluster.h"

using namespace gantry::select;

namespace {

constexpr int kNodes = 128;
constexpr int kGpusPerNode = 8;
constexpr int kCoresPerSocket = 32;
constexpr int kCoresPerGpu = 4;
constexpr size_t kQueueDepth = 64;

struct SplitMix {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

struct TraceJob {
  int64_t arrival = 0;  // seconds
  int64_t duration = 0;
  int gpus = 1;
};

// Picks from (weight, value) pairs; weights in percent.
template <typename T>
T pick(SplitMix& random, const std::vector<std::pair<int, T>>& table) {
  int roll = static_cast<int>(random.unit() * 100);
  for (const auto& [weight, value] : table) {
    if (roll < weight) return value;
    roll -= weight;
  }
  return table.back().second;
}

std::vector<TraceJob> makeTrace(int count, double load, uint64_t seed) {
  const std::vector<std::pair<int, int>> gpuTable = {{45, 1}, {20, 2}, {15, 4}, {12, 8}, {5, 16}, {3, 32}};
  const std::vector<std::pair<int, int64_t>> durationTable = {{30, 600}, {40, 3600}, {20, 14400}, {10, 43200}};
  double meanGpuSeconds = 0;
  for (const auto& [gw, gpus] : gpuTable) {
    for (const auto& [dw, seconds] : durationTable) meanGpuSeconds += gw / 100.0 * dw / 100.0 * gpus * seconds;
  }
  // Offered GPU-seconds per second = load x the cluster's GPUs.
  double meanGap = meanGpuSeconds / (load * kNodes * kGpusPerNode);
  SplitMix random{seed};
  std::vector<TraceJob> trace;
  double at = 0;
  for (int i = 0; i < count; ++i) {
    at += -std::log(1.0 - random.unit()) * meanGap;
    trace.push_back({static_cast<int64_t>(at), pick(random, durationTable), pick(random, gpuTable)});
  }
  return trace;
}

NodeInfo makeNode(int index) {
  NodeInfo node;
  node.name = "frag" + std::to_string(index);
  node.sockets = 2;
  node.coresPerSocket = kCoresPerSocket;
  node.realMemoryMb = 1024 * 1024;
  for (int g = 0; g < kGpusPerNode; ++g) {
    DeviceInfo gpu;
    gpu.type = "h100";
    gpu.files = {"/dev/nvidia" + std::to_string(g)};
    int socket = g / (kGpusPerNode / 2);
    for (int c = 0; c < kCoresPerSocket; ++c) gpu.cores.push_back(socket * kCoresPerSocket + c);
    node.devices.push_back(gpu);
  }
  return node;
}

// What a job asks: GPUs on one node, or whole nodes' GPUs on several.
Request requestFor(const TraceJob& job, bool firstFit) {
  Request request;
  int nodes = std::max(1, job.gpus / kGpusPerNode);
  request.minNodes = request.maxNodes = nodes;
  request.ntasks = nodes;
  request.ntasksPerNode = 1;
  request.gpusPerNode = job.gpus / nodes;
  request.cpusPerTask = request.gpusPerNode * kCoresPerGpu;
  if (firstFit) {
    for (int n = 0; n < kNodes; ++n) request.nodeLists.candidates.push_back(n);
  }
  return request;
}

int perNodeNeed(const TraceJob& job) { return std::min(job.gpus, kGpusPerNode); }

struct Result {
  double strandedGpuHours = 0;
  double idleGpuHours = 0;
  double busyGpuHours = 0;
  double meanWaitMinutes = 0;
};

Result simulate(const std::vector<TraceJob>& trace, bool firstFit) {
  Cluster cluster;
  PartitionView partition;
  for (int n = 0; n < kNodes; ++n) partition.nodes.push_back(cluster.addNode(makeNode(n)));
  const int64_t horizon = trace.back().arrival;
  std::deque<size_t> waiting;
  std::multiset<int> waitingNeeds;
  // Running jobs' ends: (end time, trace index), earliest first.
  std::priority_queue<std::pair<int64_t, size_t>, std::vector<std::pair<int64_t, size_t>>, std::greater<>> ends;
  std::map<size_t, Allocation> allocations;
  Result result;
  double waitSum = 0;
  size_t started = 0, next = 0;
  int64_t now = 0;
  auto freeGpus = [&](int node) { return kGpusPerNode - std::popcount(cluster.usedDevices(node)); };
  auto account = [&](int64_t until) {
    until = std::min(until, horizon);
    if (until <= now) return;
    double hours = static_cast<double>(until - now) / 3600.0;
    int smallestNeed = waitingNeeds.empty() ? kGpusPerNode + 1 : *waitingNeeds.begin();
    for (int n = 0; n < kNodes; ++n) {
      int free = freeGpus(n);
      result.idleGpuHours += free * hours;
      result.busyGpuHours += (kGpusPerNode - free) * hours;
      if (!waitingNeeds.empty() && free > 0 && free < smallestNeed) result.strandedGpuHours += free * hours;
    }
  };
  while (next < trace.size() || !ends.empty()) {
    int64_t at = next < trace.size() ? trace[next].arrival : INT64_MAX;
    if (!ends.empty()) at = std::min(at, ends.top().first);
    account(at);
    now = at;
    while (!ends.empty() && ends.top().first == now) {
      cluster.release(allocations.at(ends.top().second));
      allocations.erase(ends.top().second);
      ends.pop();
    }
    while (next < trace.size() && trace[next].arrival == now) {
      waiting.push_back(next);
      waitingNeeds.insert(perNodeNeed(trace[next]));
      ++next;
    }
    size_t tried = 0;
    for (auto it = waiting.begin(); it != waiting.end() && tried < kQueueDepth; ++tried) {
      const TraceJob& job = trace[*it];
      Outcome outcome = cluster.select(requestFor(job, firstFit), partition);
      if (outcome.verdict != Verdict::Placed) {
        ++it;
        continue;
      }
      cluster.commit(outcome.allocation);
      allocations.emplace(*it, std::move(outcome.allocation));
      ends.emplace(now + job.duration, *it);
      waitSum += static_cast<double>(now - job.arrival);
      ++started;
      waitingNeeds.erase(waitingNeeds.find(perNodeNeed(job)));
      it = waiting.erase(it);
    }
  }
  result.meanWaitMinutes = started > 0 ? waitSum / static_cast<double>(started) / 60.0 : 0;
  return result;
}

void print(const char* policy, const Result& r) {
  std::printf("policy=%s stranded_gpu_hours=%.0f idle_gpu_hours=%.0f utilization=%.3f mean_wait_min=%.1f\n", policy,
              r.strandedGpuHours, r.idleGpuHours, r.busyGpuHours / (r.busyGpuHours + r.idleGpuHours),
              r.meanWaitMinutes);
}

}  // namespace

int main(int argc, char** argv) {
  int jobs = argc > 1 ? std::max(100, std::atoi(argv[1])) : 6000;
  double load = argc > 2 ? std::atof(argv[2]) : 0.95;
  uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 7;
  if (load <= 0 || load > 2) {
    std::fprintf(stderr, "bench_fragmentation: load must be above 0 and at most 2\n");
    return 2;
  }
  std::vector<TraceJob> trace = makeTrace(jobs, load, seed);
  std::printf("# bench_fragmentation nodes=%d gpus_per_node=%d jobs=%d load=%.2f seed=%llu trace_hours=%.1f\n", kNodes,
              kGpusPerNode, jobs, load, static_cast<unsigned long long>(seed), trace.back().arrival / 3600.0);
  Result bestFit = simulate(trace, false);
  Result firstFit = simulate(trace, true);
  print("gantry_best_fit", bestFit);
  print("first_fit", firstFit);
  double ratio = firstFit.strandedGpuHours > 0 ? bestFit.strandedGpuHours / firstFit.strandedGpuHours : 0;
  std::printf("ratio stranded best_fit/first_fit=%.3f (%.0f%% fewer; target at least 30%% fewer)\n", ratio,
              (1 - ratio) * 100);
  return 0;
}
