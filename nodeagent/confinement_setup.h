// The agent's start-up side of confinement: reads cgroup.conf and gathers
// what every step's spec needs (cgroup settings, GPU files and sockets);
// apart from that, reads resctrl.yaml and creates the resctrl groups.
#pragma once

#include <optional>
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

// Fails (the agent must not start) when cgroup.conf does not load. Leaves
// resctrlRoot unset: prepareResctrl decides it. `log` gets one line per
// decision worth an administrator's attention; `warnings` (may be null)
// what is configured but cannot be honoured here, like ConstrainDevices=yes
// on a node that cannot confine devices (steps then run without the device
// filter).
Result<ConfinementSettings> prepareConfinement(const config::GantryConf& conf, const HardwareReport& hardware,
                                               const ConfinementSetupOptions& options,
                                               std::vector<std::string>* log,
                                               std::vector<std::string>* warnings = nullptr);

// Why ConstrainDevices=yes cannot be honoured on this node, "" when it can
// or is not set (device_confinement_check.h). Used by prepareConfinement()
// and by the start-up checks of `gantryd --check-config`.
std::string deviceConfinementProblemFor(const config::GantryConf& conf, const config::CgroupConf& cgroup,
                                        const HardwareReport& hardware, const std::string& hostRoot);

// task/resctrl alone: with the plugin in TaskPlugin and resctrl.yaml present
// on a kernel with resctrl, creates the groups and gives their root; nullopt
// when the agent manages no groups (no plugin, no file, no kernel support).
// Fails when resctrl.yaml does not load or the groups cannot be set up.
Result<std::optional<std::string>> prepareResctrl(const config::GantryConf& conf,
                                                  const ConfinementSetupOptions& options,
                                                  std::vector<std::string>* log);

}  // namespace gantry::agent
