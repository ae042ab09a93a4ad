// What the node agent puts in a step's spec.json for usage accounting: the
// `accounting` key, which tells gantrystepd to sample its tasks' usage, how
// often, which TRES are tracked and who may read GPU usage. The agent reads
// the same gantry.conf, gres.conf and cgroup.conf as the controller. Pure;
// the settings are built at start and on reconfigure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/config/gantry_conf.h"
#include "gantry/v1/agent.pb.h"
#include "nodeagent/detect/hardware.h"

namespace gantry::agent {

// What detection found of one GPU of the node, for telling its vendor and
// whether it is a MIG instance (the controller's view of a device does not
// say either reliably).
struct DetectedGpuFacts {
  std::string uuid;
  std::string pciBusId;
  std::string vendor;  // "nvidia" or "amd"
  bool isMig = false;
};

struct StepAccountingSettings {
  bool gatherOn = false;       // JobAcctGatherType is not jobacct_gather/none
  int intervalSec = 30;        // JobAcctGatherFrequency task=
  std::vector<std::string> trackedTres;  // accounting::TrackedTres::names()
  bool disableGpuAcct = false;  // JobAcctGatherParams=DisableGPUAcct
  std::string gpuPlugin;        // detect::selectedGpuPlugin ("" = none)
  std::vector<DetectedGpuFacts> detectedGpus;  // empty without AutoDetect
};

std::vector<DetectedGpuFacts> detectedGpuFacts(const std::vector<detect::DetectedGpu>& detected);

// From the configuration and the GPU plugin AutoDetect selected on this
// node. An AccountingStorageTRES the controller would refuse (it is checked
// when gantry.conf loads) tracks only the always-tracked TRES here.
StepAccountingSettings stepAccountingSettings(const config::GantryConf& conf, const std::string& gpuPlugin,
                                              std::vector<DetectedGpuFacts> detectedGpus);

// The "accounting" key to merge into the step's spec.json; an empty object
// when usage is not gathered (gantrystepd then samples nothing), and for
// the extern step, which runs no task. Each of the step's GPUs is listed
// with its vendor and MIG status as detection found the GPU of the same UUID
// (or else PCI bus id); a GPU detection did not find keeps the vendor the
// controller sent, and is a MIG instance when its UUID starts with "MIG-"
// (NVIDIA's naming).
// `constrainDevices`: cgroup.conf ConstrainDevices under task/cgroup.
nlohmann::json stepAccountingKeys(const StepAccountingSettings& settings, const v1::LaunchStepRequest& step,
                                  bool constrainDevices);

}  // namespace gantry::agent
