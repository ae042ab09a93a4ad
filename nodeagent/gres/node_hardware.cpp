#include "nodeagent/gres/node_hardware.h"

#include "common/config/gres_conf.h"
#include "nodeagent/detect/dmem.h"

namespace gantry::nodegres {

Result<NodeHardware> loadNodeHardware(const NodeHardwareOptions& options) {
  NodeHardware hw;
  config::GresConf gresConf;
  if (!options.gresConfPath.empty()) {
    auto loaded = config::loadGresConf(options.gresConfPath, options.nodeName);
    if (!loaded) return Error{loaded.error()};
    gresConf = std::move(loaded.value());
  }

  detect::DetectOptions detectOptions;
  detectOptions.hostRoot = options.hostRoot;
  detectOptions.parameters = options.parameters;
  detectOptions.nvmlLibrary = options.nvmlLibrary;
  detectOptions.rsmiLibrary = options.rsmiLibrary;
  detectOptions.autoDetect = options.autoDetectOverride.empty() ? std::string(config::toString(gresConf.autoDetect))
                                                                : options.autoDetectOverride;
  hw.autoDetect = detectOptions.autoDetect;

  auto topology = detect::detectCpus(detectOptions);
  if (!topology) return Error{topology.error()};
  hw.topology = std::move(topology.value());
  auto gpus = detect::detectGpus(detectOptions, hw.topology, &hw.detectLog);
  if (!gpus) return Error{gpus.error()};
  hw.detected = std::move(gpus.value());

  MergeInput input;
  input.nodeName = options.nodeName;
  input.gresConf = &gresConf;
  input.detected = hw.detected;
  input.topology = hw.topology;
  input.configuredTopology = options.configuredTopology;
  input.nodeGres = options.nodeGres;
  input.dmem.constrainDeviceMemory = options.constrainDeviceMemory;
  input.dmem.hostRoot = options.hostRoot;
  if (options.constrainDeviceMemory) {
    auto regions = detect::readDmemRegions(options.hostRoot, options.cgroupRoot);
    if (!regions) return Error{regions.error()};
    input.dmem.regions = std::move(regions.value());
    detect::attachDmemRegions(hw.detected, input.dmem.regions);
  }
  auto merged = mergeGres(input);
  if (!merged) return Error{merged.error()};
  hw.merged = std::move(merged.value());
  for (const auto& w : gresConf.warnings) hw.merged.warnings.insert(hw.merged.warnings.begin(), w.toString());
  return hw;
}

}  // namespace gantry::nodegres
