// Device links: every example of the spec's "Device Links" section, plus
// the exact best-linked search going beyond the greedy floor.
#include <catch2/catch.hpp>

#include "controller/select/rules.h"
#include "select_builders.h"

using namespace gantry::select;
using namespace gantry::select::testing;

namespace {
Request withLinks(Request r, LinkPolicy policy) {
  r.links = policy;
  return r;
}
// Takes the given devices of node 0 with a one-cpu job.
void occupy(Cluster& cluster, std::vector<int> devices) {
  NodeGrant grant;
  grant.node = 0;
  grant.devices = std::move(devices);
  cluster.commit(Allocation{{grant}});
}
}  // namespace

TEST_CASE("enforce-links --gpus-per-node=2 gets a pair or waits for one", "[select][links]") {
  Cluster cluster;
  cluster.addNode(twoPairNode("node0"));
  auto partition = allNodes(cluster);
  auto request = withLinks(gpusPerNode(2), LinkPolicy::Enforce);
  auto first = cluster.select(request, partition);
  REQUIRE(first.verdict == Verdict::Placed);
  CHECK(devicesOf(first) == std::vector<int>{0, 1});
  cluster.commit(first.allocation);
  auto second = cluster.select(request, partition);
  REQUIRE(second.verdict == Verdict::Placed);
  CHECK(devicesOf(second) == std::vector<int>{2, 3});
  cluster.commit(second.allocation);
  auto third = cluster.select(request, partition);
  CHECK(third.verdict == Verdict::NotNow);
  CHECK(third.reason == "Resources");
  CHECK(cluster.canEverRun(request, partition).verdict == Verdict::Placed);
}

TEST_CASE("enforce-links --gpus-per-node=4 is refused: no four are linked", "[select][links]") {
  Cluster cluster;
  cluster.addNode(twoPairNode("node0"));
  SelectTrace trace;
  auto outcome = cluster.canEverRun(withLinks(gpusPerNode(4), LinkPolicy::Enforce), allNodes(cluster), &trace);
  CHECK(outcome.verdict == Verdict::Never);
  CHECK(outcome.reason == kReasonNeverAvailable);
  CHECK(traceHas(trace, 0, rules::kLinks));
  // Without the flag four GPUs are fine.
  CHECK(cluster.select(gpusPerNode(4), allNodes(cluster)).verdict == Verdict::Placed);
}

TEST_CASE("enforce-links --gpus=4 spreads over two nodes, a pair on each", "[select][links]") {
  Cluster cluster;
  cluster.addNode(twoPairNode("node0"));
  cluster.addNode(twoPairNode("node1"));
  Request request;
  request.gpus = 4;
  request.links = LinkPolicy::Enforce;
  auto outcome = cluster.select(request, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  REQUIRE(outcome.allocation.nodes.size() == 2);
  CHECK(devicesOf(outcome, 0) == std::vector<int>{0, 1});
  CHECK(devicesOf(outcome, 1) == std::vector<int>{0, 1});
  // Without enforcement one node serves all four.
  request.links = LinkPolicy::Prefer;
  CHECK(cluster.select(request, allNodes(cluster)).allocation.nodes.size() == 1);
}

TEST_CASE("GPUs 0 and 3 busy: ignore-links and default run on 1+2, enforce waits", "[select][links]") {
  Cluster cluster;
  cluster.addNode(twoPairNode("node0"));
  occupy(cluster, {0});
  occupy(cluster, {3});
  auto partition = allNodes(cluster);
  auto ignore = cluster.select(withLinks(gpusPerNode(2), LinkPolicy::Ignore), partition);
  REQUIRE(ignore.verdict == Verdict::Placed);
  CHECK(devicesOf(ignore) == std::vector<int>{1, 2});
  auto prefer = cluster.select(gpusPerNode(2), partition);
  REQUIRE(prefer.verdict == Verdict::Placed);
  CHECK(devicesOf(prefer) == std::vector<int>{1, 2});
  SelectTrace trace;
  auto enforce = cluster.select(withLinks(gpusPerNode(2), LinkPolicy::Enforce), partition, &trace);
  CHECK(enforce.verdict == Verdict::NotNow);
  CHECK(traceHas(trace, 0, rules::kLinks));
  CHECK(cluster.canEverRun(withLinks(gpusPerNode(2), LinkPolicy::Enforce), partition).verdict == Verdict::Placed);
}

TEST_CASE("default policy finds the idle linked pair a greedy pick misses", "[select][links]") {
  Cluster cluster;
  cluster.addNode(twoPairNode("node0"));
  occupy(cluster, {0});
  auto outcome = cluster.select(gpusPerNode(2), allNodes(cluster));
  CHECK(devicesOf(outcome) == std::vector<int>{2, 3});
  auto ignore = cluster.select(withLinks(gpusPerNode(2), LinkPolicy::Ignore), allNodes(cluster));
  CHECK(devicesOf(ignore) == std::vector<int>{1, 2});
}

TEST_CASE("exclusive enforce-links needs every device linked", "[select][links]") {
  Cluster cluster;
  cluster.addNode(twoPairNode("node0"));
  auto request = withLinks(gpusPerNode(2), LinkPolicy::Enforce);
  request.exclusive = true;
  SelectTrace trace;
  CHECK(cluster.canEverRun(request, allNodes(cluster), &trace).verdict == Verdict::Never);
  CHECK(traceHas(trace, 0, rules::kLinksWholeNode));
  NodeInfo linked = gpuNode("node1", 4);
  linkAll(linked);
  cluster.addNode(linked);
  auto outcome = cluster.select(request, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  CHECK(outcome.allocation.nodes[0].node == 1);
  CHECK(devicesOf(outcome) == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("no link information: enforce-links serves one device, not two", "[select][links]") {
  Cluster cluster;
  cluster.addNode(gpuNode("node0", 4));
  CHECK(cluster.canEverRun(withLinks(gpusPerNode(2), LinkPolicy::Enforce), allNodes(cluster)).verdict ==
        Verdict::Never);
  CHECK(cluster.select(withLinks(gpusPerNode(1), LinkPolicy::Enforce), allNodes(cluster)).verdict ==
        Verdict::Placed);
}

TEST_CASE("typed enforce-links is held against that type only", "[select][links]") {
  NodeInfo node = gpuNode("node0", 4, "a100");
  node.devices[2].type = node.devices[3].type = "l4";
  setLinks(node, {{-1, 1, 0, 0}, {1, -1, 0, 0}, {0, 0, -1, 0}, {0, 0, 0, -1}});
  Cluster cluster;
  cluster.addNode(node);
  auto typed = gres("a100", 2);
  typed.links = LinkPolicy::Enforce;
  CHECK(devicesOf(cluster.select(typed, allNodes(cluster))) == std::vector<int>{0, 1});
  auto l4 = gres("l4", 2);
  l4.links = LinkPolicy::Enforce;
  CHECK(cluster.canEverRun(l4, allNodes(cluster)).verdict == Verdict::Never);
  // Untyped: against every GPU, so a linked pair exists.
  auto untyped = gres("", 2);
  untyped.links = LinkPolicy::Enforce;
  CHECK(devicesOf(cluster.select(untyped, allNodes(cluster))) == std::vector<int>{0, 1});
}

TEST_CASE("links beat sockets: a per-socket count gives way to a linked set", "[select][links][sockets]") {
  Cluster cluster;
  cluster.addNode(twoPairNode("node0"));  // pair 0-1 on socket 0, 2-3 on socket 1
  Request request;
  request.gpusPerSocket = 1;
  request.socketsPerNode = 2;
  auto spread = cluster.select(request, allNodes(cluster));
  CHECK(devicesOf(spread) == std::vector<int>{0, 2});
  request.links = LinkPolicy::Enforce;
  auto linked = cluster.select(request, allNodes(cluster));
  CHECK(devicesOf(linked) == std::vector<int>{0, 1});
}

TEST_CASE("enforce-binding with enforce-links skips linked devices off the job's sockets",
          "[select][links][binding]") {
  Cluster cluster;
  cluster.addNode(twoPairNode("node0"));
  // Fill socket 0's cpus.
  NodeGrant cpusOnSocket0;
  cpusOnSocket0.node = 0;
  for (int c = 0; c < 8; ++c) cpusOnSocket0.cpus.push_back(c);
  cluster.commit(Allocation{{cpusOnSocket0}});
  auto request = withLinks(gpusPerNode(2), LinkPolicy::Enforce);
  request.enforceBinding = true;
  auto outcome = cluster.select(request, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  CHECK(devicesOf(outcome) == std::vector<int>{2, 3});
  CHECK(outcome.allocation.nodes[0].cpus.front() >= 8);
  // Take the socket-1 pair: the socket-0 pair is free but has no cpus.
  cluster.commit(outcome.allocation);
  CHECK(cluster.select(request, allNodes(cluster)).verdict == Verdict::NotNow);
}

TEST_CASE("the exact search picks the best-linked set among eight GPUs", "[select][links]") {
  // NVLink-style: 0-3 fully linked with capacity 2, 4-7 with capacity 4, cross links 1.
  NodeInfo node = gpuNode("node0", 8);
  std::vector<std::vector<int>> matrix(8, std::vector<int>(8, 1));
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      if (a / 4 == b / 4) matrix[a][b] = a < 4 ? 2 : 4;
  setLinks(node, matrix);
  Cluster cluster;
  cluster.addNode(node);
  CHECK(devicesOf(cluster.select(gpusPerNode(4), allNodes(cluster))) == std::vector<int>{4, 5, 6, 7});
  CHECK(devicesOf(cluster.select(gpusPerNode(2), allNodes(cluster))) == std::vector<int>{4, 5});
}

TEST_CASE("default policy moves to a node with a free linked pair", "[select][links]") {
  Cluster cluster;
  cluster.addNode(twoPairNode("node0"));
  cluster.addNode(twoPairNode("node1"));
  occupy(cluster, {0});
  occupy(cluster, {3});  // node0: 1 and 2 free, unlinked (the tighter fit)
  auto prefer = cluster.select(gpusPerNode(2), allNodes(cluster));
  REQUIRE(prefer.verdict == Verdict::Placed);
  CHECK(prefer.allocation.nodes[0].node == 1);
  CHECK(devicesOf(prefer) == std::vector<int>{0, 1});
  auto ignore = cluster.select(withLinks(gpusPerNode(2), LinkPolicy::Ignore), allNodes(cluster));
  CHECK(ignore.allocation.nodes[0].node == 0);
}
