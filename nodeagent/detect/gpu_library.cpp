#include "nodeagent/detect/gpu_library.h"

#include <utility>

#include "nodeagent/detect/nvml_abi.h"
#include "nodeagent/detect/rsmi_abi.h"

namespace gantry::detect {
namespace {

bool loadsLibrary(const std::string& plugin) { return plugin == "nvml" || plugin == "rsmi"; }

std::vector<std::string> libraryNames(const std::string& plugin, const DetectOptions& options) {
  if (plugin == "nvml") {
    if (!options.nvmlLibrary.empty()) return {options.nvmlLibrary};
    return {"libnvidia-ml.so.1", "libnvidia-ml.so"};
  }
  if (!options.rsmiLibrary.empty()) return {options.rsmiLibrary};
  return {"librocm_smi64.so", "librocm_smi64.so.1", "librocm_smi64.so.7"};
}

}  // namespace

std::string selectedGpuPlugin(const std::string& autoDetect, const std::vector<DetectedGpu>& detected) {
  if (autoDetect == "full") return detected.empty() ? "" : detected.front().mechanism;
  if (autoDetect == "off") return "";
  return autoDetect;
}

std::string agentHeldLibrary(const std::string& selectedPlugin, const std::string& acctGatherEnergyType) {
  if (acctGatherEnergyType != "acct_gather_energy/gpu") return "";
  return loadsLibrary(selectedPlugin) ? selectedPlugin : "";
}

std::string stepHeldLibrary(const std::string& selectedPlugin, const StepGpuUse& use) {
  bool accounting = use.stepHasGpu && use.accountingOn && !use.disableGpuAcct && loadsLibrary(selectedPlugin);
  bool frequency = use.gpuFreqRequested && (loadsLibrary(selectedPlugin) || selectedPlugin == "oneapi");
  return accounting || frequency ? selectedPlugin : "";
}

Result<GpuLibraryHold> GpuLibraryHold::open(const std::string& plugin, const DetectOptions& options) {
  if (!loadsLibrary(plugin)) return Error{"gpu/" + plugin + " loads no GPU management library"};
  auto library = SharedLibrary::open(libraryNames(plugin, options));
  if (!library) return Error{"gpu/" + plugin + ": cannot load its library: " + library.error()};
  if (plugin == "nvml") {
    auto init = library->symbol<nvmlInit_v2_fn>("nvmlInit_v2");
    auto shutdown = library->symbol<nvmlShutdown_fn>("nvmlShutdown");
    if (!init || !shutdown) return Error{"gpu/nvml: " + library->name() + " lacks nvmlInit_v2 or nvmlShutdown"};
    if (int rc = init(); rc != kNvmlSuccess) {
      return Error{"gpu/nvml: nvmlInit_v2 failed (NVML error " + std::to_string(rc) + ")"};
    }
    return GpuLibraryHold(plugin, std::move(*library), shutdown);
  }
  auto init = library->symbol<rsmi_init_fn>("rsmi_init");
  auto shutdown = library->symbol<rsmi_shut_down_fn>("rsmi_shut_down");
  if (!init || !shutdown) return Error{"gpu/rsmi: " + library->name() + " lacks rsmi_init or rsmi_shut_down"};
  if (int rc = init(0); rc != kRsmiSuccess) {
    return Error{"gpu/rsmi: rsmi_init failed (ROCm SMI status " + std::to_string(rc) + ")"};
  }
  return GpuLibraryHold(plugin, std::move(*library), shutdown);
}

GpuLibraryHold::GpuLibraryHold(GpuLibraryHold&& other) noexcept
    : plugin_(std::move(other.plugin_)),
      library_(std::move(other.library_)),
      shutdown_(std::exchange(other.shutdown_, nullptr)) {}

GpuLibraryHold::~GpuLibraryHold() {
  if (shutdown_) shutdown_();
}

std::string GpuLibraryHold::describe() const {
  return std::string(plugin_ == "nvml" ? "NVML" : "ROCm SMI") + " (" + library_.name() + ")";
}

}  // namespace gantry::detect
