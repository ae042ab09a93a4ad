// Reconciling one device GRES of a registration with the node's saved device
// order (gres.md "Saved Device Order and Absent Devices"): which index each
// reported device takes, which slots are empty, which drains follow their devices, and what it means for the node.
//
// Pure: no I/O, no clock. The core calls it once per device GRES (gpu, nic,
// ...) of a registration, with the record it stores for the node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "controller/drain/drain_command.h"
#include "controller/drain/drained_tres.h"

namespace gantry::drain {

// One device as the agent reports it, in the agent's order.
struct ReportedDevice {
  std::string type;
  std::string uuid;  // "" when the device has none
  uint64_t count = 1;
};

struct GresRegistration {
  std::string gres = "gpu";
  uint64_t configuredCount = 0;         // gantry.conf Gres= count of this name, all types together
  std::vector<ReportedDevice> devices;  // empty: the agent found none (a driver that failed to load)
};

struct OrderOptions {
  bool drainAbsentGres = false;  // SlurmctldParameters=drain_absent_gres
};

// What the registration means for the node, as far as this GRES goes.
enum class NodeEffect {
  None,      // nothing of this GRES is drained
  Degraded,  // some of it is drained; the node stays up (MaxDrainedTres still decides)
  Drain,     // drain the node with `reason` (an order that does not fit)
  Invalid,   // the registration is not valid for the node; drained with `reason`
};

struct OrderOutcome {
  DrainedTres record;
  NodeEffect effect = NodeEffect::None;
  std::string reason;               // for Drain and Invalid
  bool clearsOrderDrain = false;    // a report fits again: lift the node's order mismatch drain
  std::vector<NodeDevice> devices;  // this GRES's indexes as commands and selection see them
};

OrderOutcome reconcileDeviceOrder(const DrainedTres& record, const GresRegistration& registration,
                                  const OrderOptions& options);

}  // namespace gantry::drain
