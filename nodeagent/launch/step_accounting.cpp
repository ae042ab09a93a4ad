#include "nodeagent/launch/step_accounting.h"

#include <algorithm>

#include "common/accounting/tracked_tres.h"

namespace gantry::agent {

namespace {

const DetectedGpuFacts* detectedFor(const std::vector<DetectedGpuFacts>& detected, const v1::StepGpu& gpu) {
  for (const auto& facts : detected)
    if (!gpu.uuid().empty() && facts.uuid == gpu.uuid()) return &facts;
  for (const auto& facts : detected)
    if (!gpu.pci_bus_id().empty() && !facts.isMig && facts.pciBusId == gpu.pci_bus_id()) return &facts;
  return nullptr;
}

nlohmann::json gpuEntry(const std::vector<DetectedGpuFacts>& detected, const v1::StepGpu& gpu) {
  const DetectedGpuFacts* facts = detectedFor(detected, gpu);
  const bool mig = facts ? facts->isMig : gpu.uuid().rfind("MIG-", 0) == 0;
  return {{"index", gpu.index()}, {"vendor", facts ? facts->vendor : gpu.vendor()}, {"mig", mig}};
}

}  // namespace

std::vector<DetectedGpuFacts> detectedGpuFacts(const std::vector<detect::DetectedGpu>& detected) {
  std::vector<DetectedGpuFacts> facts;
  for (const auto& gpu : detected)
    facts.push_back({.uuid = gpu.uuid, .pciBusId = gpu.pciBusId, .vendor = gpu.vendor, .isMig = gpu.isMig});
  return facts;
}

StepAccountingSettings stepAccountingSettings(const config::GantryConf& conf, const std::string& gpuPlugin,
                                              std::vector<DetectedGpuFacts> detectedGpus) {
  auto tracked = accounting::trackedTresFrom(conf.accountingStorageTres);
  return {.gatherOn = conf.jobAcctGatherType != "jobacct_gather/none",
          .intervalSec = conf.jobAcctGatherTaskSec,
          .trackedTres = tracked ? tracked->names() : accounting::TrackedTres().names(),
          .disableGpuAcct = conf.disableGpuAcct,
          .gpuPlugin = gpuPlugin,
          .detectedGpus = std::move(detectedGpus)};
}

nlohmann::json stepAccountingKeys(const StepAccountingSettings& settings, const v1::LaunchStepRequest& step,
                                  bool constrainDevices) {
  nlohmann::json keys = nlohmann::json::object();
  if (!settings.gatherOn || step.step_id() == "extern") return keys;
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& gpu : step.gpus()) gpus.push_back(gpuEntry(settings.detectedGpus, gpu));
  keys["accounting"] = {{"interval_sec", std::max(0, settings.intervalSec)},
                        {"tracked_tres", settings.trackedTres},
                        {"disable_gpu_acct", settings.disableGpuAcct},
                        {"gpu_plugin", settings.gpuPlugin},
                        {"gpus", gpus},
                        {"constrain_devices", constrainDevices},
                        // The step's cgroup is always a cgroup v2 one (stepd/cgroup).
                        {"cgroup_version", 2}};
  return keys;
}

}  // namespace gantry::agent
