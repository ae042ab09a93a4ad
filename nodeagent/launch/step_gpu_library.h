// What the node agent puts in a step's spec.json about GPU management
// libraries: the step's --gpu-freq, and the library its launcher loads and
// holds for the step (detect::stepHeldLibrary: GPU usage accounting of a
// step with a GPU, or --gpu-freq), with the dlopen name the agent itself
// uses. Pure; the settings are built once at start and on reconfigure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gantry/v1/agent.pb.h"

namespace gantry::agent {

struct StepGpuLibrarySettings {
  std::string selectedPlugin;  // the GPU plugin AutoDetect selected ("" = none)
  bool accountingOn = false;   // JobAcctGatherType is not jobacct_gather/none
  bool disableGpuAcct = false;  // JobAcctGatherParams=DisableGPUAcct
  std::string nvmlLibrary, rsmiLibrary;  // the agent's dlopen overrides ("" = vendor names)
};

// The "gpu_freq" and "gpu_library" keys to merge into the step's spec.json;
// an empty object when the step asks for neither.
nlohmann::json stepGpuLibraryKeys(const StepGpuLibrarySettings& settings, const v1::LaunchStepRequest& step);

}  // namespace gantry::agent
