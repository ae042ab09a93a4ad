// The selection library's view of a node, from its record: the registered
// hardware when the node has ever registered (kept across controller
// restarts), otherwise what gantry.conf promises, so that requests for GPUs
// are judged and queued before the first registration instead of refused.
#pragma once

#include "controller/core/records.h"
#include "controller/drain/drain_command.h"
#include "controller/select/cluster.h"

namespace gantry::core {

// A device GRES with a saved device order is laid out by it (drained_tres.h):
// a device at its saved index, an empty slot as a device with no file.
select::NodeInfo selectInfoFor(const NodeRecord& node);

// What of the node is drained, in selection's terms, for `info` =
// selectInfoFor(node): the devices (every empty slot among them) and the
// cpus, memory and count-only GRES.
struct SelectDrains {
  gres::DeviceMask devices = 0;
  select::ResourceDrains resources;
};
SelectDrains selectDrainsFor(const NodeRecord& node, const select::NodeInfo& info);

// The node as drain commands see it (drain_command.h): its device indexes
// per GRES (saved slots, empty ones included), count-only GRES, shared GRES
// names, cores and memory.
drain::NodeResources drainResourcesFor(const NodeRecord& node, const select::NodeInfo& info);

}  // namespace gantry::core
