// gres.md "Replacing a GPU" as a sequence over the pure functions: drain the
// bad card by UUID, drain the node, and each way the node can come back.
#include <catch2/catch.hpp>

#include "controller/drain/drained_tres_text.h"
#include "controller/drain/node_drain_state.h"
#include "tests/unit/controller/drain/drain_fixtures.h"

using namespace drain_test;

namespace {

// The node as the core would keep it: the record, and whether the node
// itself is drained (by an operator, or for its device order).
struct Node {
  DrainedTres record;
  bool nodeDrained = false;
  std::string nodeReason;

  void command(const DrainRequest& request) {
    NodeResources resources = gx7Node(record);
    auto out = applyDrainCommand(record, resources, request);
    REQUIRE(out.ok());
    record = out->record;
  }
  OrderOutcome registers(std::vector<int> gpus, const OrderOptions& options) {
    OrderOutcome out = reconcileDeviceOrder(record, report(std::move(gpus)), options);
    record = out.record;
    if (out.effect == NodeEffect::Drain || out.effect == NodeEffect::Invalid) {
      nodeDrained = true;
      nodeReason = out.reason;
    }
    if (out.clearsOrderDrain && nodeReason == kOrderMismatchReason) nodeDrained = false;
    return out;
  }
  NodeStateOutcome state(NodeStateUpdate update) {
    NodeStateOutcome out = applyNodeStateUpdate(record, update, "gx7");
    record = out.record;
    if (out.clearNodeDrain) nodeDrained = false;
    return out;
  }
};

// gx7 in service with its order saved and GPU 3 (uuidOf(3)) gone bad, drained
// by UUID, and the node drained for the repair.
Node inRepair() {
  Node node;
  node.registers({0, 1, 2, 3, 4, 5}, OrderOptions{});
  node.command(byUuid(uuidOf(3), DrainAction::Drain, "bad_gpu"));
  CHECK(formatDrainedTres(node.record) == "gpu(IDX:3)(bad_gpu)");
  CHECK(nodeIsDegraded(node.record));
  node.nodeDrained = true;
  node.nodeReason = "gpu swap";
  return node;
}

}  // namespace

TEST_CASE("replacing a GPU: the new card at the old index is not drained", "[drain][walkthrough]") {
  Node node = inRepair();
  auto out = node.registers({0, 1, 2, 13, 4, 5}, OrderOptions{});
  CHECK(out.effect == NodeEffect::None);
  CHECK(formatDrainedTres(node.record).empty());
  node.state(NodeStateUpdate::Undrain);
  CHECK_FALSE(node.nodeDrained);
  CHECK_FALSE(nodeIsDegraded(node.record));
}

TEST_CASE("replacing a GPU: the card not replaced leaves its index empty and drained", "[drain][walkthrough]") {
  Node node = inRepair();
  auto out = node.registers({0, 1, 2, 4, 5}, OrderOptions{.drainAbsentGres = true});
  CHECK(out.effect == NodeEffect::Degraded);  // drain_absent_gres: the node stays up
  CHECK(formatDrainedTres(node.record) == "gpu(IDX:3)(bad_gpu)");
  SECTION("State=UNDRAIN leaves the index drained") {
    node.state(NodeStateUpdate::Undrain);
    CHECK_FALSE(node.nodeDrained);
    CHECK(nodeIsDegraded(node.record));
  }
  SECTION("State=RESUME cannot resume an absent index, and says so") {
    auto resumed = node.state(NodeStateUpdate::Resume);
    CHECK(resumed.leftDrained == std::vector<std::string>{"gres/gpu index 3 of gx7 stays drained: no device there"});
    CHECK(formatDrainedTres(node.record) == "gpu(IDX:3)(bad_gpu)");
  }
}

TEST_CASE("replacing a GPU: a reordered report is refused until State=RESUME", "[drain][walkthrough]") {
  Node node = inRepair();
  node.nodeDrained = false;  // the repair is done and the node was undrained
  node.command(byIndex("gres/gpu", {1}, DrainAction::Drain, "fan"));
  auto out = node.registers({0, 2, 1, 13, 4, 5}, OrderOptions{.drainAbsentGres = true});
  CHECK(out.effect == NodeEffect::Drain);
  CHECK(node.nodeDrained);
  CHECK(node.nodeReason == "GPU UUID order does not match the saved order");
  CHECK(savedOrderOf(node.record, "gpu")->slots[1].uuid == uuidOf(1));

  // The operator checks the new order is right and resumes: the saved order
  // goes, the next registration saves the order then reported.
  auto resumed = node.state(NodeStateUpdate::Resume);
  CHECK(resumed.droppedOrders == std::vector<std::string>{"gpu"});
  CHECK_FALSE(node.nodeDrained);
  out = node.registers({0, 2, 1, 13, 4, 5}, OrderOptions{.drainAbsentGres = true});
  CHECK(out.effect == NodeEffect::None);
  CHECK(savedOrderOf(node.record, "gpu")->slots[1].uuid == uuidOf(2));
  CHECK_FALSE(nodeIsDegraded(node.record));
}
