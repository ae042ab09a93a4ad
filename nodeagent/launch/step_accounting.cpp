#include "nodeagent/launch/step_accounting.h"

#include <algorithm>

#include "common/accounting/tracked_tres.h"

namespace gantry::agent {

StepAccountingSettings stepAccountingSettings(const config::GantryConf& conf, const std::string& gpuPlugin) {
  auto tracked = accounting::trackedTresFrom(conf.accountingStorageTres);
  return {.gatherOn = conf.jobAcctGatherType != "jobacct_gather/none",
          .intervalSec = conf.jobAcctGatherTaskSec,
          .trackedTres = tracked ? tracked->names() : accounting::TrackedTres().names(),
          .disableGpuAcct = conf.disableGpuAcct,
          .gpuPlugin = gpuPlugin};
}

nlohmann::json stepAccountingKeys(const StepAccountingSettings& settings, const v1::LaunchStepRequest& step,
                                  bool constrainDevices) {
  nlohmann::json keys = nlohmann::json::object();
  if (!settings.gatherOn || step.step_id() == "extern") return keys;
  std::vector<int> migGpus;
  for (const auto& gpu : step.gpus())
    if (gpu.uuid().rfind("MIG-", 0) == 0) migGpus.push_back(gpu.index());
  keys["accounting"] = {{"interval_sec", std::max(0, settings.intervalSec)},
                        {"tracked_tres", settings.trackedTres},
                        {"disable_gpu_acct", settings.disableGpuAcct},
                        {"gpu_plugin", settings.gpuPlugin},
                        {"mig_gpus", migGpus},
                        {"constrain_devices", constrainDevices},
                        // The step's cgroup is always a cgroup v2 one (stepd/cgroup).
                        {"cgroup_version", 2}};
  return keys;
}

}  // namespace gantry::agent
