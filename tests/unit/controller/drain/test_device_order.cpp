// reconcileDeviceOrder: one row per rule of "Saved Device Order and Absent
// Devices". gx7's GPUs are uuidOf(0..5) (drain_fixtures.h); a new card is uuidOf(10+).
#include <catch2/catch.hpp>
#include <functional>

#include "tests/unit/controller/drain/drain_fixtures.h"

using namespace drain_test;

namespace {

// A record whose saved order is gx7Order(empty) and drains are `drains`.
DrainedTres saved(std::vector<int> empty = {}, std::vector<DeviceDrain> drains = {}) {
  DrainedTres r;
  r.savedOrders.push_back(gx7Order(std::move(empty)));
  r.devices = std::move(drains);
  normalise(r);
  return r;
}

std::vector<std::string> slotUuids(const DrainedTres& r) {
  std::vector<std::string> out;
  if (const SavedOrder* order = savedOrderOf(r, "gpu")) {
    for (const SavedSlot& s : order->slots) out.push_back(s.present ? s.uuid : "(empty)");
  }
  return out;
}

std::vector<std::string> slots(std::vector<int> numbers) {
  std::vector<std::string> out;
  for (int n : numbers) out.push_back(n < 0 ? "(empty)" : uuidOf(n));
  return out;
}

GresRegistration withoutUuids(int count, uint64_t configured = 6) {
  GresRegistration r{"gpu", configured, {}};
  for (int i = 0; i < count; ++i) r.devices.push_back(ReportedDevice{"h200", "", 1});
  return r;
}

struct Row {
  const char* rule;
  DrainedTres before;
  GresRegistration registration;
  bool drainAbsentGres;
  NodeEffect effect;
  std::function<void(const OrderOutcome&)> check;
};

const OrderOptions kKeepUp{.drainAbsentGres = true};

}  // namespace

TEST_CASE("saved device order reconciliation", "[drain][order]") {
  std::vector<Row> rows = {
      {"the order is saved at first registration when every device has a UUID and a count of one",
       DrainedTres{}, report({0, 1, 2, 3, 4, 5}), false, NodeEffect::None,
       [](const OrderOutcome &o) {
         CHECK(slotUuids(o.record) == slots({0, 1, 2, 3, 4, 5}));
       }},
      {"no order is saved when a device has no UUID", DrainedTres{},
       withoutUuids(6), false, NodeEffect::None,
       [](const OrderOutcome &o) { CHECK(o.record.savedOrders.empty()); }},
      {"no order is saved when a device has a count above one", DrainedTres{},
       [] {
         GresRegistration r = report({0, 1, 2, 3, 4, 5});
         r.devices[3].count = 2;
         return r;
       }(),
       false, NodeEffect::None,
       [](const OrderOutcome &o) { CHECK(o.record.savedOrders.empty()); }},
      {"a device beyond the configured count is left out of the order, at the first registration and after",
       saved(), report({0, 1, 2, 3, 4, 5, 11}), false, NodeEffect::None,
       [](const OrderOutcome &o) {
         CHECK(slotUuids(o.record) == slots({0, 1, 2, 3, 4, 5}));
         CHECK(o.record.orderMismatch.empty());
       }},
      {"a device beyond the configured count does not take the place of an empty slot's device",
       saved(), report({0, 1, 3, 4, 5, 11}), true, NodeEffect::Drain,
       [](const OrderOutcome &o) {
         CHECK(o.reason == kOrderMismatchReason);
         CHECK(slotUuids(o.record) == slots({0, 1, 2, 3, 4, 5}));
       }},
      {"a UUID reported twice names no one device: the GRES is kept by index", DrainedTres{},
       [] {
         GresRegistration r = report({0, 1, 2, 3, 4, 5});
         r.devices[4].uuid = uuidOf(1);
         return r;
       }(),
       false, NodeEffect::None,
       [](const OrderOutcome &o) { CHECK(o.record.savedOrders.empty()); }},
      {"without UUIDs the count of a record counts, not the number of records", DrainedTres{},
       [] {
         GresRegistration r = withoutUuids(3);
         r.devices[0].count = 4;
         return r;
       }(),
       false, NodeEffect::None,
       [](const OrderOutcome &o) { CHECK(o.record.savedOrders.empty()); }},
      {"first registration with a short count is invalid and records no hole",
       DrainedTres{}, report({0, 1, 2, 4, 5}), true, NodeEffect::Invalid,
       [](const OrderOutcome &o) {
         CHECK(o.reason ==
               "gres/gpu count reported lower than configured (5 < 6)");
         CHECK(o.record == DrainedTres{});
       }},
      {"an index drain set before the order was saved belongs to the device then at that index",
       [] {
         DrainedTres r;
         r.devices = {gpuDrain(2, "fan")};
         return r;
       }(),
       report({0, 1, 2, 3, 4, 5}), false, NodeEffect::Degraded,
       [](const OrderOutcome &o) {
         CHECK(o.record.devices == std::vector{gpuDrain(2, "fan", uuidOf(2))});
       }},
      {"an absent device leaves its slot empty, later devices keep their indexes, and the slot is drained not_found",
       saved(), report({0, 1, 3, 4, 5}), true, NodeEffect::Degraded,
       [](const OrderOutcome &o) {
         CHECK(slotUuids(o.record) == slots({0, 1, -1, 3, 4, 5}));
         CHECK(o.record.devices == std::vector{notFoundDrain(2, uuidOf(2))});
         CHECK(o.devices.at(3).uuid == uuidOf(3));
       }},
      {"an absent device already drained keeps its drain and reason",
       saved({}, {gpuDrain(2, "xid_79", uuidOf(2))}), report({0, 1, 3, 4, 5}),
       true, NodeEffect::Degraded,
       [](const OrderOutcome &o) {
         CHECK(o.record.devices ==
               std::vector{gpuDrain(2, "xid_79", uuidOf(2))});
       }},
      {"without drain_absent_gres the absent index is drained and the node invalid",
       saved(), report({0, 1, 3, 4, 5}), false, NodeEffect::Invalid,
       [](const OrderOutcome &o) {
         CHECK(o.reason ==
               "gres/gpu count reported lower than configured (5 < 6)");
         CHECK(o.record.devices == std::vector{notFoundDrain(2, uuidOf(2))});
       }},
      {"a new UUID in an empty index fills it and the automatic drain clears",
       saved({2}, {notFoundDrain(2, uuidOf(2))}), report({0, 1, 12, 3, 4, 5}),
       false, NodeEffect::None,
       [](const OrderOutcome &o) {
         CHECK(slotUuids(o.record) == slots({0, 1, 12, 3, 4, 5}));
         CHECK(o.record.devices.empty());
       }},
      {"a new device in a departed drained device's slot is not drained",
       saved({2}, {gpuDrain(2, "xid_79", uuidOf(2))}),
       report({0, 1, 12, 3, 4, 5}), false, NodeEffect::None,
       [](const OrderOutcome &o) { CHECK(o.record.devices.empty()); }},
      {"a new device at a drained device's index while that device is gone is not drained",
       saved({}, {gpuDrain(3, "bad_gpu", uuidOf(3))}),
       report({0, 1, 2, 13, 4, 5}), false, NodeEffect::None,
       [](const OrderOutcome &o) {
         CHECK(o.record.devices.empty());
         CHECK(slotUuids(o.record) == slots({0, 1, 2, 13, 4, 5}));
       }},
      {"the departed device back in its slot keeps the drain an administrator set on it",
       saved({2}, {gpuDrain(2, "xid_79", uuidOf(2))}),
       report({0, 1, 2, 3, 4, 5}), false, NodeEffect::Degraded,
       [](const OrderOutcome &o) {
         CHECK(o.record.devices ==
               std::vector{gpuDrain(2, "xid_79", uuidOf(2))});
       }},
      {"a report that moves a present UUID is refused and the saved order stays",
       saved(), report({0, 1, 3, 2, 4, 5}), true, NodeEffect::Drain,
       [](const OrderOutcome &o) {
         CHECK(o.reason == "GPU UUID order does not match the saved order");
         CHECK(slotUuids(o.record) == slots({0, 1, 2, 3, 4, 5}));
         CHECK(o.record.orderMismatch == std::vector<std::string>{"gpu"});
       }},
      {"a new UUID that would push a present device along is refused",
       saved({2}, {notFoundDrain(2, uuidOf(2))}), report({0, 12, 1, 3, 4, 5}),
       true, NodeEffect::Drain,
       [](const OrderOutcome &o) {
         CHECK(slotUuids(o.record) == slots({0, 1, -1, 3, 4, 5}));
       }},
      {"a new UUID past the empty indexes is refused",
       saved({2}, {notFoundDrain(2, uuidOf(2))}), report({0, 1, 3, 4, 5, 12}),
       true, NodeEffect::Drain,
       [](const OrderOutcome &o) {
         CHECK(o.reason == "GPU UUID order does not match the saved order");
         CHECK(o.record.devices == std::vector{notFoundDrain(2, uuidOf(2))});
       }},
      {"a later report that fits clears the order drain",
       [] {
         DrainedTres r = saved();
         r.orderMismatch = {"gpu"};
         return r;
       }(),
       report({0, 1, 2, 3, 4, 5}), false, NodeEffect::None,
       [](const OrderOutcome &o) {
         CHECK(o.clearsOrderDrain);
         CHECK(o.record.orderMismatch.empty());
       }},
      {"lowering the count to the remaining devices drops the empty index and moves drains with their devices",
       saved({2}, {notFoundDrain(2, uuidOf(2)),
                   gpuDrain(4, "hot", uuidOf(4), "l40")}),
       report({0, 1, 3, 4, 5}, 5), false, NodeEffect::Degraded,
       [](const OrderOutcome &o) {
         CHECK(slotUuids(o.record) == slots({0, 1, 3, 4, 5}));
         CHECK(o.record.devices ==
               std::vector{gpuDrain(3, "hot", uuidOf(4), "l40")});
       }},
      {"a drain of a device no longer configured is dropped and does not come back when it is reinstalled",
       saved({2}, {gpuDrain(2, "xid_79", uuidOf(2))}),
       report({0, 1, 3, 4, 5}, 5), false, NodeEffect::None,
       [](const OrderOutcome &o) {
         CHECK(o.record.devices.empty());
         // The card goes back in and the count is raised again: a new device, not drained.
         auto back = reconcileDeviceOrder(
             o.record, report({0, 1, 3, 4, 5, 2}, 6), OrderOptions{});
         CHECK(back.effect == NodeEffect::None);
         CHECK(back.record.devices.empty());
       }},
      {"lowering the count below the present devices drops the last ones and their drains",
       saved({}, {gpuDrain(5, "hot", uuidOf(5), "l40"),
                  gpuDrain(1, "fan", uuidOf(1))}),
       report({0, 1, 2, 3, 4, 5}, 4), false, NodeEffect::Degraded,
       [](const OrderOutcome &o) {
         CHECK(slotUuids(o.record) == slots({0, 1, 2, 3}));
         CHECK(o.record.devices == std::vector{gpuDrain(1, "fan", uuidOf(1))});
       }},
      {"raising the count adds an empty slot until a device fills it", saved(),
       report({0, 1, 2, 3, 4, 5}, 7), true, NodeEffect::Degraded,
       [](const OrderOutcome &o) {
         CHECK(slotUuids(o.record) == slots({0, 1, 2, 3, 4, 5, -1}));
         CHECK(o.record.devices.size() == 1);
         CHECK(o.record.devices[0].reason == "gres/gpu:not_found");
       }},
      {"without UUIDs drains stay on their index and a replacement there is drained too",
       [] {
         DrainedTres r;
         r.devices = {gpuDrain(3, "xid_79")};
         return r;
       }(),
       withoutUuids(6), false, NodeEffect::Degraded,
       [](const OrderOutcome &o) {
         CHECK(o.record.devices == std::vector{gpuDrain(3, "xid_79")});
       }},
      {"without UUIDs an absent device leaves no slot and no not_found drain",
       DrainedTres{}, withoutUuids(5), true, NodeEffect::Invalid,
       [](const OrderOutcome &o) {
         CHECK(o.record.devices.empty());
         CHECK(o.devices.size() == 5);
       }},
      {"without UUIDs lowering the count drops the drains past it",
       [] {
         DrainedTres r;
         r.devices = {gpuDrain(1, "a"), gpuDrain(4, "b")};
         return r;
       }(),
       withoutUuids(4, 4), false, NodeEffect::Degraded,
       [](const OrderOutcome &o) {
         CHECK(o.record.devices == std::vector{gpuDrain(1, "a")});
       }},
      {"with no device reported every drain stays and the node is invalid",
       saved({}, {gpuDrain(1, "fan", uuidOf(1))}),
       GresRegistration{"gpu", 6, {}}, false, NodeEffect::Invalid,
       [](const OrderOutcome &o) {
         CHECK(o.reason ==
               "gres/gpu count reported lower than configured (0 < 6)");
         CHECK(o.record == saved({}, {gpuDrain(1, "fan", uuidOf(1))}));
       }},
      {"with no device reported, drain_absent_gres and a saved order drain every index not_found and keep the node up",
       saved({}, {gpuDrain(1, "fan", uuidOf(1))}),
       GresRegistration{"gpu", 6, {}}, true, NodeEffect::Degraded,
       [](const OrderOutcome &o) {
         REQUIRE(o.record.devices.size() == 6);
         CHECK(o.record.devices[1] == gpuDrain(1, "fan", uuidOf(1)));
         CHECK(o.record.devices[0] == notFoundDrain(0, uuidOf(0)));
         CHECK(slotUuids(o.record) == slots({-1, -1, -1, -1, -1, -1}));
       }},
      {"with no device reported and no saved order the node is invalid even with drain_absent_gres",
       [] {
         DrainedTres r;
         r.devices = {gpuDrain(1, "fan")};
         return r;
       }(),
       GresRegistration{"gpu", 6, {}}, true, NodeEffect::Invalid,
       [](const OrderOutcome &o) {
         CHECK(o.record.devices == std::vector{gpuDrain(1, "fan")});
       }},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto outcome =
          reconcileDeviceOrder(row.before, row.registration, OrderOptions{.drainAbsentGres = row.drainAbsentGres});
      CHECK(outcome.effect == row.effect);
      row.check(outcome);
    }
  }
}

TEST_CASE("Uuid selects a filled slot after reconciliation, Index selects an empty one", "[drain][order]") {
  auto out = reconcileDeviceOrder(saved(), report({0, 1, 3, 4, 5}), kKeepUp);
  NodeResources node = gx7Node(out.record);
  node.devices = out.devices;
  auto byId = applyDrainCommand(out.record, node, byUuid(uuidOf(2), DrainAction::Drain, "x"));
  CHECK_FALSE(byId.ok());
  auto byIdx = applyDrainCommand(out.record, node, byIndex("gres/gpu", {2}, DrainAction::Drain, "rma_1234"));
  REQUIRE(byIdx.ok());
  CHECK(deviceDrainAt(byIdx->record, "gpu", 2)->reason == "rma_1234");
}
