// The selection library's view of a node, from its record: the registered
// hardware when the node has ever registered (kept across controller
// restarts), otherwise what gantry.conf promises, so that requests for GPUs
// are judged and queued before the first registration instead of refused.
#pragma once

#include "controller/core/records.h"
#include "controller/select/cluster.h"

namespace gantry::core {

select::NodeInfo selectInfoFor(const NodeRecord& node);

}  // namespace gantry::core
