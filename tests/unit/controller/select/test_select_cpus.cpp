// Cpus, memory, tasks, nodes, exclusivity, drains and count-only GRES:
// the part of selection every job goes through, GPU or not.
#include <catch2/catch.hpp>

#include "controller/select/rules.h"
#include "select_builders.h"

using namespace gantry::select;
using namespace gantry::select::testing;

namespace {
NodeInfo cpuNode(const std::string& name, NodeShape shape = {}) { return gpuNode(name, 0, "", shape); }
Request tasks(int n) {
  Request r;
  r.ntasks = n;
  return r;
}
}  // namespace

TEST_CASE("CR_Core allocates whole cores, CR_CPU single cpus", "[select][cpus]") {
  NodeShape smt{.sockets = 1, .coresPerSocket = 4, .threadsPerCore = 2};
  Cluster byCore;
  byCore.addNode(cpuNode("n0", smt));
  auto core = byCore.select(tasks(1), allNodes(byCore));
  REQUIRE(core.verdict == Verdict::Placed);
  CHECK(core.allocation.nodes[0].cpus == std::vector<int>{0, 1});
  CHECK(core.allocation.nodes[0].cores == std::vector<int>{0});
  Cluster byCpu(ClusterOptions{.allocateByCpu = true});
  byCpu.addNode(cpuNode("n0", smt));
  auto cpu = byCpu.select(tasks(1), allNodes(byCpu));
  CHECK(cpu.allocation.nodes[0].cpus == std::vector<int>{0});
  byCpu.commit(cpu.allocation);
  CHECK(byCpu.select(tasks(1), allNodes(byCpu)).allocation.nodes[0].cpus == std::vector<int>{1});
}

TEST_CASE("tasks pack onto as few nodes as fit, -N and --ntasks-per-node spread them", "[select][cpus]") {
  Cluster cluster;
  for (int i = 0; i < 4; ++i) cluster.addNode(cpuNode("n" + std::to_string(i)));  // 16 cpus each
  auto packed = cluster.select(tasks(20), allNodes(cluster));
  REQUIRE(packed.verdict == Verdict::Placed);
  REQUIRE(packed.allocation.nodes.size() == 2);
  CHECK(packed.allocation.nodes[0].tasks + packed.allocation.nodes[1].tasks == 20);
  Request three = tasks(3);
  three.minNodes = 3;
  auto spread = cluster.select(three, allNodes(cluster));
  REQUIRE(spread.allocation.nodes.size() == 3);
  for (const auto& grant : spread.allocation.nodes) CHECK(grant.tasks == 1);
  Request perNode = tasks(4);
  perNode.ntasksPerNode = 2;
  auto fixed = cluster.select(perNode, allNodes(cluster));
  REQUIRE(fixed.allocation.nodes.size() == 2);
  CHECK(fixed.allocation.nodes[1].tasks == 2);
  Request tooMany = tasks(100);
  tooMany.maxNodes = 2;
  CHECK(cluster.canEverRun(tooMany, allNodes(cluster)).verdict == Verdict::Never);
}

TEST_CASE("cpus-per-task and cpus-per-gpu size the cpu grant", "[select][cpus]") {
  Cluster cluster;
  cluster.addNode(gpuNode("g0", 4));
  Request perTask = tasks(2);
  perTask.cpusPerTask = 3;
  CHECK(cluster.select(perTask, allNodes(cluster)).allocation.nodes[0].cpus.size() == 6);
  Request perGpu = gpusPerNode(2);
  perGpu.cpusPerGpu = 4;
  auto outcome = cluster.select(perGpu, allNodes(cluster));
  CHECK(outcome.allocation.nodes[0].cpus.size() == 8);
  perGpu.cpusPerGpu = 9;  // 18 cpus on a 16-cpu node
  CHECK(cluster.canEverRun(perGpu, allNodes(cluster)).verdict == Verdict::Never);
}

TEST_CASE("memory per node, per cpu and per gpu", "[select][memory]") {
  Cluster cluster;
  cluster.addNode(gpuNode("g0", 4));  // 64000 MB
  cluster.addNode(gpuNode("g1", 4));
  Request big = tasks(1);
  big.memPerNodeMb = 40000;
  auto first = cluster.select(big, allNodes(cluster));
  CHECK(first.allocation.nodes[0].memoryMb == 40000);
  cluster.commit(first.allocation);
  auto second = cluster.select(big, allNodes(cluster));
  REQUIRE(second.verdict == Verdict::Placed);
  CHECK(second.allocation.nodes[0].node != first.allocation.nodes[0].node);
  cluster.commit(second.allocation);
  CHECK(cluster.select(big, allNodes(cluster)).verdict == Verdict::NotNow);
  Request perCpu = tasks(4);
  perCpu.memPerCpuMb = 1000;
  CHECK(cluster.select(perCpu, allNodes(cluster)).allocation.nodes[0].memoryMb == 4000);
  Request perGpu = gpusPerNode(2);
  perGpu.memPerGpuMb = 5000;
  CHECK(cluster.select(perGpu, allNodes(cluster)).allocation.nodes[0].memoryMb == 10000);
  Request tooBig = tasks(1);
  tooBig.memPerNodeMb = 100000;
  CHECK(cluster.canEverRun(tooBig, allNodes(cluster)).verdict == Verdict::Never);
}

TEST_CASE("exclusive jobs take whole idle nodes and keep others off", "[select][exclusive]") {
  Cluster cluster;
  cluster.addNode(gpuNode("g0", 4));
  cluster.addNode(gpuNode("g1", 4));
  auto small = cluster.select(tasks(1), allNodes(cluster));
  cluster.commit(small.allocation);
  Request exclusive = tasks(1);
  exclusive.exclusive = true;
  auto whole = cluster.select(exclusive, allNodes(cluster));
  REQUIRE(whole.verdict == Verdict::Placed);
  const NodeGrant& grant = whole.allocation.nodes[0];
  CHECK(grant.node != small.allocation.nodes[0].node);
  CHECK(grant.cpus.size() == 16);
  CHECK(grant.devices.size() == 4);  // every device, though none was asked for
  CHECK(grant.memoryMb == 64000);
  cluster.commit(whole.allocation);
  CHECK(cluster.select(exclusive, allNodes(cluster)).verdict == Verdict::NotNow);
  SelectTrace trace;
  auto blocked = cluster.select(tasks(1), allNodes(cluster), &trace);
  REQUIRE(blocked.verdict == Verdict::Placed);
  CHECK(blocked.allocation.nodes[0].node == small.allocation.nodes[0].node);
  CHECK(traceHas(trace, grant.node, rules::kHeldWhole));
  cluster.release(whole.allocation);
  CHECK(cluster.select(exclusive, allNodes(cluster)).verdict == Verdict::Placed);
}

TEST_CASE("partition MaxNodes and OverSubscribe=EXCLUSIVE", "[select][partition]") {
  Cluster cluster;
  for (int i = 0; i < 3; ++i) cluster.addNode(cpuNode("n" + std::to_string(i)));
  PartitionView limited = allNodes(cluster);
  limited.maxNodes = 2;
  Request threeNodes = tasks(3);
  threeNodes.minNodes = 3;
  auto refused = cluster.select(threeNodes, limited);
  CHECK(refused.verdict == Verdict::Never);
  CHECK_THAT(refused.reason, Catch::Contains("MaxNodes=2"));
  CHECK(cluster.select(tasks(40), limited).verdict == Verdict::NotNow);
  PartitionView exclusive = allNodes(cluster);
  exclusive.exclusive = true;
  auto outcome = cluster.select(tasks(1), exclusive);
  CHECK(outcome.allocation.nodes[0].wholeNode);
  PartitionView some;
  some.nodes = {2};
  CHECK(cluster.select(tasks(1), some).allocation.nodes[0].node == 2);
}

TEST_CASE("drained devices and unavailable nodes take no new work", "[select][drain]") {
  Cluster cluster;
  cluster.addNode(gpuNode("g0", 4));
  cluster.setDeviceDrained(0, 0, true);
  cluster.setDeviceDrained(0, 2, true);
  auto outcome = cluster.select(gpusPerNode(2), allNodes(cluster));
  CHECK(devicesOf(outcome) == std::vector<int>{1, 3});
  CHECK(cluster.select(gpusPerNode(3), allNodes(cluster)).verdict == Verdict::NotNow);
  CHECK(cluster.canEverRun(gpusPerNode(3), allNodes(cluster)).verdict == Verdict::Placed);
  Request exclusive = gpusPerNode(1);
  exclusive.exclusive = true;
  CHECK(devicesOf(cluster.select(exclusive, allNodes(cluster))) == std::vector<int>{1, 3});
  cluster.setDeviceDrained(0, 0, false);
  CHECK(cluster.select(gpusPerNode(3), allNodes(cluster)).verdict == Verdict::Placed);
  cluster.setAvailable(0, false);
  SelectTrace trace;
  CHECK(cluster.select(tasks(1), allNodes(cluster), &trace).verdict == Verdict::NotNow);
  CHECK(traceHas(trace, 0, rules::kUnavailable));
  CHECK(cluster.canEverRun(tasks(1), allNodes(cluster)).verdict == Verdict::Placed);
}

TEST_CASE("count-only GRES and unknown GRES names", "[select][gres]") {
  NodeInfo node = gpuNode("g0", 2);
  node.countGres.push_back({"bandwidth", 4096});
  Cluster cluster;
  cluster.addNode(node);
  Request bandwidth = tasks(1);
  bandwidth.gresPerNode.push_back({"bandwidth", "", 3000});
  auto outcome = cluster.select(bandwidth, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  CHECK(formatGrantGres(cluster.node(0), outcome.allocation.nodes[0]) == "bandwidth:3000");
  cluster.commit(outcome.allocation);
  CHECK(cluster.select(bandwidth, allNodes(cluster)).verdict == Verdict::NotNow);
  Request unknown = tasks(1);
  unknown.gresPerNode.push_back({"fpga", "", 1});
  CHECK(cluster.canEverRun(unknown, allNodes(cluster)).verdict == Verdict::Never);
  CHECK(cluster.canEverRun(gres("h100", 1), allNodes(cluster)).verdict == Verdict::Never);
}

TEST_CASE("CPU-only jobs prefer nodes without free GPUs", "[select][cpus]") {
  Cluster cluster;
  cluster.addNode(gpuNode("g0", 4));
  cluster.addNode(cpuNode("c0"));
  CHECK(cluster.select(tasks(1), allNodes(cluster)).allocation.nodes[0].node == 1);
  CHECK(cluster.select(gpusPerNode(1), allNodes(cluster)).allocation.nodes[0].node == 0);
}

TEST_CASE("grant strings and replaceNode keep running grants", "[select][format]") {
  Cluster cluster;
  cluster.addNode(gpuNode("g0", 4, "a100"));
  auto outcome = cluster.select(gres("a100", 2), allNodes(cluster));
  CHECK(formatGrantGres(cluster.node(0), outcome.allocation.nodes[0]) == "gpu:a100:2(IDX:0-1)");
  cluster.commit(outcome.allocation);
  cluster.replaceNode(0, gpuNode("g0", 4, "a100"));
  CHECK(cluster.usedDevices(0) == 0b0011);
  CHECK(devicesOf(cluster.select(gres("a100", 2), allNodes(cluster))) == std::vector<int>{2, 3});
  cluster.replaceNode(0, gpuNode("g0", 1, "a100"));
  CHECK(cluster.usedDevices(0) == 0b0001);
}

TEST_CASE("nodes over the model's limits are never selected", "[select][limits]") {
  NodeInfo huge = gpuNode("big", 65);
  CHECK_FALSE(Cluster::validateNode(huge).ok());
  Cluster cluster;
  cluster.addNode(huge);
  SelectTrace trace;
  CHECK(cluster.canEverRun(tasks(1), allNodes(cluster), &trace).verdict == Verdict::Never);
  CHECK(traceHas(trace, 0, rules::kUnusable));
}

TEST_CASE("exclusive jobs with many tasks fill whole nodes", "[select][exclusive]") {
  Cluster cluster;
  for (int i = 0; i < 4; ++i) cluster.addNode(cpuNode("n" + std::to_string(i)));
  Request many = tasks(40);
  many.exclusive = true;
  auto outcome = cluster.select(many, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  CHECK(outcome.allocation.nodes.size() == 3);
  for (const auto& grant : outcome.allocation.nodes) CHECK(grant.cpus.size() == 16);
}

TEST_CASE("--gpus-per-task spreads tasks over nodes by their free GPUs", "[select][gpus]") {
  Cluster cluster;
  cluster.addNode(gpuNode("g0", 4));
  cluster.addNode(gpuNode("g1", 4));
  Request perTask = tasks(4);
  perTask.gpusPerTask = 2;
  auto outcome = cluster.select(perTask, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  REQUIRE(outcome.allocation.nodes.size() == 2);
  for (const auto& grant : outcome.allocation.nodes) {
    CHECK(grant.tasks == 2);
    CHECK(grant.devices.size() == 4);
  }
  Request tooMany = tasks(5);
  tooMany.gpusPerTask = 2;
  CHECK(cluster.canEverRun(tooMany, allNodes(cluster)).verdict == Verdict::Never);
}

TEST_CASE("--gpus splits over nodes and sums to the total", "[select][gpus]") {
  Cluster cluster;
  cluster.addNode(gpuNode("g0", 4));
  cluster.addNode(gpuNode("g1", 4));
  Request six;
  six.gpus = 6;
  auto outcome = cluster.select(six, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  size_t total = 0;
  for (const auto& grant : outcome.allocation.nodes) total += grant.devices.size();
  CHECK(total == 6);
  six.gpus = 9;
  CHECK(cluster.canEverRun(six, allNodes(cluster)).verdict == Verdict::Never);
}

TEST_CASE("typed and untyped requests in one --gres", "[select][gres]") {
  NodeInfo node = gpuNode("g0", 4, "a100");
  node.devices[3].type = "l4";
  Cluster cluster;
  cluster.addNode(node);
  Request mixed;
  mixed.gresPerNode = {{"gpu", "", 2}, {"gpu", "l4", 1}};
  auto outcome = cluster.select(mixed, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  CHECK(devicesOf(outcome) == std::vector<int>{0, 1, 3});
  CHECK(formatGrantGres(cluster.node(0), outcome.allocation.nodes[0]) == "gpu:a100:2(IDX:0-1),gpu:l4:1(IDX:3)");
}

TEST_CASE("enforce-binding keeps cpus on the devices' sockets", "[select][binding]") {
  Cluster cluster;
  cluster.addNode(gpuNode("g0", 4));  // 0-1 socket 0 (cpus 0-7), 2-3 socket 1 (cpus 8-15)
  Request bound = gres("", 1);
  bound.ntasks = 4;
  bound.enforceBinding = true;
  auto outcome = cluster.select(bound, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  CHECK(devicesOf(outcome) == std::vector<int>{0});
  for (int cpu : outcome.allocation.nodes[0].cpus) CHECK(cpu < 8);
  bound.ntasks = 9;  // more than one socket holds
  CHECK(cluster.canEverRun(bound, allNodes(cluster)).verdict == Verdict::Never);
  bound.enforceBinding = false;
  CHECK(cluster.canEverRun(bound, allNodes(cluster)).verdict == Verdict::Placed);
}

TEST_CASE("grants rebuilt with core ids only hold every thread of those cores", "[select][cpus]") {
  Cluster cluster;
  cluster.addNode(cpuNode("n0", NodeShape{.sockets = 1, .coresPerSocket = 2, .threadsPerCore = 2}));
  NodeGrant recovered;
  recovered.node = 0;
  recovered.cores = {0};
  cluster.commit(Allocation{{recovered}});
  auto outcome = cluster.select(tasks(1), allNodes(cluster));
  CHECK(outcome.allocation.nodes[0].cpus == std::vector<int>{2, 3});
  cluster.commit(outcome.allocation);
  CHECK(cluster.select(tasks(1), allNodes(cluster)).verdict == Verdict::NotNow);
  cluster.release(Allocation{{recovered}});
  CHECK(cluster.select(tasks(1), allNodes(cluster)).verdict == Verdict::Placed);
}

TEST_CASE("a GPU total free to split goes to the nodes with the most free GPUs", "[select][gpus]") {
  Cluster cluster;
  cluster.addNode(gpuNode("g0", 4));
  cluster.addNode(gpuNode("g1", 4));
  NodeGrant busy;
  busy.node = 0;
  busy.devices = {0, 1, 2};
  cluster.commit(Allocation{{busy}});
  Request four;
  four.gpus = 4;
  auto outcome = cluster.select(four, allNodes(cluster));
  REQUIRE(outcome.allocation.nodes.size() == 1);
  CHECK(outcome.allocation.nodes[0].node == 1);
  Request perTask = tasks(4);
  perTask.gpusPerTask = 1;
  auto spread = cluster.select(perTask, allNodes(cluster));
  REQUIRE(spread.allocation.nodes.size() == 1);
  CHECK(spread.allocation.nodes[0].node == 1);
  // A single GPU still goes best fit, to the nearly full node.
  CHECK(cluster.select(gpusPerNode(1), allNodes(cluster)).allocation.nodes[0].node == 0);
}

TEST_CASE("--test-only estimates where and when, leaving the cluster unchanged", "[select][testonly]") {
  Cluster cluster;
  cluster.addNode(gpuNode("g0", 4));
  auto first = cluster.select(gpusPerNode(2), allNodes(cluster));
  cluster.commit(first.allocation);
  auto second = cluster.select(gpusPerNode(2), allNodes(cluster));
  cluster.commit(second.allocation);
  std::vector<RunningJob> running{{second.allocation, 500}, {first.allocation, 300}};
  auto soon = cluster.estimateStart(gpusPerNode(2), allNodes(cluster), running, 100);
  REQUIRE(soon.outcome.verdict == Verdict::Placed);
  CHECK(soon.startTime == 300);
  CHECK(devicesOf(soon.outcome) == first.allocation.nodes[0].devices);
  auto later = cluster.estimateStart(gpusPerNode(4), allNodes(cluster), running, 100);
  CHECK(later.startTime == 500);
  CHECK(cluster.usedDevices(0) == 0b1111);
  CHECK(cluster.select(gpusPerNode(1), allNodes(cluster)).verdict == Verdict::NotNow);
  auto never = cluster.estimateStart(gpusPerNode(8), allNodes(cluster), running, 100);
  CHECK(never.outcome.verdict == Verdict::NotNow);
  auto now = cluster.estimateStart(Request{}, allNodes(cluster), running, 100);
  CHECK(now.startTime == 100);
  // Sorted, with a horizon: a start after it is not looked for, and the
  // cluster is left as found either way.
  std::vector<RunningJob> byEnd{{first.allocation, 300}, {second.allocation, 500}};
  CHECK(cluster.estimateStartSorted(gpusPerNode(4), allNodes(cluster), byEnd, 100, 499).outcome.verdict ==
        Verdict::NotNow);
  CHECK(cluster.estimateStartSorted(gpusPerNode(4), allNodes(cluster), byEnd, 100, 500).startTime == 500);
  CHECK(cluster.estimateStartSorted(gpusPerNode(2), allNodes(cluster), byEnd, 100, 300).startTime == 300);
  CHECK(cluster.usedDevices(0) == 0b1111);
}

TEST_CASE("memory and count products that overflow never place", "[select][memory][overflow]") {
  NodeShape smt{.sockets = 1, .coresPerSocket = 4, .threadsPerCore = 2, .memoryMb = 4000};
  Cluster cluster;
  cluster.addNode(gpuNode("n0", 2, "", smt));
  // One task gets a whole core, two cpus: 2^63 MB x 2 must not wrap to 0.
  Request memory = tasks(1);
  memory.memPerCpuMb = uint64_t{1} << 63;
  CHECK(cluster.select(memory, allNodes(cluster)).verdict == Verdict::NotNow);
  Outcome never = cluster.canEverRun(memory, allNodes(cluster));
  CHECK(never.verdict == Verdict::Never);
  CHECK(never.reason == kReasonMemory);

  Request perGpu = tasks(1);
  perGpu.gpusPerNode = 2;
  perGpu.memPerGpuMb = uint64_t{1} << 63;
  CHECK(cluster.canEverRun(perGpu, allNodes(cluster)).verdict == Verdict::Never);

  Request cpusPerGpu = tasks(1);
  cpusPerGpu.gpusPerNode = 2;
  cpusPerGpu.cpusPerGpu = 1 << 30;  // x 2 GPUs does not fit an int
  CHECK(cluster.canEverRun(cpusPerGpu, allNodes(cluster)).verdict == Verdict::Never);

  Request manyTasks = tasks(INT32_MAX);
  manyTasks.cpusPerTask = 4;
  Outcome refused = cluster.select(manyTasks, allNodes(cluster));
  CHECK(refused.verdict == Verdict::Never);
  CHECK_THAT(refused.reason, Catch::StartsWith(kReasonNeverAvailable));
  CHECK_THAT(refused.reason, Catch::Contains("--cpus-per-task"));

  Request perNode = tasks(1);
  perNode.minNodes = 1 << 30;
  perNode.ntasksPerNode = 4;
  CHECK(cluster.select(perNode, allNodes(cluster)).verdict == Verdict::Never);
}

TEST_CASE("--ntasks-per-socket caps the tasks on each socket and keeps each task on one", "[select][cpus]") {
  struct Row {
    const char* rule;
    int ntasks, perSocket, cpusPerTask;
    std::vector<int> cpus;  // empty: the request can never run
  };
  // Three sockets of two cpus each, allocated by cpu, one node only.
  const Row rows[] = {
      {"one task per socket spreads the tasks", 3, 1, 1, {0, 2, 4}},
      {"two per socket fill a socket before the next", 3, 2, 1, {0, 1, 2}},
      {"a task that needs more than a socket never fits", 1, 1, 3, {}},
      {"more tasks than the sockets allow never fit", 4, 1, 1, {}},
      {"a task of a whole socket takes it", 2, 1, 2, {0, 1, 2, 3}},
      {"no limit packs as before", 3, 0, 1, {0, 1, 2}},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    Cluster cluster(ClusterOptions{.allocateByCpu = true});
    cluster.addNode(cpuNode("n0", NodeShape{.sockets = 3, .coresPerSocket = 2, .threadsPerCore = 1}));
    Request request = tasks(row.ntasks);
    request.maxNodes = 1;
    request.ntasksPerSocket = row.perSocket;
    request.cpusPerTask = row.cpusPerTask;
    if (row.cpus.empty()) {
      CHECK(cluster.canEverRun(request, allNodes(cluster)).verdict == Verdict::Never);
      continue;
    }
    auto outcome = cluster.select(request, allNodes(cluster));
    REQUIRE(outcome.verdict == Verdict::Placed);
    CHECK(outcome.allocation.nodes[0].cpus == row.cpus);
  }
}

TEST_CASE("--ntasks-per-socket uses the sockets that still have room", "[select][cpus]") {
  Cluster cluster(ClusterOptions{.allocateByCpu = true});
  cluster.addNode(cpuNode("n0", NodeShape{.sockets = 2, .coresPerSocket = 2, .threadsPerCore = 1}));
  Request first = tasks(2);  // cpus 0 and 1: socket 0 is full
  auto held = cluster.select(first, allNodes(cluster));
  REQUIRE(held.verdict == Verdict::Placed);
  cluster.commit(held.allocation);
  Request perSocket = tasks(2);
  perSocket.ntasksPerSocket = 1;
  CHECK(cluster.select(perSocket, allNodes(cluster)).verdict != Verdict::Placed);  // only socket 1 is left
  perSocket.ntasks = 1;
  auto one = cluster.select(perSocket, allNodes(cluster));
  REQUIRE(one.verdict == Verdict::Placed);
  CHECK(one.allocation.nodes[0].cpus == std::vector<int>{2});
}
