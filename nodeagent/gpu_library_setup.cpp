#include "nodeagent/gpu_library_setup.h"

#include <cstdlib>

namespace gantry::agent {
namespace {

// The dlopen name as collectHardware() chose it: the option, else the
// environment variable, else the vendor's own name.
std::string libraryOverride(const std::string& given, const char* variable) {
  if (!given.empty()) return given;
  const char* value = std::getenv(variable);
  return value != nullptr ? value : "";
}

}  // namespace

std::optional<detect::GpuLibraryHold> holdGpuLibrary(const config::GantryConf& conf, const HardwareReport& hardware,
                                                     const ReportOptions& options, std::vector<std::string>* log) {
  std::string plugin = detect::selectedGpuPlugin(hardware.node.autoDetect, hardware.node.detected);
  std::string held = detect::agentHeldLibrary(plugin, conf.acctGatherEnergyType);
  auto say = [&](const std::string& line) {
    if (log) log->push_back(line);
  };
  if (held.empty()) {
    say("gpu: no GPU management library kept loaded after detection (plugin " +
        (plugin.empty() ? std::string("none") : "gpu/" + plugin) + ", AcctGatherEnergyType=" +
        conf.acctGatherEnergyType + ")");
    return std::nullopt;
  }
  detect::DetectOptions detectOptions;
  detectOptions.nvmlLibrary = libraryOverride(options.nvmlLibrary, "GANTRY_NVML_LIBRARY");
  detectOptions.rsmiLibrary = libraryOverride(options.rsmiLibrary, "GANTRY_RSMI_LIBRARY");
  auto hold = detect::GpuLibraryHold::open(held, detectOptions);
  if (!hold) {
    say("gpu: cannot keep the library of gpu/" + held + " loaded for AcctGatherEnergyType=" +
        conf.acctGatherEnergyType + ": " + hold.error() + "; node energy stays at zero");
    return std::nullopt;
  }
  say("gpu: keeping " + hold->describe() + " loaded for AcctGatherEnergyType=" + conf.acctGatherEnergyType);
  return std::move(hold.value());
}

StepGpuLibrarySettings stepGpuLibrarySettings(const config::GantryConf& conf, const HardwareReport& hardware,
                                              const ReportOptions& options) {
  return {.selectedPlugin = detect::selectedGpuPlugin(hardware.node.autoDetect, hardware.node.detected),
          .accountingOn = conf.jobAcctGatherType != "jobacct_gather/none",
          .disableGpuAcct = conf.disableGpuAcct,
          .nvmlLibrary = libraryOverride(options.nvmlLibrary, "GANTRY_NVML_LIBRARY"),
          .rsmiLibrary = libraryOverride(options.rsmiLibrary, "GANTRY_RSMI_LIBRARY")};
}

}  // namespace gantry::agent
