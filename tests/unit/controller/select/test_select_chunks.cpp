// Device chunks: the spec's "Device Chunks" examples and each request rule.
#include <catch2/catch.hpp>

#include "controller/select/rules.h"
#include "select_builders.h"

using namespace gantry::select;
using namespace gantry::select::testing;

namespace {

NodeInfo fabricNode(const std::string& name) {
  NodeInfo node = gpuNode(name, 16);
  node.chunks.push_back({"", {2, 4, 8, 16}, {0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15}});
  return node;
}

NodeInfo chunkNode(const std::string& name, int gpus, std::vector<int> sizes) {
  NodeInfo node = gpuNode(name, gpus);
  node.chunks.push_back({"", std::move(sizes), {}});
  return node;
}

NodeInfo mixedNode() {
  NodeInfo node = gpuNode("node1", 22, "a100");
  for (int i = 16; i < 20; ++i) node.devices[i].type = "h100";
  for (int i = 20; i < 22; ++i) node.devices[i].type = "l4";
  node.chunks.push_back({"a100", {2, 4, 8, 16}, {}});
  node.chunks.push_back({"h100", {2, 4}, {}});
  return node;
}

Verdict everVerdict(const Cluster& cluster, const Request& request, const char* expectedRule = nullptr) {
  SelectTrace trace;
  auto outcome = cluster.canEverRun(request, allNodes(cluster), &trace);
  if (expectedRule) CHECK(traceHas(trace, 0, expectedRule));
  return outcome.verdict;
}

}  // namespace

TEST_CASE("the 4x4 fabric with ChunkOrder hands out 2x2 tiles", "[select][chunks]") {
  Cluster cluster;
  cluster.addNode(fabricNode("node1"));
  auto first = cluster.select(gres("", 4), allNodes(cluster));
  REQUIRE(first.verdict == Verdict::Placed);
  CHECK(devicesOf(first) == std::vector<int>{0, 1, 4, 5});
  cluster.commit(first.allocation);
  // The tile next to it shares the partly used chunk of 8.
  auto second = cluster.select(gres("", 4), allNodes(cluster));
  CHECK(devicesOf(second) == std::vector<int>{2, 3, 6, 7});
  cluster.commit(second.allocation);
  auto pair = cluster.select(gres("", 2), allNodes(cluster));
  CHECK(devicesOf(pair) == std::vector<int>{8, 9});
  CHECK(formatNodeGresChunks(cluster.node(0)) ==
        "gpu:sizes=2/4/8/16;order=0/1/4/5/2/3/6/7/8/9/12/13/10/11/14/15");
  CHECK(formatNodeGresChunks(gpuNode("plain", 4)).empty());
}

TEST_CASE("a single device cannot use a node without size 1", "[select][chunks]") {
  Cluster cluster;
  cluster.addNode(fabricNode("node1"));
  CHECK(everVerdict(cluster, gres("", 1), rules::kChunkCount) == Verdict::Never);
  CHECK(cluster.canEverRun(gres("", 1), allNodes(cluster)).reason == kReasonNeverAvailable);
  // Another node without chunks serves it.
  cluster.addNode(gpuNode("plain", 2));
  auto outcome = cluster.select(gres("", 1), allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  CHECK(outcome.allocation.nodes[0].node == 1);
}

TEST_CASE("ChunkSizes=1,2,4,8 refuses 3 devices and never rounds up", "[select][chunks]") {
  Cluster cluster;
  cluster.addNode(chunkNode("node0", 8, {1, 2, 4, 8}));
  CHECK(everVerdict(cluster, gres("", 3), rules::kChunkCount) == Verdict::Never);
  CHECK(devicesOf(cluster.select(gres("", 4), allNodes(cluster))) == std::vector<int>{0, 1, 2, 3});
  CHECK(devicesOf(cluster.select(gres("", 1), allNodes(cluster))) == std::vector<int>{0});
  CHECK(cluster.select(gres("", 8), allNodes(cluster)).verdict == Verdict::Placed);
}

TEST_CASE("the mixed a100/h100/l4 node follows each type's rules", "[select][chunks]") {
  Cluster cluster;
  cluster.addNode(mixedNode());
  CHECK(devicesOf(cluster.select(gres("a100", 4), allNodes(cluster))) == std::vector<int>{0, 1, 2, 3});
  CHECK(devicesOf(cluster.select(gres("h100", 2), allNodes(cluster))) == std::vector<int>{16, 17});
  CHECK(devicesOf(cluster.select(gres("l4", 1), allNodes(cluster))) == std::vector<int>{20});
  CHECK(everVerdict(cluster, gres("h100", 3), rules::kChunkCount) == Verdict::Never);
  CHECK(everVerdict(cluster, gres("", 2), rules::kChunkMixedTypes) == Verdict::Never);
  CHECK(formatNodeGresChunks(cluster.node(0)) ==
        "gpu:a100:sizes=2/4/8/16;order=0/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15,gpu:h100:sizes=2/4;order=0/1/2/3");
}

TEST_CASE("untyped requests follow the chunk rules on a node of one chunked type", "[select][chunks]") {
  NodeInfo node = gpuNode("node0", 8, "a100");
  node.chunks.push_back({"a100", {2, 4, 8}, {}});
  Cluster cluster;
  cluster.addNode(node);
  CHECK(devicesOf(cluster.select(gres("", 2), allNodes(cluster))) == std::vector<int>{0, 1});
  CHECK(everVerdict(cluster, gres("", 3), rules::kChunkCount) == Verdict::Never);
}

TEST_CASE("jobs that may span nodes must take whole domains", "[select][chunks]") {
  Cluster cluster;
  cluster.addNode(chunkNode("node0", 8, {2, 4, 8}));
  cluster.addNode(chunkNode("node1", 8, {2, 4, 8}));
  Request halfEach = gres("", 4);
  halfEach.minNodes = halfEach.maxNodes = 2;
  halfEach.ntasks = 2;
  CHECK(everVerdict(cluster, halfEach, rules::kChunkSpread) == Verdict::Never);
  Request wholeEach = gres("", 8);
  wholeEach.minNodes = wholeEach.maxNodes = 2;
  auto outcome = cluster.select(wholeEach, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  CHECK(outcome.allocation.nodes.size() == 2);

  Request severalTasks = gres("", 2);
  severalTasks.ntasks = 4;  // no -N: could spread
  CHECK(everVerdict(cluster, severalTasks, rules::kChunkSpread) == Verdict::Never);
  Request range = severalTasks;
  range.minNodes = 1;
  range.maxNodes = 4;
  CHECK(everVerdict(cluster, range, rules::kChunkSpread) == Verdict::Never);
  Request oneNode = severalTasks;
  oneNode.maxNodes = 1;  // -N1
  CHECK(cluster.select(oneNode, allNodes(cluster)).verdict == Verdict::Placed);
  Request perNodeCoversAll = severalTasks;
  perNodeCoversAll.ntasksPerNode = 4;
  CHECK(cluster.select(perNodeCoversAll, allNodes(cluster)).verdict == Verdict::Placed);
  PartitionView maxOne = allNodes(cluster);
  maxOne.maxNodes = 1;
  CHECK(cluster.select(severalTasks, maxOne).verdict == Verdict::Placed);
  CHECK(cluster.select(gres("", 2), allNodes(cluster)).verdict == Verdict::Placed);  // one task
}

TEST_CASE("--gpus alone cannot use a chunked node; a per-node count can", "[select][chunks]") {
  Cluster cluster;
  cluster.addNode(chunkNode("node0", 8, {2, 4, 8}));
  Request alone;
  alone.gpus = 4;
  alone.maxNodes = 1;
  CHECK(everVerdict(cluster, alone, rules::kChunkUnfixed) == Verdict::Never);
  Request fixed = alone;
  fixed.gpusPerNode = 4;
  CHECK(cluster.select(fixed, allNodes(cluster)).verdict == Verdict::Placed);
}

TEST_CASE("per-task requests need a fixed task count per node", "[select][chunks]") {
  Cluster cluster;
  cluster.addNode(chunkNode("node0", 4, {2, 4}));
  cluster.addNode(chunkNode("node1", 4, {2, 4}));
  Request loose;
  loose.ntasks = 4;
  loose.gpusPerTask = 2;
  CHECK(everVerdict(cluster, loose, rules::kChunkUnfixed) == Verdict::Never);
  Request perNode = loose;
  perNode.minNodes = perNode.maxNodes = 2;
  perNode.ntasksPerNode = 2;
  auto outcome = cluster.select(perNode, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  REQUIRE(outcome.allocation.nodes.size() == 2);
  CHECK(devicesOf(outcome, 0).size() == 4);
  CHECK(devicesOf(outcome, 1).size() == 4);
  Request single;
  single.maxNodes = 1;
  single.gpusPerTask = 2;
  CHECK(devicesOf(cluster.select(single, allNodes(cluster))) == std::vector<int>{0, 1});
}

TEST_CASE("--gpus-per-socket needs a whole-node allocation on chunked nodes", "[select][chunks]") {
  Cluster cluster;
  cluster.addNode(chunkNode("node0", 8, {2, 4, 8}));
  Request perSocket;
  perSocket.gpusPerSocket = 2;
  perSocket.socketsPerNode = 2;
  CHECK(everVerdict(cluster, perSocket, rules::kChunkPerSocket) == Verdict::Never);
  perSocket.exclusive = true;
  auto outcome = cluster.select(perSocket, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  CHECK(devicesOf(outcome).size() == 8);
}

TEST_CASE("whole-node allocations are exempt, except from Flags=explicit", "[select][chunks]") {
  NodeInfo node = chunkNode("node0", 16, {2, 4});
  DeviceInfo nic;
  nic.name = "nic";
  nic.files = {"/dev/nic0"};
  nic.explicitOnly = true;
  node.devices.push_back(nic);
  Cluster cluster;
  cluster.addNode(node);
  Request three = gres("", 3);
  CHECK(everVerdict(cluster, three, rules::kChunkCount) == Verdict::Never);
  three.exclusive = true;
  auto outcome = cluster.select(three, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  CHECK(devicesOf(outcome).size() == 16);  // every gpu, not the explicit nic
  PartitionView exclusivePartition = allNodes(cluster);
  exclusivePartition.exclusive = true;
  CHECK(cluster.select(gres("", 3), exclusivePartition).verdict == Verdict::Placed);
  Request namedNic = gres("", 3);
  namedNic.exclusive = true;
  namedNic.gresPerNode.push_back({"nic", "", 1});
  CHECK(devicesOf(cluster.select(namedNic, allNodes(cluster))).size() == 17);
}

TEST_CASE("core-spec makes a whole-node allocation only with AllowSpecResourcesUsage", "[select][chunks]") {
  Request specced = gres("", 3);
  specced.coreSpec = 2;
  Cluster shared;
  shared.addNode(chunkNode("node0", 8, {2, 4, 8}));
  CHECK(shared.canEverRun(specced, allNodes(shared)).verdict == Verdict::Never);
  Cluster allowing(ClusterOptions{.allowSpecResourcesUsage = true});
  allowing.addNode(chunkNode("node0", 8, {2, 4, 8}));
  auto outcome = allowing.select(specced, allNodes(allowing));
  REQUIRE(outcome.verdict == Verdict::Placed);
  CHECK(outcome.allocation.nodes[0].cpus.size() == 14);  // 16 cpus less 2 specialized cores
  Request threads = gres("", 3);
  threads.threadSpec = 3;
  auto threadOutcome = allowing.select(threads, allNodes(allowing));
  REQUIRE(threadOutcome.verdict == Verdict::Placed);
  CHECK(threadOutcome.allocation.nodes[0].cpus.size() == 13);
  CHECK(shared.canEverRun(threads, allNodes(shared)).verdict == Verdict::Never);
}

TEST_CASE("enforce-binding takes a chunk on the sockets with free cpus", "[select][chunks][binding]") {
  Cluster cluster;
  cluster.addNode(chunkNode("node0", 8, {2, 4, 8}));  // 0-3 socket 0, 4-7 socket 1
  NodeGrant socket0;
  socket0.node = 0;
  for (int c = 0; c < 8; ++c) socket0.cpus.push_back(c);
  cluster.commit(Allocation{{socket0}});
  Request bound = gres("", 2);
  bound.enforceBinding = true;
  CHECK(devicesOf(cluster.select(bound, allNodes(cluster))) == std::vector<int>{4, 5});
  CHECK(devicesOf(cluster.select(gres("", 2), allNodes(cluster))) == std::vector<int>{0, 1});
}

TEST_CASE("chunked devices ignore links, even under enforce-links", "[select][chunks][links]") {
  NodeInfo node = chunkNode("node0", 4, {2, 4});
  setLinks(node, {{-1, 0, 0, 0}, {0, -1, 0, 0}, {0, 0, -1, 0}, {0, 0, 0, -1}});
  Cluster cluster;
  cluster.addNode(node);
  Request request = gres("", 2);
  request.links = LinkPolicy::Enforce;
  CHECK(devicesOf(cluster.select(request, allNodes(cluster))) == std::vector<int>{0, 1});
}

TEST_CASE("a node range could spread, so it cannot take part of a domain", "[select][chunks]") {
  Cluster cluster;
  cluster.addNode(chunkNode("node0", 4, {2, 4}));
  cluster.addNode(chunkNode("node1", 4, {2, 4}));
  Request range = gres("", 2);
  range.minNodes = 1;
  range.maxNodes = 2;  // --nodes=1-2, one task
  CHECK(everVerdict(cluster, range, rules::kChunkSpread) == Verdict::Never);
  Request wholeDomain = range;
  wholeDomain.gresPerNode[0].count = 4;
  CHECK(devicesOf(cluster.select(wholeDomain, allNodes(cluster))) == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("-N1 jobs with several tasks may take part of a domain", "[select][chunks]") {
  Cluster cluster;
  cluster.addNode(chunkNode("node0", 8, {2, 4, 8}));
  Request perNode = gres("", 4);
  perNode.maxNodes = 1;
  perNode.ntasks = 5;
  CHECK(devicesOf(cluster.select(perNode, allNodes(cluster))) == std::vector<int>{0, 1, 2, 3});
  Request perTask;
  perTask.maxNodes = 1;
  perTask.ntasks = 2;
  perTask.gpusPerTask = 1;
  CHECK(devicesOf(cluster.select(perTask, allNodes(cluster))) == std::vector<int>{0, 1});
  Request totalAndPerTask;
  totalAndPerTask.maxNodes = 1;
  totalAndPerTask.ntasks = 4;
  totalAndPerTask.gpus = 4;
  totalAndPerTask.gpusPerTask = 1;
  CHECK(devicesOf(cluster.select(totalAndPerTask, allNodes(cluster))).size() == 4);
}

TEST_CASE("a single task fixes its per-task device count", "[select][chunks]") {
  Cluster cluster;
  cluster.addNode(chunkNode("node0", 8, {2, 4, 8}));
  Request one;
  one.gpusPerTask = 4;  // -n1, no -N
  CHECK(devicesOf(cluster.select(one, allNodes(cluster))) == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("Flags=explicit GPUs: a whole-node job gets only the count it asks for", "[select][chunks]") {
  NodeInfo node = chunkNode("node0", 8, {2, 4, 8});
  for (auto& device : node.devices) device.explicitOnly = true;
  Cluster cluster;
  cluster.addNode(node);
  Request five = gres("", 5);  // not a chunk size: the whole-node exemption holds
  five.exclusive = true;
  auto outcome = cluster.select(five, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  CHECK(devicesOf(outcome).size() == 5);
  CHECK(outcome.allocation.nodes[0].wholeNode);
  CHECK(outcome.allocation.nodes[0].cpus.size() == 16);
  Request perNode = gpusPerNode(2);
  perNode.exclusive = true;
  CHECK(devicesOf(cluster.select(perNode, allNodes(cluster))).size() == 2);
  Request none;
  none.exclusive = true;
  CHECK(devicesOf(cluster.select(none, allNodes(cluster))).empty());
  cluster.commit(outcome.allocation);
  // The node is still held whole: the three GPUs left go to nobody else.
  SelectTrace trace;
  CHECK(cluster.select(gres("", 2), allNodes(cluster), &trace).verdict != Verdict::Placed);
  CHECK(traceHas(trace, 0, rules::kHeldWhole));
}

TEST_CASE("--core-spec without AllowSpecResourcesUsage leaves the node shared", "[select][chunks]") {
  Cluster cluster;
  cluster.addNode(chunkNode("node0", 8, {2, 4, 8}));
  Request specced = gres("", 2);
  specced.coreSpec = 3;
  auto first = cluster.select(specced, allNodes(cluster));
  REQUIRE(first.verdict == Verdict::Placed);
  CHECK(devicesOf(first) == std::vector<int>{0, 1});
  CHECK_FALSE(first.allocation.nodes[0].wholeNode);
  cluster.commit(first.allocation);
  Request threads = gres("", 4);
  threads.threadSpec = 1;
  CHECK(devicesOf(cluster.select(threads, allNodes(cluster))) == std::vector<int>{4, 5, 6, 7});
}
