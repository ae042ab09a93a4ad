// Over-subscribed cpus (OverSubscribe=FORCE:N, PartitionView::overSubscribe)
// and select/linear (ClusterOptions::wholeNodeCpus). One row per rule; each
// row builds its own small cluster and plays a few jobs against it.
#include <catch2/catch.hpp>

#include "tests/unit/controller/select/rule_rows.h"

#include <functional>

#include "select_builders.h"

using namespace gantry::select;
using namespace gantry::select::testing;

namespace {

// Not the spec's 2 x 4 cores: one socket of six cores, and two sockets of
// three cores with two threads each.
constexpr NodeShape kSixCores{.sockets = 1, .coresPerSocket = 6, .threadsPerCore = 1, .memoryMb = 12000};
constexpr NodeShape kTwoByThreeSmt{.sockets = 2, .coresPerSocket = 3, .threadsPerCore = 2, .memoryMb = 24000};

constexpr uint32_t kAda = 3101;
constexpr uint32_t kBo = 3102;

NodeInfo cpuNode(const std::string& name, NodeShape shape) { return gpuNode(name, 0, "", shape); }

Request tasks(int n, uint32_t uid = kAda) {
  Request r;
  r.ntasks = n;
  r.uid = uid;
  return r;
}

PartitionView forced(const Cluster& cluster, int count) {
  PartitionView view = allNodes(cluster);
  view.overSubscribe = count;
  view.forcesSharing = count > 1;
  return view;
}

// Selects and commits; the job must be placed.
Allocation start(Cluster& cluster, const Request& request, const PartitionView& partition) {
  Outcome outcome = cluster.select(request, partition);
  REQUIRE(outcome.verdict == Verdict::Placed);
  cluster.commit(outcome.allocation);
  return outcome.allocation;
}

Verdict verdictOf(const Cluster& cluster, const Request& request, const PartitionView& partition) {
  return cluster.select(request, partition).verdict;
}

const std::vector<int>& cpusOf(const Allocation& allocation, size_t grant = 0) {
  return allocation.nodes.at(grant).cpus;
}

bool overlap(const std::vector<int>& a, const std::vector<int>& b) {
  return std::any_of(a.begin(), a.end(), [&](int c) { return std::find(b.begin(), b.end(), c) != b.end(); });
}

using select_test::Row;
using select_test::runRows;

}  // namespace

TEST_CASE("OverSubscribe=FORCE:N over-subscribes cpus, nothing else", "[select][oversubscribe]") {
  runRows({
      {"up to N allocations hold one cpu, the next one waits",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         PartitionView three = forced(cluster, 3);
         Allocation first = start(cluster, tasks(6), three);
         CHECK(cpusOf(start(cluster, tasks(6), three)) == cpusOf(first));
         CHECK(cpusOf(start(cluster, tasks(6), three)) == cpusOf(first));
         Outcome fourth = cluster.select(tasks(1), three);
         CHECK(fourth.verdict == Verdict::NotNow);
         CHECK(fourth.reason == kReasonResources);
       }},
      {"without over-subscription a held cpu takes no other job",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         start(cluster, tasks(6), forced(cluster, 1));
         CHECK(verdictOf(cluster, tasks(1), forced(cluster, 1)) == Verdict::NotNow);
         CHECK(verdictOf(cluster, tasks(1), allNodes(cluster)) == Verdict::NotNow);
       }},
      {"idle resources first: a free placement wins over a shared one",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("half", kTwoByThreeSmt));
         cluster.addNode(cpuNode("idle", kTwoByThreeSmt));
         PartitionView three = forced(cluster, 3);
         Request halfNode = tasks(6);
         halfNode.maxNodes = 1;
         Allocation held = start(cluster, halfNode, three);
         REQUIRE(held.nodes[0].node == 0);
         // Eight cpus: not free on the half-held node, so the idle one, though
         // the half-held node could give them by sharing.
         Request eight = tasks(8);
         eight.maxNodes = 1;
         Allocation big = start(cluster, eight, three);
         CHECK(big.nodes[0].node == 1);
         // Four cpus fit the half-held node's free ones: none of them shared.
         Request four = tasks(4);
         four.maxNodes = 1;
         Allocation small = start(cluster, four, three);
         CHECK_FALSE((small.nodes[0].node == 0 && overlap(cpusOf(small), cpusOf(held))));
         CHECK_FALSE((small.nodes[0].node == 1 && overlap(cpusOf(small), cpusOf(big))));
       }},
      {"a one-node job passes over a node that cannot take all its tasks",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("part", kSixCores));
         cluster.addNode(cpuNode("free", kSixCores));
         start(cluster, tasks(2), allNodes(cluster));
         Request five = tasks(5);
         five.maxNodes = 1;
         Outcome outcome = cluster.select(five, allNodes(cluster));
         REQUIRE(outcome.verdict == Verdict::Placed);
         CHECK(outcome.allocation.nodes[0].node == 1);
         CHECK(outcome.allocation.nodes[0].tasks == 5);
       }},
      {"sharers grow evenly: every cpu gets a second holder before any a third",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         PartitionView three = forced(cluster, 3);
         Allocation low = start(cluster, tasks(3), three);
         Allocation high = start(cluster, tasks(3), three);
         REQUIRE_FALSE(overlap(cpusOf(low), cpusOf(high)));
         CHECK(cpusOf(start(cluster, tasks(3), three)) == cpusOf(low));
         // The low cpus have two holders now; the high ones come first.
         CHECK(cpusOf(start(cluster, tasks(3), three)) == cpusOf(high));
         CHECK(cpusOf(start(cluster, tasks(3), three)) == cpusOf(low));
       }},
      {"a job needing more cpus than one level offers goes to the next level",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         PartitionView four = forced(cluster, 4);
         start(cluster, tasks(2), four);   // cpus 0-1
         start(cluster, tasks(4), four);   // cpus 2-5
         start(cluster, tasks(2), four);   // shares 0-1
         // Five cpus held by fewer than two: only 2-5. Fewer than three: all.
         CHECK(cpusOf(start(cluster, tasks(5), four)).size() == 5);
       }},
      {"memory is never over-subscribed",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));  // 12000 MB
         PartitionView four = forced(cluster, 4);
         Request big = tasks(6);
         big.memPerNodeMb = 7000;
         start(cluster, big, four);
         Request tooMuch = tasks(6);
         tooMuch.memPerNodeMb = 5500;
         Outcome outcome = cluster.select(tooMuch, four);
         CHECK(outcome.verdict == Verdict::NotNow);
         CHECK(outcome.reason == kReasonResources);
         Request fits = tasks(6);
         fits.memPerNodeMb = 5000;
         CHECK(start(cluster, fits, four).nodes[0].memoryMb == 5000);
       }},
      {"GPUs are never shared: each sharer gets a GPU nobody holds",
       [] {
         Cluster cluster;
         cluster.addNode(gpuNode("g0", 3, "", kSixCores));
         PartitionView four = forced(cluster, 4);
         Request gpuJob = gres("", 1);
         gpuJob.ntasks = 6;
         std::vector<int> gpusSeen;
         for (int i = 0; i < 3; ++i) {
           Allocation job = start(cluster, gpuJob, four);
           REQUIRE(job.nodes[0].devices.size() == 1);
           gpusSeen.push_back(job.nodes[0].devices[0]);
         }
         std::sort(gpusSeen.begin(), gpusSeen.end());
         CHECK(gpusSeen == std::vector<int>{0, 1, 2});
         // A fourth could share the cpus but no GPU is left.
         Outcome noGpu = cluster.select(gpuJob, four);
         CHECK(noGpu.verdict == Verdict::NotNow);
         CHECK(noGpu.reason == kReasonResources);
         CHECK(verdictOf(cluster, tasks(6), four) == Verdict::Placed);
       }},
      {"GPU shares are never over-subscribed",
       [] {
         Cluster cluster;
         NodeInfo node = gpuNode("s0", 1, "", kSixCores);
         node.devices[0].shared.push_back({"shard", 5});
         cluster.addNode(node);
         PartitionView three = forced(cluster, 3);
         Request shards = tasks(6);
         shards.gresPerNode.push_back({"shard", "", 3});
         start(cluster, shards, three);
         CHECK(verdictOf(cluster, shards, three) == Verdict::NotNow);
         shards.gresPerNode[0].count = 2;
         CHECK(verdictOf(cluster, shards, three) == Verdict::Placed);
       }},
      {"count-only GRES are never over-subscribed",
       [] {
         Cluster cluster;
         NodeInfo node = cpuNode("b0", kSixCores);
         node.countGres.push_back({"bandwidth", 900});
         cluster.addNode(node);
         PartitionView three = forced(cluster, 3);
         Request bandwidth = tasks(6);
         bandwidth.gresPerNode.push_back({"bandwidth", "", 500});
         start(cluster, bandwidth, three);
         CHECK(verdictOf(cluster, bandwidth, three) == Verdict::NotNow);
         bandwidth.gresPerNode[0].count = 400;
         CHECK(verdictOf(cluster, bandwidth, three) == Verdict::Placed);
       }},
      {"release returns a cpu to the level it came from",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         PartitionView three = forced(cluster, 3);
         Allocation first = start(cluster, tasks(6), three);
         Allocation second = start(cluster, tasks(6), three);
         cluster.release(first);
         // Still held once (by the second): not free to a partition that does not share.
         CHECK(verdictOf(cluster, tasks(1), allNodes(cluster)) == Verdict::NotNow);
         start(cluster, tasks(6), three);
         start(cluster, tasks(6), three);
         CHECK(verdictOf(cluster, tasks(1), three) == Verdict::NotNow);
         cluster.release(second);
         CHECK(verdictOf(cluster, tasks(6), three) == Verdict::Placed);
       }},
      {"a cpu is free again once its last holder ends",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         PartitionView two = forced(cluster, 2);
         Allocation first = start(cluster, tasks(6), two);
         Allocation second = start(cluster, tasks(6), two);
         cluster.release(second);
         cluster.release(first);
         CHECK(verdictOf(cluster, tasks(6), allNodes(cluster)) == Verdict::Placed);
       }},
      {"--exclusive in a FORCE partition is placed like the others",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         PartitionView two = forced(cluster, 2);
         Allocation first = start(cluster, tasks(6), two);
         Request exclusive = tasks(6);
         exclusive.exclusive = true;
         Allocation second = start(cluster, exclusive, two);
         CHECK_FALSE(second.nodes[0].wholeNode);
         CHECK(cpusOf(second) == cpusOf(first));
       }},
      {"an OverSubscribe=EXCLUSIVE partition is unchanged",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         PartitionView exclusive = allNodes(cluster);
         exclusive.exclusive = true;
         CHECK(start(cluster, tasks(1), exclusive).nodes[0].wholeNode);
         CHECK(verdictOf(cluster, tasks(1), exclusive) == Verdict::NotNow);
       }},
      {"a node held whole takes no sharer",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         Request whole = tasks(1);
         whole.exclusive = true;
         start(cluster, whole, allNodes(cluster));
         CHECK(verdictOf(cluster, tasks(1), forced(cluster, 4)) == Verdict::NotNow);
       }},
      {"a whole-node request needs a node nobody holds anything on, at every level",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         start(cluster, tasks(1), forced(cluster, 3));
         PartitionView wholeAndShared = forced(cluster, 3);
         wholeAndShared.forcesSharing = false;
         wholeAndShared.exclusive = true;
         CHECK(verdictOf(cluster, tasks(1), wholeAndShared) == Verdict::NotNow);
       }},
      {"--exclusive=user still applies when cpus are shared",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         PartitionView three = forced(cluster, 3);
         Request mine = tasks(6, kAda);
         mine.exclusiveUser = true;
         start(cluster, mine, three);
         CHECK(verdictOf(cluster, tasks(6, kBo), three) == Verdict::NotNow);
         CHECK(verdictOf(cluster, tasks(6, kAda), three) == Verdict::Placed);
       }},
      {"CR_CPU over-subscribes single cpus",
       [] {
         Cluster cluster(ClusterOptions{.allocateByCpu = true});
         cluster.addNode(cpuNode("t0", NodeShape{.sockets = 1, .coresPerSocket = 3, .threadsPerCore = 2}));
         PartitionView two = forced(cluster, 2);
         Allocation five = start(cluster, tasks(5), two);
         CHECK(cpusOf(five) == std::vector<int>{0, 1, 2, 3, 4});
         // One cpu free: three go to cpus held once, counted singly.
         Allocation three = start(cluster, tasks(3), two);
         CHECK(cpusOf(three).size() == 3);
         // Cpu 5 and the two cpus the second job did not touch remain.
         Allocation rest = start(cluster, tasks(3), two);
         CHECK(cpusOf(rest) == std::vector<int>{3, 4, 5});
         // Cpu 5 has one holder still; then every cpu has two.
         CHECK(cpusOf(start(cluster, tasks(1), two)) == std::vector<int>{5});
         CHECK(verdictOf(cluster, tasks(1), two) == Verdict::NotNow);
       }},
      {"the strict pass alone decides when a free placement spans nodes",
       [] {
         Cluster cluster;
         for (int i = 0; i < 3; ++i) cluster.addNode(cpuNode("m" + std::to_string(i), kTwoByThreeSmt));
         PartitionView two = forced(cluster, 2);
         Request firstNode = tasks(12);
         firstNode.maxNodes = 1;
         start(cluster, firstNode, two);
         Request spread = tasks(24);
         Allocation wide = start(cluster, spread, two);
         REQUIRE(wide.nodes.size() == 2);
         for (const auto& grant : wide.nodes) CHECK(grant.node != 0);
       }},
      {"canEverRun ignores what is held",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         PartitionView two = forced(cluster, 2);
         start(cluster, tasks(6), two);
         start(cluster, tasks(6), two);
         CHECK(cluster.canEverRun(tasks(6), two).verdict == Verdict::Placed);
         CHECK(cluster.canEverRun(tasks(7), two).verdict == Verdict::Never);
       }},
      {"--test-only finds the moment a shared level opens",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         PartitionView two = forced(cluster, 2);
         Allocation a = start(cluster, tasks(6), two);
         Allocation b = start(cluster, tasks(6), two);
         std::vector<RunningJob> running{{b, 900}, {a, 400}};
         StartEstimate estimate = cluster.estimateStart(tasks(6), two, running, 50);
         CHECK(estimate.outcome.verdict == Verdict::Placed);
         CHECK(estimate.startTime == 400);
         CHECK(verdictOf(cluster, tasks(1), two) == Verdict::NotNow);  // left as found
       }},
      {"a step inside a sharing job divides the job's own cpus",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         PartitionView two = forced(cluster, 2);
         start(cluster, tasks(6), two);
         Allocation job = start(cluster, tasks(6), two);
         Outcome step = cluster.selectStep(tasks(6), job, {}, tasks(4));
         REQUIRE(step.verdict == Verdict::Placed);
         CHECK(cpusOf(step.allocation).size() == 4);
       }},
      {"a job that may not share takes only idle cpus, and nobody shares its cpus",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         PartitionView two = forced(cluster, 2);
         Request alone = tasks(4);
         alone.mayShare = false;
         Allocation first = start(cluster, alone, two);
         CHECK(first.owner.shareGroup == kUnshared);
         CHECK(verdictOf(cluster, tasks(3), two) == Verdict::NotNow);  // two idle, four unshareable
         Allocation sharer = start(cluster, tasks(2), two);
         CHECK_FALSE(overlap(cpusOf(sharer), cpusOf(first)));
         CHECK(verdictOf(cluster, alone, two) == Verdict::NotNow);
         Request lone = tasks(1);
         lone.mayShare = false;
         CHECK(verdictOf(cluster, lone, two) == Verdict::NotNow);  // the sharer's cpus are not idle
         CHECK(cpusOf(start(cluster, tasks(2), two)) == cpusOf(sharer));
       }},
      {"cpus are shared only between jobs of one partition (share group)",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kSixCores));
         PartitionView red = forced(cluster, 2);
         red.shareGroup = 7;
         PartitionView blue = forced(cluster, 2);
         blue.shareGroup = 8;
         Allocation first = start(cluster, tasks(4), red);
         CHECK(first.owner.shareGroup == 7);
         // Two cpus are idle; the other four are red's to share.
         CHECK(verdictOf(cluster, tasks(3), blue) == Verdict::NotNow);
         Allocation blueJob = start(cluster, tasks(2), blue);
         CHECK_FALSE(overlap(cpusOf(blueJob), cpusOf(first)));
         CHECK(overlap(cpusOf(start(cluster, tasks(4), red)), cpusOf(first)));
         // Blue's two cpus are blue's: red cannot take them as a third sharer of its own.
         CHECK(verdictOf(cluster, tasks(1), red) == Verdict::NotNow);
         CHECK(cpusOf(start(cluster, tasks(2), blue)) == cpusOf(blueJob));
       }},
  });
}

TEST_CASE("select/linear gives every job all cpus of its nodes", "[select][oversubscribe][linear]") {
  const ClusterOptions linear{.wholeNodeCpus = true};
  runRows({
      {"a one-task job holds every cpu of its node",
       [&] {
         Cluster cluster(linear);
         cluster.addNode(cpuNode("l0", kTwoByThreeSmt));
         Allocation job = start(cluster, tasks(1), allNodes(cluster));
         CHECK(cpusOf(job) == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
         CHECK(job.nodes[0].cores == std::vector<int>{0, 1, 2, 3, 4, 5});
         CHECK(job.nodes[0].tasks == 1);
         CHECK_FALSE(job.nodes[0].wholeNode);
       }},
      {"a node held by a linear job takes no other job without over-subscription",
       [&] {
         Cluster cluster(linear);
         cluster.addNode(cpuNode("l0", kSixCores));
         start(cluster, tasks(1), allNodes(cluster));
         Outcome second = cluster.select(tasks(1), allNodes(cluster));
         CHECK(second.verdict == Verdict::NotNow);
         CHECK(second.reason == kReasonResources);
       }},
      {"with FORCE:2 a second linear job shares the same cpus, a third waits",
       [&] {
         Cluster cluster(linear);
         cluster.addNode(cpuNode("l0", kSixCores));
         PartitionView two = forced(cluster, 2);
         Allocation first = start(cluster, tasks(1), two);
         CHECK(cpusOf(start(cluster, tasks(2), two)) == cpusOf(first));
         CHECK(verdictOf(cluster, tasks(1), two) == Verdict::NotNow);
       }},
      {"memory held is what the job asked",
       [&] {
         Cluster cluster(linear);
         cluster.addNode(cpuNode("l0", kSixCores));
         Request memory = tasks(1);
         memory.memPerNodeMb = 1500;
         CHECK(start(cluster, memory, allNodes(cluster)).nodes[0].memoryMb == 1500);
       }},
      {"a GPU job gets only the GPUs it asked",
       [&] {
         Cluster cluster(linear);
         cluster.addNode(gpuNode("lg0", 3, "", kSixCores));
         PartitionView two = forced(cluster, 2);
         Allocation first = start(cluster, gres("", 1), two);
         CHECK(first.nodes[0].devices.size() == 1);
         CHECK(cpusOf(first).size() == 6);
         Allocation second = start(cluster, gres("", 2), two);
         CHECK(second.nodes[0].devices.size() == 2);
         CHECK_FALSE(overlap(second.nodes[0].devices, first.nodes[0].devices));
         CHECK(cluster.usedDevices(0) == 0b111);
       }},
      {"tasks spread as before, each node held whole in cpus",
       [&] {
         Cluster cluster(linear);
         for (int i = 0; i < 3; ++i) cluster.addNode(cpuNode("l" + std::to_string(i), kSixCores));
         Request nine = tasks(9);
         Allocation job = start(cluster, nine, allNodes(cluster));
         REQUIRE(job.nodes.size() == 2);
         CHECK(job.nodes[0].tasks + job.nodes[1].tasks == 9);
         for (const auto& grant : job.nodes) CHECK(grant.cpus.size() == 6);
         CHECK(verdictOf(cluster, tasks(7), allNodes(cluster)) == Verdict::NotNow);
         CHECK(verdictOf(cluster, tasks(6), allNodes(cluster)) == Verdict::Placed);
       }},
      {"a linear job still needs the cpus its tasks ask",
       [&] {
         Cluster cluster(linear);
         cluster.addNode(cpuNode("l0", kSixCores));
         Request wide = tasks(2);
         wide.cpusPerTask = 4;
         wide.maxNodes = 1;
         CHECK(cluster.canEverRun(wide, allNodes(cluster)).verdict == Verdict::Never);
       }},
  });
}
