// Per-device drains of cpus, memory and count-only GRES as selection sees
// them: the node's usage with the drained part taken out of service.
// Internal to the select library.
#pragma once

#include "controller/select/node_state.h"

namespace gantry::select {

// The drains kept to what the node has: cpus within its cpu count (sorted,
// once each), counts of GRES it offers (by key, or by name for an untyped
// key), no zero amounts.
ResourceDrains fitResourceDrains(const NodeState& node, ResourceDrains drains);

// `usage` as new work sees it under `drains`: drained cpus are not free and
// open to no sharer (whoever holds one keeps it), and the drained memory and
// counts are recorded for the planner to subtract. A drained count with an
// untyped key covers the entries of that name in order, each up to its count.
NodeUsage withResourceDrains(const NodeState& node, const NodeUsage& usage, const ResourceDrains& drains);

// Recomputes node.openUsage from node.usage (after a commit or release);
// nothing to do for a node without resource drains.
void refreshOpenUsage(NodeState& node);

// Stores the fitted drains and rebuilds both views (openUsage, openIdle).
void setNodeResourceDrains(NodeState& node, ResourceDrains drains);

}  // namespace gantry::select
