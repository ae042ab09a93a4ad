// RestrictedCoresPerGPU: cores bound to a GPU that only jobs holding that
// GPU (or shares of it) may get. One row per rule, on a node of our own:
// two sockets of five cores, four GPUs, two kept per GPU, so GPU 0 keeps
// cores 0-1, GPU 1 2-3, GPU 2 5-6, GPU 3 7-8 and only 4 and 9 are open to
// every job.
#include <catch2/catch.hpp>

#include <set>

#include "select_builders.h"

using namespace gantry::select;
using namespace gantry::select::testing;

namespace {

NodeInfo keepingNode(int kept, int threadsPerCore = 1) {
  NodeInfo node = gpuNode("rc1", 4, "", NodeShape{.sockets = 2, .coresPerSocket = 5, .threadsPerCore = threadsPerCore});
  node.restrictedCoresPerGpu = kept;
  for (auto& device : node.devices) device.shared.push_back({"shard", 10});
  return node;
}

Request job(int tasks, int gpus = 0, uint64_t shards = 0) {
  Request r;
  r.ntasks = tasks;
  if (gpus > 0) r.gpusPerNode = gpus;
  if (shards > 0) r.gresPerNode.push_back({"shard", "", shards});
  return r;
}

std::set<int> cpusOf(const Outcome& outcome) {
  if (outcome.allocation.nodes.empty()) return {};
  const auto& cpus = outcome.allocation.nodes[0].cpus;
  return {cpus.begin(), cpus.end()};
}

const std::set<int> kKeptByOthersThanGpu0 = {2, 3, 5, 6, 7, 8};

}  // namespace

TEST_CASE("RestrictedCoresPerGPU rules", "[select][restricted]") {
  struct Row {
    const char* rule;
    int kept;
    Request request;
    Verdict verdict;
    std::set<int> mustHave;     // cpus the grant includes
    std::set<int> mustNotHave;  // cpus the grant leaves out
  };
  Request whole = job(1);
  whole.exclusive = true;
  const Row rows[] = {
      {"a job without GPUs gets only the open cores", 2, job(2), Verdict::Placed, {4, 9}, {0, 1, 2, 3, 5, 6, 7, 8}},
      {"a job without GPUs asking more than the open cores is never placed", 2, job(3), Verdict::Never, {}, {}},
      {"a GPU job gets its GPU's kept cores first", 2, job(2, 1), Verdict::Placed, {0, 1}, kKeptByOthersThanGpu0},
      {"a GPU job takes open cores beyond its GPU's kept ones", 2, job(4, 1), Verdict::Placed, {0, 1, 4, 9},
       kKeptByOthersThanGpu0},
      {"a GPU job never takes another GPU's kept cores", 2, job(5, 1), Verdict::Never, {}, {}},
      {"shares of a GPU open that GPU's kept cores", 2, job(3, 0, 4), Verdict::Placed, {0, 1}, kKeptByOthersThanGpu0},
      {"a whole-node job gets every core", 2, whole, Verdict::Placed, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {}},
      {"with none kept every core is open", 0, job(10), Verdict::Placed, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {}},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    Cluster cluster;
    cluster.addNode(keepingNode(row.kept));
    Outcome placed = cluster.select(row.request, allNodes(cluster));
    Verdict verdict = placed.verdict == Verdict::Placed ? Verdict::Placed
                                                        : cluster.canEverRun(row.request, allNodes(cluster)).verdict;
    CHECK(verdict == row.verdict);
    std::set<int> cpus = cpusOf(placed);
    for (int cpu : row.mustHave) CHECK(cpus.count(cpu) == 1);
    for (int cpu : row.mustNotHave) CHECK(cpus.count(cpu) == 0);
  }
}

TEST_CASE("kept cores: each GPU keeps the first of its cores no earlier GPU keeps, every thread of them",
          "[select][restricted]") {
  NodeInfo node = keepingNode(2, /*threadsPerCore=*/2);
  // GPUs 0 and 1 both list every core of socket 0.
  auto kept = restrictedCoresByDevice(node);
  REQUIRE(kept.size() == 4);
  CHECK(kept[0] == std::vector<int>{0, 1});
  CHECK(kept[1] == std::vector<int>{2, 3});
  CHECK(kept[2] == std::vector<int>{5, 6});
  CHECK(kept[3] == std::vector<int>{7, 8});
  Cluster cluster;
  cluster.addNode(node);
  auto cpuOnly = cluster.select(job(4), allNodes(cluster));
  REQUIRE(cpuOnly.verdict == Verdict::Placed);
  CHECK(cpusOf(cpuOnly) == std::set<int>{8, 9, 18, 19});  // cores 4 and 9, both threads
  // More kept per GPU than it has cores of its own: it keeps what is left.
  node.restrictedCoresPerGpu = 4;
  kept = restrictedCoresByDevice(node);
  CHECK(kept[0] == std::vector<int>{0, 1, 2, 3});
  CHECK(kept[1] == std::vector<int>{4});
}
