// Builders shared by the drain model tests: a node of our own (gx7, six
// GPUs of two types, two count-only GRES, 8 cores of 2 threads) and short ways to write records and requests.
#pragma once

#include <string>
#include <vector>

#include "controller/drain/device_order.h"
#include "controller/drain/drain_command.h"
#include "controller/drain/drained_tres.h"

namespace drain_test {

using namespace gantry::drain;

inline std::string uuidOf(int n) { return "GPU-5e11-" + std::to_string(n); }

// Slots 0-3 h200, 4-5 l40, UUIDs uuidOf(0..5); `empty` lists slots whose device has left.
inline SavedOrder gx7Order(std::vector<int> empty = {}) {
  SavedOrder order{"gpu", {}};
  for (int i = 0; i < 6; ++i) order.slots.push_back(SavedSlot{uuidOf(i), i < 4 ? "h200" : "l40", true});
  for (int i : empty) order.slots[i].present = false;
  return order;
}

inline DeviceDrain gpuDrain(int index, std::string reason, std::string uuid = "", std::string type = "h200") {
  return DeviceDrain{"gpu", std::move(type), index, std::move(uuid), std::move(reason), false};
}

inline DeviceDrain notFoundDrain(int index, std::string uuid, std::string type = "h200") {
  return DeviceDrain{"gpu", std::move(type), index, std::move(uuid), "gres/gpu:not_found", true};
}

// gx7 with its saved order; slot 4 (an l40) has left and is drained not_found.
inline DrainedTres gx7Record() {
  DrainedTres record;
  record.savedOrders.push_back(gx7Order({4}));
  record.devices.push_back(notFoundDrain(4, uuidOf(4), "l40"));
  return record;
}

inline NodeResources gx7Node(const DrainedTres& record) {
  NodeResources node;
  node.nodeName = "gx7";
  if (const SavedOrder* order = savedOrderOf(record, "gpu")) {
    node.devices = devicesFromSavedOrder(*order);
  } else {
    node.devices = devicesFromSavedOrder(gx7Order());
    for (NodeDevice& d : node.devices) d.uuid.clear();
  }
  node.counted = {{"netbw", "", 8}, {"scratch", "nvme", 16}, {"scratch", "ssd", 4}};
  node.sharedGres = {"shard"};
  node.cores = 8;
  node.threadsPerCore = 2;
  node.memoryMb = 65536;
  return node;
}

inline DrainRequest request(std::string tres, SelectorKind selector, DrainAction action, std::string reason = "") {
  DrainRequest r;
  r.tres = std::move(tres);
  r.nodes = "gx7";
  r.selector = selector;
  r.action = action;
  r.reason = std::move(reason);
  return r;
}

inline DrainRequest byIndex(std::string tres, std::vector<int> indexes, DrainAction action, std::string reason = "") {
  DrainRequest r = request(std::move(tres), SelectorKind::Index, action, std::move(reason));
  r.indexes = std::move(indexes);
  return r;
}

inline DrainRequest byCount(std::string tres, uint64_t count, DrainAction action, std::string reason = "") {
  DrainRequest r = request(std::move(tres), SelectorKind::Count, action, std::move(reason));
  r.count = count;
  return r;
}

inline DrainRequest byUuid(std::string uuid, DrainAction action, std::string reason = "") {
  DrainRequest r = request("gres/gpu", SelectorKind::Uuid, action, std::move(reason));
  r.uuid = std::move(uuid);
  return r;
}

// The type of GPU uuidOf(n): last digit 0-3 an h200, else an l40 (so uuidOf(14) is a new l40).
inline std::string typeOfGpu(int n) { return n % 10 < 4 ? "h200" : "l40"; }

// The agent's report of gx7's GPUs, in the agent's order.
inline GresRegistration report(std::vector<int> numbers, uint64_t configured = 6) {
  GresRegistration r{"gpu", configured, {}};
  for (int n : numbers) r.devices.push_back(ReportedDevice{typeOfGpu(n), uuidOf(n), 1});
  return r;
}

}  // namespace drain_test
