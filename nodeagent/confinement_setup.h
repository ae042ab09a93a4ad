// The agent's start-up side of confinement: reads cgroup.conf and
// resctrl.yaml, creates the resctrl groups, and gathers what every step's
// spec needs (cgroup settings, GPU files and sockets).
#pragma once

#include <string>
#include <vector>

#include "common/config/cgroup_conf.h"
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
// `log` gets one line per decision worth an administrator's attention;
// `warnings` (may be null) what is configured but cannot be honoured here,
// like ConstrainDevices=yes on a node that cannot confine devices (steps
// then run without the device filter).
Result<ConfinementSettings> prepareConfinement(const config::GantryConf& conf, const HardwareReport& hardware,
                                               const ConfinementSetupOptions& options,
                                               std::vector<std::string>* log,
                                               std::vector<std::string>* warnings = nullptr);

// Why ConstrainDevices=yes cannot be honoured on this node, "" when it can
// or is not set (device_confinement_check.h). Used by prepareConfinement()
// and by the start-up checks of `gantryd --check-config`.
std::string deviceConfinementProblemFor(const config::GantryConf& conf, const config::CgroupConf& cgroup,
                                        const HardwareReport& hardware, const std::string& hostRoot);

}  // namespace gantry::agent
