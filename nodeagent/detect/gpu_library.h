// Who keeps a GPU management library (NVML, ROCm SMI) loaded, and for how
// long. Detection opens the library and closes it before the agent starts
// serving, so other processes may reset the GPUs or unload their drivers.
// Two rules keep one open longer; both are written here as functions of the
// configuration so each can be tested, and GpuLibraryHold is the one object
// that owns a library kept open: loaded and started while it lives, shut down
// and unloaded when it goes.
#pragma once

#include <string>

#include "common/util/result.h"
#include "nodeagent/detect/hardware.h"
#include "nodeagent/detect/shared_library.h"

namespace gantry::detect {

// The GPU plugin AutoDetect selected: the mechanism named, or under
// AutoDetect=full the one that found the first device ("" when none did, or
// AutoDetect is off).
std::string selectedGpuPlugin(const std::string& autoDetect, const std::vector<DetectedGpu>& detected);

// The library the agent keeps for its lifetime: with
// AcctGatherEnergyType=acct_gather_energy/gpu, the library of the selected
// plugin ("nvml" or "rsmi"); "" otherwise (and for the driver-only plugins
// nvidia, amd, nrt, which load none).
std::string agentHeldLibrary(const std::string& selectedPlugin, const std::string& acctGatherEnergyType);

struct StepGpuUse {
  bool stepHasGpu = false;        // the step was allocated a GPU on this node
  bool gpuFreqRequested = false;  // --gpu-freq
  bool accountingOn = false;      // JobAcctGatherType is not jobacct_gather/none
  bool disableGpuAcct = false;    // JobAcctGatherParams=DisableGPUAcct
};

// The library a step's launcher loads and holds for the step: "nvml" or
// "rsmi" for GPU usage accounting of a step with a GPU (unless
// DisableGPUAcct), or to set --gpu-freq (also "oneapi", which this build
// cannot load); "" when it loads none.
std::string stepHeldLibrary(const std::string& selectedPlugin, const StepGpuUse& use);

class GpuLibraryHold {
 public:
  // Loads the library of `plugin` ("nvml" or "rsmi"; the names and test
  // overrides of `options`) and starts it. Fails naming the library.
  static Result<GpuLibraryHold> open(const std::string& plugin, const DetectOptions& options);
  GpuLibraryHold(GpuLibraryHold&& other) noexcept;
  GpuLibraryHold& operator=(GpuLibraryHold&&) = delete;
  GpuLibraryHold(const GpuLibraryHold&) = delete;
  GpuLibraryHold& operator=(const GpuLibraryHold&) = delete;
  ~GpuLibraryHold();  // shuts the library down, then unloads it

  const std::string& plugin() const { return plugin_; }
  const std::string& libraryName() const { return library_.name(); }
  // The loaded library, for the usage calls a step's launcher makes.
  const SharedLibrary& library() const { return library_; }
  // "NVML (libnvidia-ml.so.1)" for log lines.
  std::string describe() const;

 private:
  using ShutdownFn = int (*)();
  GpuLibraryHold(std::string plugin, SharedLibrary library, ShutdownFn shutdown)
      : plugin_(std::move(plugin)), library_(std::move(library)), shutdown_(shutdown) {}
  std::string plugin_;
  SharedLibrary library_;
  ShutdownFn shutdown_ = nullptr;  // null once moved from
};

}  // namespace gantry::detect
