// What drained TRES mean for the node, and the node State= updates.
#include <catch2/catch.hpp>

#include "controller/drain/node_drain_state.h"
#include "tests/unit/controller/drain/drain_fixtures.h"

using namespace drain_test;

namespace {

// gx7 with an admin drain on GPU 1, two cores and some memory, besides the empty slot 4.
DrainedTres busyRecord() {
  DrainedTres r = gx7Record();
  r.devices.push_back(gpuDrain(1, "fan", uuidOf(1)));
  r.cpus = {{6, "mce"}, {7, "mce"}};
  r.counts = {{"mem", 1024, "dimm"}};
  normalise(r);
  return r;
}

}  // namespace

TEST_CASE("a node with anything drained is DEGRADED until every drain is resumed", "[drain][state]") {
  CHECK_FALSE(nodeIsDegraded(DrainedTres{}));
  DrainedTres cpuOnly;
  cpuOnly.cpus = {{0, "x"}};
  CHECK(nodeIsDegraded(cpuOnly));
  DrainedTres memOnly;
  memOnly.counts = {{"mem", 1, "x"}};
  CHECK(nodeIsDegraded(memOnly));
  CHECK(nodeIsDegraded(gx7Record()));  // an empty slot's drain counts too
}

TEST_CASE("node State= updates and TRES drains", "[drain][state]") {
  SECTION("State=RESUME resumes present drained TRES and leaves an absent index drained, naming it") {
    auto out = applyNodeStateUpdate(busyRecord(), NodeStateUpdate::Resume, "gx7");
    CHECK(out.clearNodeDrain);
    CHECK(out.record.devices == std::vector<DeviceDrain>{notFoundDrain(4, uuidOf(4), "l40")});
    CHECK(out.record.cpus.empty());
    CHECK(out.record.counts.empty());
    CHECK(out.leftDrained == std::vector<std::string>{"gres/gpu index 4 of gx7 stays drained: no device there"});
    CHECK(out.droppedOrders.empty());
    CHECK(savedOrderOf(out.record, "gpu") != nullptr);
  }
  SECTION("State=RESUME of an automatic UUID-order drain drops the saved order") {
    DrainedTres r = busyRecord();
    r.orderMismatch = {"gpu"};
    auto out = applyNodeStateUpdate(r, NodeStateUpdate::Resume, "gx7");
    CHECK(out.droppedOrders == std::vector<std::string>{"gpu"});
    CHECK(savedOrderOf(out.record, "gpu") == nullptr);
    CHECK(out.record.orderMismatch.empty());
    CHECK_FALSE(nodeIsDegraded(out.record));
  }
  for (auto [name, update] : {std::pair{"State=UNDRAIN", NodeStateUpdate::Undrain},
                              std::pair{"State=RESUME_KEEP_TRES", NodeStateUpdate::ResumeKeepTres},
                              std::pair{"State=IDLE", NodeStateUpdate::Idle}}) {
    DYNAMIC_SECTION(name << " clears the node drain and keeps TRES drains") {
      DrainedTres r = busyRecord();
      r.orderMismatch = {"gpu"};
      auto out = applyNodeStateUpdate(r, update, "gx7");
      CHECK(out.clearNodeDrain);
      CHECK(out.record.devices == busyRecord().devices);
      CHECK(out.record.cpus == busyRecord().cpus);
      CHECK(out.record.counts == busyRecord().counts);
      CHECK(out.record.savedOrders == busyRecord().savedOrders);
      CHECK(out.record.orderMismatch.empty());
      CHECK(nodeIsDegraded(out.record));
    }
  }
}
