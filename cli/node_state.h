// Node states as sinfo prints them. The controller reports a base state
// with "+"-joined flags ("IDLE+DRAIN", "MIXED+DRAIN", "DOWN+NOT_RESPONDING");
// sinfo folds DRAIN into drained/draining and marks a node that stopped
// answering with '*'.
#pragma once

#include <string>

namespace gantry::cli {

// "idle", "mixed", "allocated", "drained", "draining", "down", ...
std::string nodeStateLong(const std::string& controllerState);
// "idle", "mix", "alloc", "drain", "drng", "down", ...
std::string nodeStateCompact(const std::string& controllerState);

}  // namespace gantry::cli
