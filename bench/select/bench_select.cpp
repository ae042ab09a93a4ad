// Selection cost on a simulated cluster: 10,000 nodes with 8 GPUs each,
// 8,000 NVLink-meshed nodes in partition "gpu" and 2,000 chunked nodes
// (ChunkSizes=2,4,8) in partition "chunk". About half of all GPUs are busy
// in a fragmented pattern (most nodes have 4 random GPUs taken, a few are
// idle or full). Each case times select() alone, which has no side effects,
// and prints one machine-readable line.
//
// A second, shard-heavy cluster of 1,000 nodes (8 GPUs x 16 shards each)
// takes thousands of small --gres=shard jobs: placed and committed one after
// another from empty, then churned (one job ends, one starts) near full, and
// select() alone on the fragmented result.
//
// A third cluster of 1,000 nodes in an OverSubscribe=FORCE:4 partition has
// every cpu held once, so the idle pass fails and selection goes on to the
// shared levels, which compute each node's shareable cpus as they scan.
//
// Usage: bench_select [iterations per round, default 2000] [seed, default 42]
// Each case runs 7 rounds; the median round is reported.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "controller/select/cluster.h"

using namespace gantry::select;

namespace {

constexpr int kNodes = 10000;
constexpr int kChunkedFrom = 8000;
constexpr int kGpusPerNode = 8;

NodeInfo makeNode(int index) {
  NodeInfo node;
  node.name = "sim" + std::to_string(index);
  node.sockets = 2;
  node.coresPerSocket = 32;
  node.threadsPerCore = 2;
  node.realMemoryMb = 1024 * 1024;
  bool chunked = index >= kChunkedFrom;
  for (int g = 0; g < kGpusPerNode; ++g) {
    DeviceInfo gpu;
    gpu.type = "h100";
    gpu.files = {"/dev/nvidia" + std::to_string(g)};
    int socket = g / 4;
    for (int c = 0; c < 32; ++c) gpu.cores.push_back(socket * 32 + c);
    if (!chunked) {
      // A full mesh: wide links inside each group of four, narrower across.
      for (int o = 0; o < kGpusPerNode; ++o) gpu.links.push_back(o == g ? -1 : (o / 4 == g / 4 ? 12 : 4));
    }
    node.devices.push_back(gpu);
  }
  if (chunked) node.chunks.push_back({"h100", {2, 4, 8}, {}});
  return node;
}

// Marks GPUs busy: 90% of nodes get 4 random GPUs (and 8 cores each) taken,
// 5% are left idle, 5% are full.
void makeBusy(Cluster& cluster, std::mt19937& random) {
  for (int n = 0; n < kNodes; ++n) {
    int roll = static_cast<int>(random() % 100);
    int busy = roll < 5 ? 0 : (roll < 10 ? kGpusPerNode : 4);
    std::vector<int> order{0, 1, 2, 3, 4, 5, 6, 7};
    std::shuffle(order.begin(), order.end(), random);
    NodeGrant grant;
    grant.node = n;
    for (int i = 0; i < busy; ++i) {
      int gpu = order[i];
      grant.devices.push_back(gpu);
      int firstCore = (gpu / 4) * 32 + (gpu % 4) * 8;
      for (int core = firstCore; core < firstCore + 4; ++core)
        for (int t = 0; t < 2; ++t) grant.cpus.push_back(core * 2 + t);
    }
    if (!grant.devices.empty()) cluster.commit(Allocation{{grant}});
  }
}

struct Case {
  const char* name;
  Request request;
  const PartitionView* partition;
};

// The median of several rounds, since a shared machine makes single rounds noisy.
constexpr int kRounds = 7;

void runCase(const Cluster& cluster, const Case& c, int iterations) {
  Outcome last = cluster.select(c.request, *c.partition);  // warm the partition cache
  std::vector<double> rounds;
  for (int round = 0; round < kRounds; ++round) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) last = cluster.select(c.request, *c.partition);
    auto elapsed = std::chrono::steady_clock::now() - start;
    rounds.push_back(std::chrono::duration<double, std::nano>(elapsed).count() / iterations);
  }
  std::sort(rounds.begin(), rounds.end());
  double ns = rounds[kRounds / 2];
  const char* verdict = last.verdict == Verdict::Placed ? "Placed" : (last.verdict == Verdict::NotNow ? "NotNow" : "Never");
  std::printf("case=%s ns_per_decision=%.0f decisions_per_s=%.0f verdict=%s nodes=%zu\n", c.name, ns,
              1e9 / ns, verdict, last.allocation.nodes.size());
}

// The pending-reason check of a job that may wait for a drain: canEverRun
// (drains ignored) and canEverRunDrained, as the scheduling pass asks them.
void runWaitCheck(const Cluster& cluster, const Case& c, int iterations) {
  Outcome last;
  std::vector<double> rounds;
  for (int round = 0; round < kRounds; ++round) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) {
      last = cluster.canEverRun(c.request, *c.partition);
      last = cluster.canEverRunDrained(c.request, *c.partition);
    }
    auto elapsed = std::chrono::steady_clock::now() - start;
    rounds.push_back(std::chrono::duration<double, std::nano>(elapsed).count() / iterations);
  }
  std::sort(rounds.begin(), rounds.end());
  double ns = rounds[kRounds / 2];
  const char* verdict = last.verdict == Verdict::Placed ? "Placed" : (last.verdict == Verdict::NotNow ? "NotNow" : "Never");
  std::printf("case=%s ns_per_decision=%.0f decisions_per_s=%.0f verdict=%s nodes=%zu\n", c.name, ns, 1e9 / ns,
              verdict, last.allocation.nodes.size());
}

// Every tenth node of the GPU partition with per-device drains: one GPU,
// one core (both threads) and 8 GB of memory.
void drainEveryTenthNode(Cluster& cluster) {
  for (int n = 0; n < kChunkedFrom; n += 10) {
    cluster.setDeviceDrained(n, kGpusPerNode - 1, true);
    cluster.setResourceDrains(n, ResourceDrains{.cpus = {0, 1}, .memoryMb = 8192, .counts = {}});
  }
}

// ---- the shard-heavy cluster

constexpr int kShardNodes = 1000;
constexpr uint64_t kShardsPerGpu = 16;
constexpr int kShardJobsFill = 20000;  // about 39% of the 128,000 shards (1-4 each)
constexpr int kShardJobsChurn = 10000;

Cluster makeShardCluster() {
  Cluster cluster;
  for (int n = 0; n < kShardNodes; ++n) {
    NodeInfo node = makeNode(n);
    node.name = "shard" + std::to_string(n);
    for (auto& gpu : node.devices) gpu.shared.push_back({"shard", kShardsPerGpu});
    cluster.addNode(std::move(node));
  }
  return cluster;
}

Request shardJob(std::mt19937& random) {
  Request r;
  r.gresPerNode.push_back({"shard", "", 1 + random() % 4});
  return r;
}

void printLine(const char* name, double ns, const char* verdict, size_t nodes) {
  std::printf("case=%s ns_per_decision=%.0f decisions_per_s=%.0f verdict=%s nodes=%zu\n", name, ns, 1e9 / ns,
              verdict, nodes);
}

double median(std::vector<double> rounds) {
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

// Places and commits `jobs` shard jobs; returns the live allocations.
std::vector<Allocation> fillWithShards(Cluster& cluster, const PartitionView& partition, std::mt19937& random,
                                       int jobs) {
  std::vector<Allocation> live;
  for (int i = 0; i < jobs; ++i) {
    Outcome outcome = cluster.select(shardJob(random), partition);
    if (outcome.verdict != Verdict::Placed) continue;
    cluster.commit(outcome.allocation);
    live.push_back(std::move(outcome.allocation));
  }
  return live;
}

void runShardCases(unsigned seed, int iterations) {
  PartitionView partition;
  for (int n = 0; n < kShardNodes; ++n) partition.nodes.push_back(n);
  std::printf("# shard cluster nodes=%d gpus_per_node=%d shards_per_gpu=%llu\n", kShardNodes, kGpusPerNode,
              static_cast<unsigned long long>(kShardsPerGpu));

  // Fill from empty: select + commit per job.
  std::vector<double> fillRounds, churnRounds;
  size_t placed = 0;
  for (int round = 0; round < kRounds; ++round) {
    Cluster cluster = makeShardCluster();
    std::mt19937 random(seed + round);
    auto start = std::chrono::steady_clock::now();
    auto live = fillWithShards(cluster, partition, random, kShardJobsFill);
    fillRounds.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
                         kShardJobsFill);
    placed = live.size();
    // Churn near full: fill further, then one job ends and a new one starts.
    auto more = fillWithShards(cluster, partition, random, 30000);
    live.insert(live.end(), more.begin(), more.end());
    start = std::chrono::steady_clock::now();
    for (int i = 0; i < kShardJobsChurn; ++i) {
      size_t victim = random() % live.size();
      cluster.release(live[victim]);
      Outcome outcome = cluster.select(shardJob(random), partition);
      if (outcome.verdict == Verdict::Placed) {
        cluster.commit(outcome.allocation);
        live[victim] = std::move(outcome.allocation);
      } else {
        live[victim] = live.back();
        live.pop_back();
      }
    }
    churnRounds.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
                          kShardJobsChurn);
    if (round + 1 < kRounds) continue;
    std::printf("# shard fill placed=%zu of %d jobs; churn live=%zu; %s\n", placed, kShardJobsFill, live.size(),
                cluster.gresUsed(0).c_str());
    printLine("shard_fill_20000_jobs", median(fillRounds), "Placed", 1);
    printLine("shard_churn_near_full", median(churnRounds), "Placed", 1);
    Request two;
    two.gresPerNode.push_back({"shard", "", 2});
    Request tooBig;  // more than one GPU offers: fits nowhere, every node is passed over
    tooBig.gresPerNode.push_back({"shard", "", kShardsPerGpu + 1});
    const Case selectOnly[] = {{"shard_two_fragmented", two, &partition},
                               {"shard_no_fit_full_scan", tooBig, &partition}};
    for (const auto& c : selectOnly) runCase(cluster, c, iterations);
  }
}

// ---- the over-subscribed cluster

constexpr int kOversubNodes = 1000;

void runOversubscribedCases(int iterations) {
  Cluster cluster;
  PartitionView partition;
  partition.overSubscribe = 4;
  partition.forcesSharing = true;
  for (int n = 0; n < kOversubNodes; ++n) {
    int index = cluster.addNode(makeNode(n));
    partition.nodes.push_back(index);
    NodeGrant everyCpu;
    everyCpu.node = index;
    for (int cpu = 0; cpu < 128; ++cpu) everyCpu.cpus.push_back(cpu);
    cluster.commit(Allocation{{everyCpu}, {}});
  }
  std::printf("# oversubscribed cluster nodes=%d FORCE:4, every cpu held once\n", kOversubNodes);
  Request cpuOnly;
  cpuOnly.ntasks = 4;
  cpuOnly.maxNodes = 1;
  runCase(cluster, {"oversub_force4_cpu_only_four_tasks", cpuOnly, &partition}, iterations);
  // Saturated: every cpu held four times, so every shared level looks at
  // every node and finds no cpu it may share.
  for (int held = 1; held < 4; ++held)
    for (int n = 0; n < kOversubNodes; ++n) {
      NodeGrant everyCpu;
      everyCpu.node = n;
      for (int cpu = 0; cpu < 128; ++cpu) everyCpu.cpus.push_back(cpu);
      cluster.commit(Allocation{{everyCpu}, {}});
    }
  runCase(cluster, {"oversub_force4_saturated_full_scan", cpuOnly, &partition}, iterations);
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 2000;
  unsigned seed = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 42;
  if (iterations < 1) iterations = 1;
  std::printf("# bench_select nodes=%d gpus_per_node=%d iterations=%d seed=%u\n", kNodes, kGpusPerNode,
              iterations, seed);

  Cluster cluster;
  for (int n = 0; n < kNodes; ++n) cluster.addNode(makeNode(n));
  std::mt19937 random(seed);
  makeBusy(cluster, random);

  PartitionView gpuPartition, chunkPartition;
  for (int n = 0; n < kChunkedFrom; ++n) gpuPartition.nodes.push_back(n);
  for (int n = kChunkedFrom; n < kNodes; ++n) chunkPartition.nodes.push_back(n);

  Request oneGpu;
  oneGpu.gpusPerNode = 1;
  Request eightLinked;
  eightLinked.gpusPerNode = 8;
  eightLinked.links = LinkPolicy::Enforce;
  Request chunk;
  chunk.gresPerNode.push_back({"gpu", "h100", 2});
  Request sixtyFour;
  sixtyFour.minNodes = sixtyFour.maxNodes = 64;
  sixtyFour.ntasks = 64;
  sixtyFour.gpusPerNode = 4;
  Request twoPrefer;
  twoPrefer.gpusPerNode = 2;
  Request cpuOnly;
  cpuOnly.ntasks = 4;
  cpuOnly.maxNodes = 1;
  Request noFit;  // more cpus than any node has: every node is looked at
  noFit.cpusPerTask = 200;
  noFit.gpusPerNode = 1;
  Request fourLinked;
  fourLinked.gpusPerNode = 4;
  fourLinked.links = LinkPolicy::Enforce;

  const Case cases[] = {
      {"one_gpu", oneGpu, &gpuPartition},
      {"eight_gpu_enforce_links", eightLinked, &gpuPartition},
      {"four_gpu_enforce_links", fourLinked, &gpuPartition},
      {"two_gpu_default_links", twoPrefer, &gpuPartition},
      {"cpu_only_four_tasks", cpuOnly, &gpuPartition},
      {"no_fit_full_scan", noFit, &gpuPartition},
      {"chunk_pair", chunk, &chunkPartition},
      {"sixty_four_nodes_4_gpus", sixtyFour, &gpuPartition},
  };
  for (const auto& c : cases) runCase(cluster, c, iterations);

  // The same cases with a tenth of the GPU partition degraded, and the
  // check that names drains in a waiting job's reason.
  drainEveryTenthNode(cluster);
  std::printf("# the same cluster, every tenth node of partition gpu with a GPU, a core and 8 GB drained\n");
  const Case drainedCases[] = {
      {"drained_one_gpu", oneGpu, &gpuPartition},
      {"drained_cpu_only_four_tasks", cpuOnly, &gpuPartition},
      {"drained_no_fit_full_scan", noFit, &gpuPartition},
      {"drained_sixty_four_nodes_4_gpus", sixtyFour, &gpuPartition},
  };
  for (const auto& c : drainedCases) runCase(cluster, c, iterations);
  runWaitCheck(cluster, {"drained_wait_check_eight_gpus", eightLinked, &gpuPartition}, iterations);
  runShardCases(seed, iterations);
  runOversubscribedCases(iterations);
  return 0;
}
