// A node record on the wire (views.cpp): the per-device drain fields.
// One row per rule.
#include <catch2/catch.hpp>

#include "controller/rpc/views.h"

using namespace gantry;

namespace {

struct ViewedNode {
  ViewedNode() {
    record.conf.name = "fab5";
    record.conf.cpus = 8;
    record.registered = true;
    record.selectIndex = state.cluster.addNode(select::NodeInfo{.name = "fab5"});
  }
  config::GantryConf conf;
  core::CoreState state{conf};
  core::NodeRecord record;
};

drain::DrainedTres nicAndMemDrained() {
  drain::DrainedTres drained;
  drained.devices.push_back(drain::DeviceDrain{.gres = "nic", .type = "cx7", .index = 2, .reason = "link_down"});
  drained.counts.push_back(drain::CountDrain{.tres = "mem", .count = 512, .reason = "ecc"});
  return drained;
}

}  // namespace

TEST_CASE("node view: drained_tres, max_drained_tres and the DEGRADED flag", "[drain][views]") {
  struct Row {
    const char* rule;
    std::string configuredLimit;
    drain::DrainedTres drained;
    bool busy;
    std::string maxDrainedTres, drainedTres, state;
    bool degradedFlag;
  };
  const Row rows[] = {
      {"no limit and nothing drained: both fields empty", "", {}, false, "", "", "IDLE", false},
      {"the limit as configured", "gres/nic:1,cpu:3", {}, false, "gres/nic:1,cpu:3", "", "IDLE", false},
      {"spaces around the limit's items are dropped", " gres/nic:1 , mem:2G ", {}, false, "gres/nic:1,mem:2G", "",
       "IDLE", false},
      {"an idle node with drains is IDLE+DEGRADED, with its DrainedTRES", "", nicAndMemDrained(), false, "",
       "nic(IDX:2)(link_down),mem:512(ecc)", "IDLE+DEGRADED", true},
      {"a busy node with drains is MIXED+DEGRADED", "", nicAndMemDrained(), true, "",
       "nic(IDX:2)(link_down),mem:512(ecc)", "MIXED+DEGRADED", true},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    ViewedNode viewed;
    viewed.record.conf.maxDrainedTres = row.configuredLimit;
    viewed.record.drainedTres = row.drained;
    if (row.busy) {
      viewed.record.allocCpus = 2;
      viewed.record.jobs.insert(7);
    }
    v1::Node wire = views::nodeToWire(viewed.record, viewed.state, 0);
    CHECK(wire.max_drained_tres() == row.maxDrainedTres);
    CHECK(wire.drained_tres() == row.drainedTres);
    CHECK(wire.state() == row.state);
    CHECK(((wire.state_flags() & v1::NODE_FLAG_DEGRADED) != 0) == row.degradedFlag);
  }
}

TEST_CASE("node view: device lines follow the saved order, an empty slot shown Absent", "[drain][views]") {
  ViewedNode viewed;
  viewed.record.hardwareKnown = true;
  // The agent reports its cards in its own order: card 9 first, card 5 gone.
  for (int card : {9, 3}) {
    v1::GresDevice* gpu = viewed.record.hardware.add_gres();
    gpu->set_name("gpu");
    gpu->set_type("l40");
    gpu->add_files("/dev/nvidia" + std::to_string(card));
    gpu->set_count(1);
    gpu->set_uuid("GPU-" + std::to_string(card));
  }
  viewed.record.drainedTres.savedOrders.push_back(
      {.gres = "gpu",
       .slots = {{.uuid = "GPU-3", .type = "l40", .present = true},
                 {.uuid = "GPU-5", .type = "l40", .present = false},
                 {.uuid = "GPU-9", .type = "l40", .present = true}}});
  v1::Node wire = views::nodeToWire(viewed.record, viewed.state, 0);
  REQUIRE(wire.gres_devices_size() == 3);
  CHECK(wire.gres_devices(0) == "gpu:l40 Index=0 File=/dev/nvidia3 UUID=GPU-3");
  CHECK(wire.gres_devices(1) == "gpu:l40 Index=1 Absent UUID=GPU-5");
  CHECK(wire.gres_devices(2) == "gpu:l40 Index=2 File=/dev/nvidia9 UUID=GPU-9");
}
