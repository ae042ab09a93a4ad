#include <catch2/catch.hpp>

#include "common/config/config_set.h"

using namespace gantry::config;

TEST_CASE("loadConfigSet reads a whole directory for one node", "[config][set]") {
  auto set = loadConfigSet("conf/resctrl", {.nodeName = "mix1"});
  REQUIRE(set.ok());
  CHECK(set->gantry.clusterName == "resctrl");
  CHECK(set->gres.records.size() == 2);
  CHECK(set->cgroup.constrainDevices);
  CHECK(set->resctrl.groups.size() == 3);
}

TEST_CASE("loadConfigSet without a node name reads no gres records", "[config][set]") {
  auto set = loadConfigSet("conf/chunks");
  REQUIRE(set.ok());
  CHECK_FALSE(set->gres.present);
  CHECK(set->gantry.nodes.size() == 2);
}

TEST_CASE("reconfigure keeps the previous configuration when the new one fails", "[config][set]") {
  auto set = loadConfigSet("conf/gang");
  REQUIRE(set.ok());
  ConfigSet current = set.value();
  ReconfigureOutcome failed = reconfigure(current, "tests/fixtures/config/broken", {.nodeName = "b1"});
  CHECK_FALSE(failed.applied);
  CHECK_THAT(failed.message, Catch::StartsWith("Resuming operation, reconfigure failed.\n") &&
                                 Catch::Contains("gres.conf:2: ChunkSizes=2,3,6:") &&
                                 Catch::Contains("gantry.conf:3: SchedulerType=sched/wiki"));
  CHECK(current.gantry.clusterName == "gang");

  ReconfigureOutcome applied = reconfigure(current, "conf/drain", {.nodeName = "tux1"});
  CHECK(applied.applied);
  CHECK(applied.message.empty());
  CHECK(current.gantry.clusterName == "drain");
  CHECK(current.gres.records.size() == 2);
}
