// The agent's side of the GPU library lifetime (nodeagent/detect/gpu_library.h):
// after detection, keep the selected plugin's library open for the agent's
// lifetime when AcctGatherEnergyType=acct_gather_energy/gpu asks for it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/config/gantry_conf.h"
#include "nodeagent/detect/gpu_library.h"
#include "nodeagent/hardware_report.h"
#include "nodeagent/launch/step_gpu_library.h"

namespace gantry::agent {

// The hold, or nullopt when no library is to be kept (or it cannot be: the
// agent then runs on, with the node's energy at zero). `log` gets one line
// saying which it is, naming the plugin and the library.
std::optional<detect::GpuLibraryHold> holdGpuLibrary(const config::GantryConf& conf, const HardwareReport& hardware,
                                                     const ReportOptions& options, std::vector<std::string>* log);

// What decides, per step, which library its launcher holds: the selected
// plugin, the accounting settings of `conf`, and the same dlopen names the
// agent uses (so a test's fake reaches gantrystepd too).
StepGpuLibrarySettings stepGpuLibrarySettings(const config::GantryConf& conf, const HardwareReport& hardware,
                                              const ReportOptions& options);

}  // namespace gantry::agent
