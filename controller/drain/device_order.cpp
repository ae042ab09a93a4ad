#include "controller/drain/device_order.h"

#include <algorithm>
#include <optional>
#include <set>

namespace gantry::drain {
namespace {

std::string shortCountReason(const std::string& gres, std::size_t reported, uint64_t configured) {
  return "gres/" + gres + " count reported lower than configured (" + std::to_string(reported) + " < " +
         std::to_string(configured) + ")";
}

bool drainsOf(const DrainedTres& record, const std::string& gres) {
  return std::any_of(record.devices.begin(), record.devices.end(),
                     [&](const DeviceDrain& d) { return d.gres == gres; });
}

NodeEffect degradedOrNone(const DrainedTres& record, const std::string& gres) {
  return drainsOf(record, gres) ? NodeEffect::Degraded : NodeEffect::None;
}

// Lifts the order mismatch of `gres`, if there was one.
bool clearMismatch(DrainedTres& record, const std::string& gres) { return std::erase(record.orderMismatch, gres) > 0; }

std::vector<NodeDevice> reportedAsDevices(const GresRegistration& registration) {
  std::vector<NodeDevice> out;
  for (std::size_t i = 0; i < registration.devices.size(); ++i) {
    const ReportedDevice& d = registration.devices[i];
    out.push_back(NodeDevice{registration.gres, d.type, static_cast<int>(i), d.uuid, true});
  }
  return out;
}

// Every empty slot without a drain gets the automatic not_found drain.
void drainEmptySlots(DrainedTres& record, const SavedOrder& order) {
  for (std::size_t i = 0; i < order.slots.size(); ++i) {
    const SavedSlot& slot = order.slots[i];
    if (slot.present || deviceDrainAt(record, order.gres, static_cast<int>(i))) continue;
    record.devices.push_back(
        DeviceDrain{order.gres, slot.type, static_cast<int>(i), slot.uuid, notFoundReason(order.gres), true});
  }
}

// Fewer configured than saved: drop empty slots (last first), then the last
// devices, until the order fits; drains of dropped devices go, the others move to their device's new index.
void fitToConfiguredCount(DrainedTres& record, SavedOrder& order, uint64_t configured) {
  std::vector<int> kept;
  for (int i = 0; i < static_cast<int>(order.slots.size()); ++i) kept.push_back(i);
  for (int i = static_cast<int>(order.slots.size()) - 1; i >= 0 && kept.size() > configured; --i) {
    if (!order.slots[i].present) std::erase(kept, i);
  }
  while (kept.size() > configured) kept.pop_back();
  if (kept.size() == order.slots.size()) return;

  std::vector<SavedSlot> slots;
  std::vector<DeviceDrain> drains;
  for (int newIndex = 0; newIndex < static_cast<int>(kept.size()); ++newIndex) {
    slots.push_back(order.slots[kept[newIndex]]);
    if (const DeviceDrain* drain = deviceDrainAt(record, order.gres, kept[newIndex])) {
      drains.push_back(*drain);
      drains.back().index = newIndex;
    }
  }
  std::erase_if(record.devices, [&](const DeviceDrain& d) { return d.gres == order.gres; });
  record.devices.insert(record.devices.end(), drains.begin(), drains.end());
  order.slots = std::move(slots);
}

// A GRES some device of which has no UUID (or a count above one): drains
// stay on their indexes, nothing is saved, absent devices leave no slot.
OrderOutcome byIndex(const DrainedTres& record, const GresRegistration& registration) {
  OrderOutcome out{record, NodeEffect::None, "", false, reportedAsDevices(registration)};
  DrainedTres& next = out.record;
  std::erase_if(next.savedOrders, [&](const SavedOrder& o) { return o.gres == registration.gres; });
  out.clearsOrderDrain = clearMismatch(next, registration.gres);
  std::erase_if(next.devices, [&](const DeviceDrain& d) {
    return d.gres == registration.gres && d.index >= static_cast<int>(registration.configuredCount);
  });
  for (DeviceDrain& d : next.devices) {
    if (d.gres == registration.gres) d.uuid.clear();
  }
  normalise(next);
  uint64_t reported = 0;
  for (const ReportedDevice& d : registration.devices) reported += d.count;
  if (reported < registration.configuredCount) {
    out.effect = NodeEffect::Invalid;
    out.reason = shortCountReason(registration.gres, reported, registration.configuredCount);
  } else {
    out.effect = degradedOrNone(next, registration.gres);
  }
  return out;
}

// No order saved yet: save the reported one, or, when the count is short,
// refuse the registration without recording a hole.
OrderOutcome firstRegistration(const DrainedTres& record, const GresRegistration& registration) {
  OrderOutcome out{record, NodeEffect::None, "", false, reportedAsDevices(registration)};
  if (registration.devices.size() < registration.configuredCount) {
    out.effect = NodeEffect::Invalid;
    out.reason = shortCountReason(registration.gres, registration.devices.size(), registration.configuredCount);
    return out;
  }
  SavedOrder order{registration.gres, {}};
  for (std::size_t i = 0; i < registration.configuredCount; ++i) {
    order.slots.push_back(SavedSlot{registration.devices[i].uuid, registration.devices[i].type, true});
  }
  DrainedTres& next = out.record;
  std::erase_if(next.devices, [&](const DeviceDrain& d) {
    return d.gres == registration.gres && (d.index < 0 || d.index >= static_cast<int>(order.slots.size()));
  });
  for (DeviceDrain& d : next.devices) {
    if (d.gres == registration.gres) d.uuid = order.slots[d.index].uuid;  // an index drain now belongs to its device
  }
  next.savedOrders.push_back(order);
  out.clearsOrderDrain = clearMismatch(next, registration.gres);
  normalise(next);
  out.devices = devicesFromSavedOrder(order);
  out.effect = degradedOrNone(next, registration.gres);
  return out;
}

// Where each reported device goes in the saved order. A known UUID keeps its
// slot; a new one takes the next slot whose device is not reported. Fails
// when a known UUID comes before one reported earlier (it moved) or a new one
// has no such slot (it would shift a present device, or is past the end).
struct Placement {
  std::vector<SavedSlot> slots;
  std::vector<bool> replaced;  // a different device now holds the slot
};

std::optional<Placement> place(const SavedOrder& saved, const std::vector<ReportedDevice>& reported) {
  std::set<std::string> reportedUuids;
  for (const ReportedDevice& d : reported) reportedUuids.insert(d.uuid);
  Placement out{saved.slots, std::vector<bool>(saved.slots.size(), false)};
  std::vector<bool> matched(saved.slots.size(), false);
  std::size_t cursor = 0;
  for (const ReportedDevice& device : reported) {
    auto known = std::find_if(saved.slots.begin(), saved.slots.end(),
                              [&](const SavedSlot& s) { return s.present && s.uuid == device.uuid; });
    if (known != saved.slots.end()) {
      std::size_t slot = static_cast<std::size_t>(known - saved.slots.begin());
      if (slot < cursor) return std::nullopt;
      matched[slot] = true;
      cursor = slot + 1;
      continue;
    }
    if (cursor >= saved.slots.size()) {
      // Past the last index: refused when it skipped an empty slot it should
      // have filled; with every slot taken it is a device beyond the
      // configured count, left out as at the first registration.
      if (std::find(matched.begin(), matched.end(), false) != matched.end()) return std::nullopt;
      continue;
    }
    const SavedSlot& there = saved.slots[cursor];
    if (there.present && reportedUuids.count(there.uuid) > 0) return std::nullopt;
    out.replaced[cursor] = there.uuid != device.uuid;
    out.slots[cursor] = SavedSlot{device.uuid, device.type, true};
    matched[cursor] = true;
    ++cursor;
  }
  for (std::size_t i = 0; i < out.slots.size(); ++i) {
    if (!matched[i]) out.slots[i].present = false;  // keeps the UUID that left
  }
  return out;
}

OrderOutcome againstSavedOrder(const DrainedTres& record, const SavedOrder& saved, const GresRegistration& registration,
                               const OrderOptions& options) {
  OrderOutcome out{record, NodeEffect::None, "", false, {}};
  SavedOrder grown = saved;
  while (grown.slots.size() < registration.configuredCount) grown.slots.push_back(SavedSlot{"", "", false});

  auto placement = place(grown, registration.devices);
  if (!placement) {
    out.record.orderMismatch.push_back(registration.gres);
    normalise(out.record);
    out.effect = NodeEffect::Drain;
    out.reason = kOrderMismatchReason;
    out.devices = devicesFromSavedOrder(saved);
    return out;
  }
  DrainedTres& next = out.record;
  SavedOrder order{registration.gres, placement->slots};
  for (int i = 0; i < static_cast<int>(order.slots.size()); ++i) {
    if (!order.slots[i].present) continue;
    const std::string& uuid = order.slots[i].uuid;
    bool replaced = placement->replaced[i];
    // A device is here again: the absent-device drain goes, and so does any
    // drain of the device that left (a drain belongs to its device).
    std::erase_if(next.devices, [&](const DeviceDrain& d) {
      return d.gres == order.gres && d.index == i && (d.notFound || (replaced && d.uuid != uuid));
    });
  }
  drainEmptySlots(next, order);
  fitToConfiguredCount(next, order, registration.configuredCount);
  std::erase_if(next.savedOrders, [&](const SavedOrder& o) { return o.gres == order.gres; });
  next.savedOrders.push_back(order);
  out.clearsOrderDrain = clearMismatch(next, registration.gres);
  normalise(next);
  out.devices = devicesFromSavedOrder(order);

  std::size_t present =
      std::count_if(order.slots.begin(), order.slots.end(), [](const SavedSlot& s) { return s.present; });
  if (present < order.slots.size() && !options.drainAbsentGres) {
    out.effect = NodeEffect::Invalid;
    out.reason = shortCountReason(registration.gres, present, registration.configuredCount);
  } else {
    out.effect = degradedOrNone(next, registration.gres);
  }
  return out;
}

// The agent reports no device of the GRES at all: every drain stays. With
// drain_absent_gres and a saved order each index is an empty slot; otherwise
// the registration is refused and nothing changes.
OrderOutcome noneReported(const DrainedTres& record, const SavedOrder* saved, const GresRegistration& registration,
                          const OrderOptions& options) {
  if (saved != nullptr && options.drainAbsentGres) return againstSavedOrder(record, *saved, registration, options);
  OrderOutcome out{record, NodeEffect::Invalid, shortCountReason(registration.gres, 0, registration.configuredCount),
                   false, saved != nullptr ? devicesFromSavedOrder(*saved) : std::vector<NodeDevice>{}};
  return out;
}

}  // namespace

OrderOutcome reconcileDeviceOrder(const DrainedTres& record, const GresRegistration& registration,
                                  const OrderOptions& options) {
  const SavedOrder* saved = savedOrderOf(record, registration.gres);
  if (registration.devices.empty()) return noneReported(record, saved, registration, options);
  // A UUID reported twice names no one device: the GRES is then kept by index.
  std::set<std::string> seen;
  bool everyDeviceHasUuid = std::all_of(registration.devices.begin(), registration.devices.end(),
                                        [&](const ReportedDevice& d) {
                                          return !d.uuid.empty() && d.count == 1 && seen.insert(d.uuid).second;
                                        });
  if (!everyDeviceHasUuid) return byIndex(record, registration);
  if (saved == nullptr) return firstRegistration(record, registration);
  return againstSavedOrder(record, *saved, registration, options);
}

}  // namespace gantry::drain
