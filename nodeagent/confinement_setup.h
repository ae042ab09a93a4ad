// The agent's start-up side of confinement: reads cgroup.conf and
// resctrl.yaml, creates the resctrl groups, and gathers what every step's
// spec needs (cgroup settings, GPU files and sockets).
#pragma once

#include <string>
#include <vector>

#include "common/config/gantry_conf.h"
#include "common/util/result.h"
#include "nodeagent/hardware_report.h"
#include "nodeagent/launch/step_confinement.h"

namespace gantry::agent {

struct ConfinementSetupOptions {
  std::string confDir;
  std::string hostRoot = "/";
  std::string nodeName;
};

// Fails (the agent must not start) when cgroup.conf or resctrl.yaml does not
// load, or when the resctrl groups cannot be created as the file says.
// `log` gets one line per decision worth an administrator's attention.
Result<ConfinementSettings> prepareConfinement(const config::GantryConf& conf, const HardwareReport& hardware,
                                               const ConfinementSetupOptions& options,
                                               std::vector<std::string>* log);

}  // namespace gantry::agent
