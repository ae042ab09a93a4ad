// -w/--nodelist and -x/--exclude in selection (node_lists.h): one row per
// rule, for jobs (select, canEverRun) and for steps inside an allocation.
#include <catch2/catch.hpp>

#include <algorithm>

#include "controller/select/node_lists.h"
#include "select_builders.h"

using namespace gantry::select;
using namespace gantry::select::testing;

namespace {

// Five CPU nodes of 8 cores; the partition holds the first four.
constexpr int kNodes = 5;

Cluster fiveNodes() {
  Cluster cluster;
  for (int i = 0; i < kNodes; ++i) cluster.addNode(gpuNode("cn" + std::to_string(i), 0, "", {.sockets = 2, .coresPerSocket = 4}));
  return cluster;
}

PartitionView firstFour() {
  PartitionView view;
  view.nodes = {0, 1, 2, 3};
  return view;
}

std::vector<int> nodesOf(const Outcome& outcome) {
  std::vector<int> nodes;
  for (const auto& grant : outcome.allocation.nodes) nodes.push_back(grant.node);
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

// Takes every cpu of `node` with a job of its own.
void fill(Cluster& cluster, int node) {
  Request whole;
  whole.ntasks = 8;
  whole.nodeLists.required = {node};
  Outcome outcome = cluster.select(whole, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  cluster.commit(outcome.allocation);
}

}  // namespace

TEST_CASE("node lists steer a job's selection, one rule a row", "[select][nodelists]") {
  struct Case {
    const char* rule;
    NodeLists lists;
    int minNodes;
    int maxNodes;
    std::vector<int> busy;  // nodes whose cpus another job holds
    std::vector<int> down;
    Verdict now;
    std::vector<int> nodes;  // where it is placed now
    Verdict ever;
  };
  const std::vector<Case> cases = {
      {"no lists: the search's own best fit (first node)", {}, 1, 0, {}, {}, Verdict::Placed, {0}, Verdict::Placed},
      {"a required node is taken over the search's choice", {.required = {2}}, 1, 0, {}, {}, Verdict::Placed, {2},
       Verdict::Placed},
      {"every required node is in the allocation", {.required = {1, 3}}, 2, 0, {}, {}, Verdict::Placed, {1, 3},
       Verdict::Placed},
      {"a job needing more nodes than required adds others", {.required = {3}}, 2, 0, {}, {}, Verdict::Placed,
       {0, 3}, Verdict::Placed},
      {"a busy required node makes the job wait", {.required = {1}}, 1, 0, {1}, {}, Verdict::NotNow, {},
       Verdict::Placed},
      {"a down required node makes the job wait", {.required = {2}}, 1, 0, {}, {2}, Verdict::NotNow, {},
       Verdict::Placed},
      {"a required node outside the partition: never", {.required = {4}}, 1, 0, {}, {}, Verdict::NotNow, {},
       Verdict::Never},
      {"an excluded node is never chosen", {.excluded = {0}}, 1, 0, {}, {}, Verdict::Placed, {1}, Verdict::Placed},
      {"an excluded node is not taken even when nothing else is free", {.excluded = {3}}, 1, 0, {0, 1, 2}, {},
       Verdict::NotNow, {}, Verdict::Placed},
      {"exclusions that leave too few nodes: never", {.excluded = {0, 1, 2}}, 2, 0, {}, {}, Verdict::NotNow, {},
       Verdict::Never},
      {"candidates: the nodes come from them only", {.candidates = {2, 3}}, 1, 0, {}, {}, Verdict::Placed, {2},
       Verdict::Placed},
      {"a busy candidate leaves the others", {.candidates = {2, 3}}, 1, 0, {2}, {}, Verdict::Placed, {3},
       Verdict::Placed},
      {"an excluded candidate is skipped", {.candidates = {2, 3}, .excluded = {2}}, 1, 0, {}, {}, Verdict::Placed,
       {3}, Verdict::Placed},
  };
  for (const Case& c : cases) {
    SECTION(c.rule) {
      Cluster cluster = fiveNodes();
      for (int node : c.busy) fill(cluster, node);
      for (int node : c.down) cluster.setAvailable(node, false);
      Request request;
      request.minNodes = c.minNodes;
      request.maxNodes = c.maxNodes;
      request.ntasks = c.minNodes;
      request.nodeLists = c.lists;
      Outcome now = cluster.select(request, firstFour());
      CHECK(now.verdict == c.now);
      CHECK(nodesOf(now) == c.nodes);
      if (c.now == Verdict::NotNow) CHECK(now.reason == kReasonResources);
      Outcome ever = cluster.canEverRun(request, firstFour());
      CHECK(ever.verdict == c.ever);
      if (c.ever == Verdict::Never) CHECK(ever.reason == kReasonNeverAvailable);
    }
  }
}

TEST_CASE("node lists steer a step inside its job's allocation, one rule a row", "[select][nodelists]") {
  struct Case {
    const char* rule;
    NodeLists lists;
    int minNodes;
    Verdict verdict;
    std::vector<int> nodes;
  };
  // The job holds cn0, cn1 and cn2, one cpu each.
  const std::vector<Case> cases = {
      {"a step runs on its required node", {.required = {1}}, 1, Verdict::Placed, {1}},
      {"a step's required nodes all come in", {.required = {0, 2}}, 2, Verdict::Placed, {0, 2}},
      {"a required node outside the allocation: never", {.required = {3}}, 1, Verdict::Never, {}},
      {"a step never gets an excluded node", {.excluded = {0}}, 2, Verdict::Placed, {1, 2}},
      {"a step picks from its candidates", {.candidates = {1, 2}}, 1, Verdict::Placed, {1}},
      {"a candidate outside the allocation: never", {.candidates = {2, 4}}, 1, Verdict::Never, {}},
  };
  for (const Case& c : cases) {
    SECTION(c.rule) {
      Cluster cluster = fiveNodes();
      Request job;
      job.minNodes = 3;
      job.ntasks = 3;
      Outcome placed = cluster.select(job, firstFour());
      REQUIRE(nodesOf(placed) == std::vector<int>{0, 1, 2});
      cluster.commit(placed.allocation);
      Request step;
      step.minNodes = c.minNodes;
      step.ntasks = c.minNodes;
      step.nodeLists = c.lists;
      Outcome outcome = cluster.selectStep(job, placed.allocation, {}, step);
      CHECK(outcome.verdict == c.verdict);
      CHECK(nodesOf(outcome) == c.nodes);
      if (c.verdict == Verdict::Never) CHECK(outcome.reason.find(kReasonNeverAvailable) == 0);
    }
  }
}

TEST_CASE("a step waits while another step holds its required node", "[select][nodelists]") {
  Cluster cluster = fiveNodes();
  Request job;
  job.minNodes = 2;
  job.ntasks = 2;
  Outcome placed = cluster.select(job, firstFour());
  REQUIRE(nodesOf(placed) == std::vector<int>{0, 1});
  cluster.commit(placed.allocation);
  Request step;
  step.ntasks = 1;
  step.exclusive = true;
  step.nodeLists.required = {1};
  Outcome first = cluster.selectStep(job, placed.allocation, {}, step);
  REQUIRE(first.verdict == Verdict::Placed);
  Outcome second = cluster.selectStep(job, placed.allocation, {first.allocation}, step);
  CHECK(second.verdict == Verdict::NotNow);
}

TEST_CASE("offeredInSearch and holdsRequired read the sorted lists", "[select][nodelists]") {
  NodeLists lists{.required = {2}, .candidates = {}, .excluded = {4, 7}};
  CHECK_FALSE(offeredInSearch(lists, 2));
  CHECK_FALSE(offeredInSearch(lists, 7));
  CHECK(offeredInSearch(lists, 3));
  NodeLists picked{.required = {}, .candidates = {1, 5}, .excluded = {}};
  CHECK(offeredInSearch(picked, 5));
  CHECK_FALSE(offeredInSearch(picked, 3));
  Allocation allocation;
  allocation.nodes.push_back(NodeGrant{.node = 2});
  CHECK(holdsRequired(lists, allocation));
  CHECK_FALSE(holdsRequired(NodeLists{.required = {2, 3}}, allocation));
}
