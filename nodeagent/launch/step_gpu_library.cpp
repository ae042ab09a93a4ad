#include "nodeagent/launch/step_gpu_library.h"

#include <algorithm>

#include "nodeagent/detect/gpu_library.h"

namespace gantry::agent {

nlohmann::json stepGpuLibraryKeys(const StepGpuLibrarySettings& settings, const v1::LaunchStepRequest& step) {
  nlohmann::json keys = nlohmann::json::object();
  if (step.step_id() == "extern") return keys;  // it runs no task
  if (!step.gpu_freq().empty()) keys["gpu_freq"] = step.gpu_freq();
  // "Requested a gpu": whole GPUs; shares (mps, shard) are not GPUs asked for.
  const bool hasGpu = std::any_of(step.gpus().begin(), step.gpus().end(),
                                  [](const v1::StepGpu& gpu) { return gpu.name() == "gpu"; });
  const detect::StepGpuUse accounting{.stepHasGpu = hasGpu,
                                      .accountingOn = settings.accountingOn,
                                      .disableGpuAcct = settings.disableGpuAcct};
  const detect::StepGpuUse frequency{.gpuFreqRequested = !step.gpu_freq().empty()};
  const bool forAccounting = !detect::stepHeldLibrary(settings.selectedPlugin, accounting).empty();
  const bool forFrequency = !detect::stepHeldLibrary(settings.selectedPlugin, frequency).empty();
  if (!forAccounting && !forFrequency) return keys;
  std::string purpose = forFrequency && forAccounting ? "--gpu-freq and GPU accounting"
                        : forFrequency                ? "--gpu-freq"
                                                      : "GPU accounting";
  const std::string& plugin = settings.selectedPlugin;
  std::string library = plugin == "nvml" ? settings.nvmlLibrary : plugin == "rsmi" ? settings.rsmiLibrary : "";
  keys["gpu_library"] = {{"plugin", plugin}, {"library", library}, {"purpose", purpose}};
  return keys;
}

}  // namespace gantry::agent
