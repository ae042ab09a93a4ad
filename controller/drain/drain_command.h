// Applying one drain request to one node's record: every rule of gres.md
// "Draining GRES" that needs the node (which TRES it has, which devices exist,
// which slots are empty). A refused request changes nothing.
//
// Pure: no I/O, no clock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/util/result.h"
#include "controller/drain/drain_request.h"
#include "controller/drain/drained_tres.h"

namespace gantry::drain {

// One device index of a device GRES on the node. With a saved order these are
// its slots, empty ones included (present = false); otherwise the agent's devices.
struct NodeDevice {
  std::string gres;
  std::string type;
  int index = 0;
  std::string uuid;  // "" when the device has none
  bool present = true;
};

// A count-only GRES of the node with its configured total.
struct NodeCountedGres {
  std::string name;
  std::string type;
  uint64_t total = 0;
};

struct NodeResources {
  std::string nodeName;
  std::vector<NodeDevice> devices;
  std::vector<NodeCountedGres> counted;
  std::vector<std::string> sharedGres;  // names of shared GRES (shard, mps) offered on its GPUs
  int cores = 0;                        // cores of the node
  int threadsPerCore = 1;               // CPU id = core * threadsPerCore + thread
  uint64_t memoryMb = 0;                // RealMemory
};

// The devices of the node as the record's saved orders and the agent's report
// make them: the helper the wiring uses to build NodeResources.devices.
std::vector<NodeDevice> devicesFromSavedOrder(const SavedOrder& order);

struct CommandOutcome {
  DrainedTres record;  // the record after the request
  // One line per device the request leaves drained although it asked to
  // resume it (an empty slot): "gres/gpu index 2 of n1 stays drained: no device there".
  std::vector<std::string> leftDrained;
};

// Applies `request` (its nodes already expanded to this node) to `record`.
// Errors (kind Invalid) name the key and the node; the record is then
// unchanged. Resuming an empty slot by its index alone is refused; Index=ALL
// and SetDrain leave such slots drained and say so in leftDrained.
Result<CommandOutcome> applyDrainCommand(const DrainedTres& record, const NodeResources& node,
                                         const DrainRequest& request);

}  // namespace gantry::drain
