#include "controller/drain/drained_tres.h"

#include <algorithm>
#include <tuple>

#include "common/config/value_parse.h"

namespace gantry::drain {

std::string notFoundReason(const std::string& gresName) { return "gres/" + gresName + ":not_found"; }

bool typeNames(const std::string& named, const std::string& deviceType) {
  return named.empty() || config::icontains(deviceType, named);
}

bool anythingDrained(const DrainedTres& record) {
  return !record.devices.empty() || !record.cpus.empty() || !record.counts.empty();
}

const SavedOrder* savedOrderOf(const DrainedTres& record, const std::string& gres) {
  for (const SavedOrder& order : record.savedOrders) {
    if (order.gres == gres) return &order;
  }
  return nullptr;
}

SavedOrder* savedOrderOf(DrainedTres& record, const std::string& gres) {
  for (SavedOrder& order : record.savedOrders) {
    if (order.gres == gres) return &order;
  }
  return nullptr;
}

const DeviceDrain* deviceDrainAt(const DrainedTres& record, const std::string& gres, int index) {
  for (const DeviceDrain& drain : record.devices) {
    if (drain.gres == gres && drain.index == index) return &drain;
  }
  return nullptr;
}

bool onEmptySlot(const DrainedTres& record, const DeviceDrain& drain) {
  const SavedOrder* order = savedOrderOf(record, drain.gres);
  return order != nullptr && drain.index >= 0 && drain.index < static_cast<int>(order->slots.size()) &&
         !order->slots[drain.index].present;
}

void normalise(DrainedTres& record) {
  std::sort(record.devices.begin(), record.devices.end(), [](const DeviceDrain& a, const DeviceDrain& b) {
    return std::tie(a.gres, a.index) < std::tie(b.gres, b.index);
  });
  std::sort(record.cpus.begin(), record.cpus.end(), [](const CpuDrain& a, const CpuDrain& b) { return a.cpu < b.cpu; });
  std::erase_if(record.counts, [](const CountDrain& c) { return c.count == 0; });
  std::sort(record.counts.begin(), record.counts.end(),
            [](const CountDrain& a, const CountDrain& b) { return a.tres < b.tres; });
  std::sort(record.savedOrders.begin(), record.savedOrders.end(),
            [](const SavedOrder& a, const SavedOrder& b) { return a.gres < b.gres; });
  std::sort(record.orderMismatch.begin(), record.orderMismatch.end());
  record.orderMismatch.erase(std::unique(record.orderMismatch.begin(), record.orderMismatch.end()),
                             record.orderMismatch.end());
}

}  // namespace gantry::drain
