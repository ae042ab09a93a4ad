// Small helpers shared by the ControllerCore's source files; not part of
// its interface.
#pragma once

#include <string>
#include <vector>

#include "common/hostlist/hostlist.h"
#include "controller/select/cluster.h"

namespace gantry::core::detail {

inline constexpr const char* kNotAvailable = "Requested node configuration is not available";

inline std::string nodeListOf(const std::vector<std::string>& names) { return hostlist::compress(names); }

// CPUs (hardware threads) a grant gives on its node.
inline int cpusOf(const select::NodeGrant& grant, const select::NodeInfo& node) {
  if (!grant.cpus.empty()) return static_cast<int>(grant.cpus.size());
  return static_cast<int>(grant.cores.size()) * node.threadsPerCore;
}

}  // namespace gantry::core::detail
