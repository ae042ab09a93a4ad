#include "stepd/gpu/step_gpu_library.h"

namespace gantry::stepd {

std::optional<detect::GpuLibraryHold> holdStepGpuLibrary(const GpuLibrarySpec* spec, const StepLogLine& log) {
  if (spec == nullptr) return std::nullopt;
  detect::DetectOptions options;
  if (spec->plugin == "nvml") options.nvmlLibrary = spec->library;
  if (spec->plugin == "rsmi") options.rsmiLibrary = spec->library;
  const std::string purpose = spec->purpose.empty() ? "" : " for " + spec->purpose;
  auto hold = detect::GpuLibraryHold::open(spec->plugin, options);
  if (!hold) {
    log("gpu: cannot hold a GPU library" + purpose + ": " + hold.error() + "; the step runs without it");
    return std::nullopt;
  }
  log("gpu: holding " + hold->describe() + purpose);
  return std::move(hold.value());
}

void releaseStepGpuLibrary(std::optional<detect::GpuLibraryHold>& hold, const StepLogLine& log) {
  if (!hold) return;
  const std::string described = hold->describe();
  hold.reset();
  log("gpu: released " + described);
}

}  // namespace gantry::stepd
