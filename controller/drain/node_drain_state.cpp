#include "controller/drain/node_drain_state.h"

#include <algorithm>

namespace gantry::drain {

bool nodeIsDegraded(const DrainedTres& record) { return anythingDrained(record); }

NodeStateOutcome applyNodeStateUpdate(const DrainedTres& record, NodeStateUpdate update, const std::string& nodeName) {
  NodeStateOutcome out{record, true, {}, {}};
  if (update != NodeStateUpdate::Resume) {
    // The node's own drain goes; an order mismatch drain is one of those, and
    // the next registration that does not fit sets it again.
    out.record.orderMismatch.clear();
    return out;
  }
  // Dropping an order forgets its slots, empty ones included: the operator
  // has accepted what the agent reports, and the next registration saves it.
  for (const std::string& gres : record.orderMismatch) {
    std::erase_if(out.record.savedOrders, [&](const SavedOrder& o) { return o.gres == gres; });
    std::erase_if(out.record.devices, [&](const DeviceDrain& d) { return d.gres == gres; });
    out.droppedOrders.push_back(gres);
  }
  out.record.orderMismatch.clear();
  std::erase_if(out.record.devices, [&](const DeviceDrain& drain) {
    if (!onEmptySlot(out.record, drain)) return true;
    out.leftDrained.push_back("gres/" + drain.gres + " index " + std::to_string(drain.index) + " of " + nodeName +
                              " stays drained: no device there");
    return false;
  });
  out.record.cpus.clear();
  out.record.counts.clear();
  return out;
}

}  // namespace gantry::drain
