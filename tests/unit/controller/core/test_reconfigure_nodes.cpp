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

TEST_CASE("an agent that does not answer is named after 20 s and the others' answers still come back",
          "[core][reconfigure]") {
  testing::CoreHarness h(testing::parseConf("ClusterName=unit\nSlurmdTimeout=600\n"
                                            "NodeName=cpu[1-2] CPUs=2 CoresPerSocket=2 RealMemory=900\n"
                                            "PartitionName=all Nodes=cpu[1-2] Default=YES\n"));
  h.registerNodes({"cpu1", "cpu2"});
  h.agents.silentOnReconfigure = {"cpu2"};
  std::optional<Result<std::vector<std::string>>> answer;
  h.core->reconfigureNodes([&](Result<std::vector<std::string>> result) { answer.emplace(std::move(result)); });
  h.advance(std::chrono::seconds(19));
  CHECK_FALSE(answer.has_value());
  h.advance(std::chrono::seconds(2));
  REQUIRE(answer.has_value());
  REQUIRE(answer->ok());
  CHECK(**answer == std::vector<std::string>{"node cpu2: did not answer within 20 s"});
}
