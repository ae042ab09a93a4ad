// ControllerCore::reconfigureNodes (reconfigure.cpp): after the controller
// took a new configuration, every registered agent is told to re-read its
// own, and those that could not are named with their answer.
#include "tests/unit/controller/core/core_harness.h"

#include <algorithm>

using namespace gantry;

TEST_CASE("reconfiguring the nodes asks every registered agent and names those that failed", "[core][reconfigure]") {
  testing::CoreHarness h(testing::parseConf("ClusterName=unit\nSlurmdTimeout=600\n"
                                            "NodeName=gpu[01-03] CPUs=8 CoresPerSocket=8 RealMemory=5000\n"
                                            "PartitionName=all Nodes=gpu[01-03] Default=YES\n"));
  h.registerNodes({"gpu01", "gpu03"});  // gpu02's agent never came up
  h.agents.reconfigureFailures["gpu03"] = "Resuming operation, reconfigure failed.\ngres.conf:2: bad line";
  auto answer = h.await<std::vector<std::string>>([&](auto reply) { h.core->reconfigureNodes(reply); });
  REQUIRE(answer.ok());
  CHECK(*answer == std::vector<std::string>{"node gpu03: Resuming operation, reconfigure failed.\n"
                                            "gres.conf:2: bad line"});
  std::vector<std::string> asked = h.agents.reconfigured;
  std::sort(asked.begin(), asked.end());
  CHECK(asked == std::vector<std::string>{"gpu01", "gpu03"});
}

TEST_CASE("with no agent registered, reconfiguring the nodes answers at once", "[core][reconfigure]") {
  testing::CoreHarness h;
  auto answer = h.await<std::vector<std::string>>([&](auto reply) { h.core->reconfigureNodes(reply); });
  REQUIRE(answer.ok());
  CHECK(answer->empty());
  CHECK(h.agents.reconfigured.empty());
}
