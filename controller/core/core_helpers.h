// Small helpers shared by the ControllerCore's source files; not part of
// its interface.
#pragma once

#include <string>
#include <vector>

#include "common/accounting/tres_usage.h"
#include "common/config/gantry_conf.h"
#include "common/hostlist/hostlist.h"
#include "controller/select/cluster.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::core::detail {

inline constexpr const char* kNotAvailable = "Requested node configuration is not available";

inline std::string nodeListOf(const std::vector<std::string>& names) { return hostlist::compress(names); }

// CPUs (hardware threads) a grant gives on its node.
inline int cpusOf(const select::NodeGrant& grant, const select::NodeInfo& node) {
  if (!grant.cpus.empty()) return static_cast<int>(grant.cpus.size());
  return static_cast<int>(grant.cores.size()) * node.threadsPerCore;
}

// What a step's tasks used on the reporting node, from its StepComplete.
std::vector<accounting::TaskUsageSample> usageSamplesOf(const v1::StepCompleteRequest& request);

// PrologFlags=Contain: every job gets an extern step on each of its nodes.
bool wantsExternStep(const config::GantryConf& conf);

}  // namespace gantry::core::detail
