// State=FAIL through the controller core: who may set it, that it takes no
// new work while running jobs go on, FAILING then FAIL as the node empties,
// what returns it, and that it survives a controller restart. The
// transitions themselves are rows of test_lifecycle.cpp.
#include "tests/unit/controller/core/core_harness.h"

using namespace gantry;
using testing::CoreHarness;
using testing::tempDb;

namespace {

const auth::Identity kRoot{.uid = 0, .gid = 0, .user = "root"};
const auth::Identity kBruno{.uid = 2311, .gid = 2311, .user = "bruno"};

// Six-core nodes `names` ("w[1-3]"), one partition.
config::GantryConf sixCoreConf(const std::string& names, const std::string& nodeExtra = "") {
  return testing::parseConf("ClusterName=failunit\nSlurmdTimeout=30\n"
                            "NodeName=" + names + " CPUs=6 CoresPerSocket=6 RealMemory=8000 " + nodeExtra +
                            "\nPartitionName=batch Nodes=" + names + " Default=YES MaxTime=120\n");
}

config::GantryConf threeNodeConf(const std::string& nodeExtra = "") { return sixCoreConf("w[1-3]", nodeExtra); }

Result<v1::UpdateNodeResponse> setState(CoreHarness& h, const std::string& nodes, const std::string& state,
                                        const std::string& reason = "", const auth::Identity& caller = kRoot) {
  v1::UpdateNodeRequest request;
  request.set_node_names(nodes);
  request.set_state(state);
  request.set_reason(reason);
  auto answer = h.await<v1::UpdateNodeResponse>([&](auto reply) { h.core->updateNode(request, caller, reply); });
  h.settle();
  return answer;
}

v1::Node nodeView(CoreHarness& h, const std::string& name) {
  v1::ListNodesRequest request;
  request.add_names(name);
  auto answer = h.await<v1::ListNodesResponse>([&](auto reply) { h.core->listNodes(request, reply); });
  REQUIRE(answer.ok());
  REQUIRE(answer->nodes_size() == 1);
  return answer->nodes(0);
}

bool failFlag(const v1::Node& node) { return (node.state_flags() & v1::NODE_FLAG_FAIL) != 0; }

// A one-task job with two cores.
v1::JobSpec twoCoreJob() {
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\nsleep 300\n");
  spec.set_ntasks(1);
  spec.set_cpus_per_task(2);
  return spec;
}

void registerAll(CoreHarness& h) {
  h.registerNodes({"w1", "w2", "w3"});
  h.settle();
}

}  // namespace

TEST_CASE("State=FAIL needs a reason and root or SlurmUser, and names a bad state's alternatives",
          "[core][node_fail]") {
  CoreHarness h(threeNodeConf());
  registerAll(h);
  auto noReason = setState(h, "w2", "FAIL");
  REQUIRE_FALSE(noReason.ok());
  CHECK(noReason.error() == "You must specify a reason when changing a node's state to FAIL");
  auto notAdmin = setState(h, "w2", "FAIL", "psu", kBruno);
  REQUIRE_FALSE(notAdmin.ok());
  CHECK(notAdmin.failure().code == ErrorCode::Denied);
  auto bad = setState(h, "w2", "FAILED", "psu");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().find("FAIL, RESUME") != std::string::npos);
  CHECK_FALSE(failFlag(nodeView(h, "w2")));
}

TEST_CASE("a failing node keeps its running job, takes no new one, and is FAIL once idle", "[core][node_fail]") {
  CoreHarness h(sixCoreConf("w3"));
  h.registerNodes({"w3"});
  h.settle();
  auto running = h.submit(twoCoreJob(), kBruno);
  REQUIRE(running.ok());
  h.settle();
  REQUIRE(h.job(*running).state() == v1::RUNNING);

  REQUIRE(setState(h, "w3", "FAIL", "fans at 100%").ok());
  v1::Node failing = nodeView(h, "w3");
  CHECK(failFlag(failing));
  CHECK(failing.state() == "MIXED+FAIL");
  CHECK(failing.reason() == "fans at 100%");
  CHECK(failing.reason_user() == "root");
  CHECK(h.job(*running).state() == v1::RUNNING);  // unlike DOWN, FAIL kills nothing

  auto waiting = h.submit(twoCoreJob(), kBruno);
  REQUIRE(waiting.ok());
  h.settle();
  CHECK(h.job(*waiting).state() == v1::PENDING);

  h.stepEnded(*running, "batch", "w3", 0);
  h.advance(std::chrono::seconds(2));
  v1::Node failed = nodeView(h, "w3");
  CHECK(failed.base_state() == v1::NODE_IDLE);
  CHECK(failed.state() == "IDLE+FAIL");
  CHECK(h.job(*waiting).state() == v1::PENDING);

  REQUIRE(setState(h, "w3", "RESUME").ok());
  CHECK_FALSE(failFlag(nodeView(h, "w3")));
  CHECK(nodeView(h, "w3").reason().empty());
  h.advance(std::chrono::seconds(1));
  CHECK(h.job(*waiting).state() == v1::RUNNING);
}

TEST_CASE("IDLE also returns a failing node, UNDRAIN does not", "[core][node_fail]") {
  CoreHarness h(threeNodeConf());
  registerAll(h);
  REQUIRE(setState(h, "w[1-2]", "FAIL", "bad batch of DIMMs").ok());
  REQUIRE(setState(h, "w1", "UNDRAIN").ok());
  CHECK(failFlag(nodeView(h, "w1")));
  CHECK(nodeView(h, "w1").reason() == "bad batch of DIMMs");
  REQUIRE(setState(h, "w2", "IDLE").ok());
  CHECK_FALSE(failFlag(nodeView(h, "w2")));
  CHECK(nodeView(h, "w2").state() == "IDLE");
}

TEST_CASE("FAIL survives a controller restart with its reason and user", "[core][node_fail]") {
  std::string db = tempDb();
  const auth::Identity slurmUser{.uid = 0, .gid = 0, .user = "gantryadm"};
  {
    CoreHarness h(sixCoreConf("w1"), db);
    h.registerNodes({"w1"});
    REQUIRE(setState(h, "w1", "FAIL", "ib link flaps", slurmUser).ok());
  }
  CoreHarness h(sixCoreConf("w1"), db);
  h.registerNodes({"w1"});
  h.settle();
  v1::Node node = nodeView(h, "w1");
  CHECK(failFlag(node));
  CHECK(node.state() == "IDLE+FAIL");
  CHECK(node.reason() == "ib link flaps");
  CHECK(node.reason_user() == "gantryadm");
  auto job = h.submit(twoCoreJob(), kBruno);
  REQUIRE(job.ok());
  h.settle();
  CHECK(h.job(*job).state() == v1::PENDING);
}

TEST_CASE("a node configured State=FAIL starts failing", "[core][node_fail]") {
  CoreHarness h(threeNodeConf("State=FAIL"));
  registerAll(h);
  v1::Node node = nodeView(h, "w2");
  CHECK(failFlag(node));
  CHECK(node.reason() == "configured FAIL");
}
