// Per-device drains of cpus, memory and count-only GRES
// (Cluster::setResourceDrains) and canEverRunDrained. One row per rule; each
// row builds its own small cluster. Shapes and numbers are our own.
#include <catch2/catch.hpp>

#include "tests/unit/controller/select/rule_rows.h"

#include <functional>

#include "select_builders.h"

using namespace gantry::select;
using namespace gantry::select::testing;

namespace {

constexpr NodeShape kFiveCores{.sockets = 1, .coresPerSocket = 5, .threadsPerCore = 1, .memoryMb = 9000};
// Two sockets of three cores with two threads each: cpus 0-11, core k = cpus 2k, 2k+1.
constexpr NodeShape kSmtTwelve{.sockets = 2, .coresPerSocket = 3, .threadsPerCore = 2, .memoryMb = 7000};

NodeInfo cpuNode(const std::string& name, NodeShape shape) { return gpuNode(name, 0, "", shape); }

// A five-core node with a typed count-only GRES in two types.
NodeInfo ioNode(const std::string& name) {
  NodeInfo node = cpuNode(name, kFiveCores);
  node.countedGres.push_back({"iobw", "gpfs", 40, false});
  node.countedGres.push_back({"iobw", "nfs", 30, false});
  return node;
}

Request tasks(int n) {
  Request r;
  r.ntasks = n;
  return r;
}

Request withMem(Request r, uint64_t mb) {
  r.memPerNodeMb = mb;
  return r;
}

Request ioRequest(const std::string& type, uint64_t amount) {
  Request r;
  r.gresPerNode.push_back({"iobw", type, amount});
  return r;
}

Request exclusiveJob(int n = 1) {
  Request r = tasks(n);
  r.exclusive = true;
  return r;
}

ResourceDrains cpusDrained(std::vector<int> cpus) {
  ResourceDrains drains;
  drains.cpus = std::move(cpus);
  return drains;
}

ResourceDrains memoryDrained(uint64_t mb) {
  ResourceDrains drains;
  drains.memoryMb = mb;
  return drains;
}

ResourceDrains countDrained(const std::string& key, uint64_t amount) {
  ResourceDrains drains;
  drains.counts.emplace_back(key, amount);
  return drains;
}

PartitionView forced(const Cluster& cluster, int count) {
  PartitionView view = allNodes(cluster);
  view.overSubscribe = count;
  view.forcesSharing = count > 1;
  return view;
}

Allocation start(Cluster& cluster, const Request& request, const PartitionView& partition) {
  Outcome outcome = cluster.select(request, partition);
  REQUIRE(outcome.verdict == Verdict::Placed);
  cluster.commit(outcome.allocation);
  return outcome.allocation;
}

Allocation start(Cluster& cluster, const Request& request) { return start(cluster, request, allNodes(cluster)); }

Verdict verdictOf(const Cluster& cluster, const Request& request) {
  return cluster.select(request, allNodes(cluster)).verdict;
}

bool touches(const std::vector<int>& cpus, const std::vector<int>& drained) {
  return std::any_of(cpus.begin(), cpus.end(),
                     [&](int c) { return std::find(drained.begin(), drained.end(), c) != drained.end(); });
}

using Counts = std::vector<std::pair<std::string, uint64_t>>;

using select_test::Row;
using select_test::runRows;

}  // namespace

TEST_CASE("drained cpus take no new allocation", "[select][drains][cpu]") {
  runRows({
      {"CR_Core: a drained cpu is never granted and the node offers one fewer",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kFiveCores));
         cluster.setResourceDrains(0, cpusDrained({1, 3}));
         Allocation three = start(cluster, tasks(3));
         CHECK(three.nodes[0].cpus == std::vector<int>{0, 2, 4});
         cluster.release(three);
         CHECK(verdictOf(cluster, tasks(4)) == Verdict::NotNow);
       }},
      {"CR_Core with two threads per core: a drained core's threads are never granted",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("s0", kSmtTwelve));
         cluster.setResourceDrains(0, cpusDrained({6, 7}));  // core 3
         Allocation ten = start(cluster, tasks(10));
         CHECK_FALSE(touches(ten.nodes[0].cpus, {6, 7}));
         CHECK(ten.nodes[0].cpus.size() == 10);
         cluster.release(ten);
         CHECK(verdictOf(cluster, tasks(11)) == Verdict::NotNow);
       }},
      {"CR_CPU with two threads per core: drained threads are never granted",
       [] {
         Cluster cluster(ClusterOptions{.allocateByCpu = true});
         cluster.addNode(cpuNode("s0", kSmtTwelve));
         cluster.setResourceDrains(0, cpusDrained({2, 3, 10, 11}));
         Allocation eight = start(cluster, tasks(8));
         CHECK_FALSE(touches(eight.nodes[0].cpus, {2, 3, 10, 11}));
         CHECK(verdictOf(cluster, tasks(1)) == Verdict::NotNow);
       }},
      {"a job that needs every cpu of the node stays NotNow",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kFiveCores));
         cluster.setResourceDrains(0, cpusDrained({4}));
         Outcome outcome = cluster.select(tasks(5), allNodes(cluster));
         CHECK(outcome.verdict == Verdict::NotNow);
         CHECK(outcome.reason == kReasonResources);
       }},
      {"OverSubscribe=FORCE:N never shares a drained cpu",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kFiveCores));
         PartitionView three = forced(cluster, 3);
         start(cluster, tasks(5), three);  // holds every cpu once
         cluster.setResourceDrains(0, cpusDrained({2}));
         CHECK(cluster.select(tasks(5), three).verdict == Verdict::NotNow);
         for (int i = 0; i < 2; ++i) {
           Allocation shared = start(cluster, tasks(4), three);
           CHECK_FALSE(touches(shared.nodes[0].cpus, {2}));
         }
         CHECK(cluster.select(tasks(1), three).verdict == Verdict::NotNow);
       }},
      {"select/linear grants every cpu of the node but the drained ones",
       [] {
         Cluster cluster(ClusterOptions{.wholeNodeCpus = true});
         cluster.addNode(cpuNode("c0", kFiveCores));
         cluster.setResourceDrains(0, cpusDrained({1}));
         Allocation job = start(cluster, tasks(2));
         CHECK(job.nodes[0].cpus == std::vector<int>{0, 2, 3, 4});
         CHECK(verdictOf(cluster, tasks(1)) == Verdict::NotNow);
       }},
  });
}

TEST_CASE("a whole-node grant gets the node less what is drained", "[select][drains][exclusive]") {
  runRows({
      {"--exclusive gets the cpus, memory and counts in service, and holds the node",
       [] {
         Cluster cluster;
         cluster.addNode(ioNode("io0"));
         ResourceDrains drains;
         drains.cpus = {0};
         drains.memoryMb = 2500;
         drains.counts = {{"iobw:nfs", 30}, {"iobw:gpfs", 15}};
         cluster.setResourceDrains(0, drains);
         Allocation job = start(cluster, exclusiveJob());
         const NodeGrant& grant = job.nodes[0];
         CHECK(grant.wholeNode);
         CHECK(grant.cpus == std::vector<int>{1, 2, 3, 4});
         CHECK(grant.memoryMb == 6500);
         CHECK(grant.countGres == Counts{{"iobw:gpfs", 25}});
         CHECK(verdictOf(cluster, tasks(1)) == Verdict::NotNow);
         cluster.release(job);
         CHECK(verdictOf(cluster, withMem(tasks(4), 6500)) == Verdict::Placed);
       }},
      {"--exclusive asking for more cpus than are in service waits",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kFiveCores));
         cluster.setResourceDrains(0, cpusDrained({3}));
         CHECK(verdictOf(cluster, exclusiveJob(5)) == Verdict::NotNow);
         CHECK(verdictOf(cluster, exclusiveJob(4)) == Verdict::Placed);
       }},
      {"OverSubscribe=EXCLUSIVE grants the node less its drained memory",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kFiveCores));
         cluster.setResourceDrains(0, memoryDrained(9000));
         PartitionView whole = allNodes(cluster);
         whole.exclusive = true;
         Allocation job = start(cluster, tasks(1), whole);
         CHECK(job.nodes[0].memoryMb == 0);
         CHECK(job.nodes[0].cpus.size() == 5);
       }},
  });
}

TEST_CASE("drained memory and counts lower what a job can get", "[select][drains][memory][count]") {
  runRows({
      {"--mem gets at most RealMemory less drained less used",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kFiveCores));
         cluster.setResourceDrains(0, memoryDrained(3200));
         CHECK(verdictOf(cluster, withMem(tasks(1), 5801)) == Verdict::NotNow);
         start(cluster, withMem(tasks(1), 1800));
         CHECK(verdictOf(cluster, withMem(tasks(1), 4001)) == Verdict::NotNow);
         CHECK(verdictOf(cluster, withMem(tasks(1), 4000)) == Verdict::Placed);
       }},
      {"--mem-per-cpu gets at most RealMemory less drained less used",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kFiveCores));
         cluster.setResourceDrains(0, memoryDrained(3000));
         Request perCpu = tasks(4);
         perCpu.memPerCpuMb = 1500;
         CHECK(verdictOf(cluster, perCpu) == Verdict::Placed);
         perCpu.ntasks = 5;
         CHECK(verdictOf(cluster, perCpu) == Verdict::NotNow);
       }},
      {"a typed --gres gets at most its type's count less drained less used",
       [] {
         Cluster cluster;
         cluster.addNode(ioNode("io0"));
         cluster.setResourceDrains(0, countDrained("iobw:gpfs", 22));
         CHECK(verdictOf(cluster, ioRequest("gpfs", 19)) == Verdict::NotNow);
         start(cluster, ioRequest("gpfs", 11));
         CHECK(verdictOf(cluster, ioRequest("gpfs", 8)) == Verdict::NotNow);
         CHECK(verdictOf(cluster, ioRequest("gpfs", 7)) == Verdict::Placed);
         CHECK(verdictOf(cluster, ioRequest("nfs", 30)) == Verdict::Placed);
       }},
      {"an untyped --gres sees the sum over types less the drains",
       [] {
         Cluster cluster;
         cluster.addNode(ioNode("io0"));
         cluster.setResourceDrains(0, countDrained("iobw:nfs", 12));
         CHECK(verdictOf(cluster, ioRequest("", 59)) == Verdict::NotNow);
         Allocation job = start(cluster, ioRequest("", 58));
         CHECK(job.nodes[0].countGres == Counts{{"iobw:gpfs", 40}, {"iobw:nfs", 18}});
         CHECK(verdictOf(cluster, ioRequest("", 1)) == Verdict::NotNow);
       }},
      {"an untyped drain of a typed GRES drains its types in order",
       [] {
         Cluster cluster;
         cluster.addNode(ioNode("io0"));
         cluster.setResourceDrains(0, countDrained("iobw", 45));
         CHECK(verdictOf(cluster, ioRequest("gpfs", 1)) == Verdict::NotNow);
         CHECK(verdictOf(cluster, ioRequest("nfs", 26)) == Verdict::NotNow);
         CHECK(verdictOf(cluster, ioRequest("nfs", 25)) == Verdict::Placed);
       }},
      {"an untyped count-only GRES is drained by its name",
       [] {
         Cluster cluster;
         NodeInfo node = cpuNode("c0", kFiveCores);
         node.countGres.push_back({"scratch", 700});
         cluster.addNode(node);
         cluster.setResourceDrains(0, countDrained("scratch", 650));
         Request r;
         r.gresPerNode.push_back({"scratch", "", 51});
         CHECK(verdictOf(cluster, r) == Verdict::NotNow);
         r.gresPerNode[0].count = 50;
         CHECK(verdictOf(cluster, r) == Verdict::Placed);
       }},
  });
}

TEST_CASE("a drain does not take back what a job holds", "[select][drains][release]") {
  runRows({
      {"a job holding drained cpus and memory keeps them; release does not free them",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kFiveCores));
         Allocation holder = start(cluster, withMem(tasks(2), 4000));
         REQUIRE(holder.nodes[0].cpus == std::vector<int>{0, 1});
         ResourceDrains drains;
         drains.cpus = {0, 1};
         drains.memoryMb = 7000;  // 2000 of it held by the job
         cluster.setResourceDrains(0, drains);
         CHECK(cluster.heldCpus(0) == 2);
         CHECK(verdictOf(cluster, withMem(tasks(1), 1)) == Verdict::NotNow);
         Allocation small = start(cluster, tasks(3));
         CHECK_FALSE(touches(small.nodes[0].cpus, {0, 1}));
         cluster.release(small);
         cluster.release(holder);
         CHECK(verdictOf(cluster, tasks(4)) == Verdict::NotNow);
         CHECK(verdictOf(cluster, withMem(tasks(3), 2001)) == Verdict::NotNow);
         CHECK(verdictOf(cluster, withMem(tasks(3), 2000)) == Verdict::Placed);
       }},
      {"a job holding a drained count keeps it; release does not free it",
       [] {
         Cluster cluster;
         cluster.addNode(ioNode("io0"));
         Allocation holder = start(cluster, ioRequest("nfs", 25));
         cluster.setResourceDrains(0, countDrained("iobw:nfs", 20));
         CHECK(verdictOf(cluster, ioRequest("nfs", 1)) == Verdict::NotNow);
         cluster.release(holder);
         CHECK(verdictOf(cluster, ioRequest("nfs", 11)) == Verdict::NotNow);
         CHECK(verdictOf(cluster, ioRequest("nfs", 10)) == Verdict::Placed);
       }},
      {"empty drains give everything back",
       [] {
         Cluster cluster;
         cluster.addNode(ioNode("io0"));
         ResourceDrains drains;
         drains.cpus = {2, 4};
         drains.memoryMb = 100;
         drains.counts = {{"iobw:gpfs", 1}};
         cluster.setResourceDrains(0, drains);
         cluster.setResourceDrains(0, {});
         Request all = withMem(tasks(5), 9000);
         all.gresPerNode.push_back({"iobw", "gpfs", 40});
         CHECK(verdictOf(cluster, all) == Verdict::Placed);
       }},
      {"drains naming what the node lacks, or no node, change nothing",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kFiveCores));
         ResourceDrains strange;
         strange.cpus = {-1, 5, 77};
         strange.counts = {{"iobw:gpfs", 3}, {"scratch", 0}};
         cluster.setResourceDrains(0, strange);
         cluster.setResourceDrains(-1, cpusDrained({0}));
         cluster.setResourceDrains(9, cpusDrained({0}));
         CHECK(verdictOf(cluster, withMem(tasks(5), 9000)) == Verdict::Placed);
       }},
      {"setResourceDrains replaces what was set before",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("c0", kFiveCores));
         cluster.setResourceDrains(0, cpusDrained({0, 1, 2}));
         cluster.setResourceDrains(0, cpusDrained({4}));
         Allocation four = start(cluster, tasks(4));
         CHECK(four.nodes[0].cpus == std::vector<int>{0, 1, 2, 3});
       }},
  });
}

TEST_CASE("replaceNode keeps the resource drains", "[select][drains][replace]") {
  runRows({
      {"the same hardware registered again keeps every drain",
       [] {
         Cluster cluster;
         cluster.addNode(ioNode("io0"));
         ResourceDrains drains;
         drains.cpus = {3};
         drains.memoryMb = 1000;
         drains.counts = {{"iobw:nfs", 5}};
         cluster.setResourceDrains(0, drains);
         cluster.replaceNode(0, ioNode("io0"));
         CHECK(verdictOf(cluster, tasks(5)) == Verdict::NotNow);
         CHECK(verdictOf(cluster, withMem(tasks(1), 8001)) == Verdict::NotNow);
         CHECK(verdictOf(cluster, ioRequest("nfs", 26)) == Verdict::NotNow);
         CHECK(verdictOf(cluster, withMem(tasks(4), 8000)) == Verdict::Placed);
       }},
      {"cpus past the new count and counts of a GRES gone are dropped",
       [] {
         Cluster cluster;
         cluster.addNode(ioNode("io0"));
         ResourceDrains drains;
         drains.cpus = {1, 4};
         drains.counts = {{"iobw:gpfs", 40}};
         cluster.setResourceDrains(0, drains);
         NodeShape three = kFiveCores;
         three.coresPerSocket = 3;
         cluster.replaceNode(0, cpuNode("io0", three));  // cpus 0-2, no iobw
         Allocation two = start(cluster, tasks(2));
         CHECK(two.nodes[0].cpus == std::vector<int>{0, 2});
         cluster.release(two);
         cluster.replaceNode(0, ioNode("io0"));  // cpu 4 and iobw:gpfs return undrained
         CHECK(verdictOf(cluster, ioRequest("gpfs", 40)) == Verdict::Placed);
         CHECK(verdictOf(cluster, tasks(4)) == Verdict::Placed);
         CHECK(verdictOf(cluster, tasks(5)) == Verdict::NotNow);
       }},
  });
}

TEST_CASE("canEverRunDrained tells a job that waits for a drain", "[select][drains][never]") {
  runRows({
      {"Never when only drained devices would fit; canEverRun still Placed",
       [] {
         Cluster cluster;
         cluster.addNode(gpuNode("g0", 3, "", kFiveCores));
         cluster.setDeviceDrained(0, 1, true);
         CHECK(cluster.select(gpusPerNode(3), allNodes(cluster)).verdict == Verdict::NotNow);
         CHECK(cluster.canEverRun(gpusPerNode(3), allNodes(cluster)).verdict == Verdict::Placed);
         CHECK(cluster.canEverRunDrained(gpusPerNode(3), allNodes(cluster)).verdict == Verdict::Never);
         CHECK(cluster.canEverRunDrained(gpusPerNode(2), allNodes(cluster)).verdict == Verdict::Placed);
       }},
      {"Never when only drained cpus, memory or counts would fit; canEverRun still Placed",
       [] {
         Cluster cluster;
         cluster.addNode(ioNode("io0"));
         ResourceDrains drains;
         drains.cpus = {0};
         drains.memoryMb = 500;
         drains.counts = {{"iobw:gpfs", 4}};
         cluster.setResourceDrains(0, drains);
         PartitionView all = allNodes(cluster);
         for (const Request& r : {tasks(5), withMem(tasks(1), 8501), ioRequest("gpfs", 37)}) {
           CHECK(cluster.canEverRun(r, all).verdict == Verdict::Placed);
           CHECK(cluster.canEverRunDrained(r, all).verdict == Verdict::Never);
         }
         for (const Request& r : {tasks(4), withMem(tasks(1), 8500), ioRequest("gpfs", 36)})
           CHECK(cluster.canEverRunDrained(r, all).verdict == Verdict::Placed);
       }},
      {"Placed when a node without the drain could serve, or the node is only busy or down",
       [] {
         Cluster cluster;
         cluster.addNode(cpuNode("drained", kFiveCores));
         cluster.addNode(cpuNode("busy", kFiveCores));
         cluster.setResourceDrains(0, cpusDrained({0, 1}));
         start(cluster, tasks(5), PartitionView{.nodes = {1}});
         cluster.setAvailable(1, false);
         CHECK(cluster.canEverRunDrained(tasks(5), allNodes(cluster)).verdict == Verdict::Placed);
         CHECK(cluster.canEverRunDrained(tasks(5), PartitionView{.nodes = {0}}).verdict == Verdict::Never);
       }},
  });
}
