#include "nodeagent/launch/step_confinement.h"

#include <algorithm>
#include <set>

#include "nodeagent/resctrl/group_choice.h"

namespace gantry::agent {

std::vector<int> socketsOfCores(const std::vector<int>& cores, const std::vector<std::vector<int>>& socketCores) {
  std::vector<int> sockets;
  for (size_t socket = 0; socket < socketCores.size(); ++socket) {
    const auto& members = socketCores[socket];
    bool touches = std::any_of(cores.begin(), cores.end(), [&](int core) {
      return std::find(members.begin(), members.end(), core) != members.end();
    });
    if (touches) sockets.push_back(static_cast<int>(socket));
  }
  return sockets;
}

Confinement confinementFor(const ConfinementSettings& settings, const v1::LaunchStepRequest& step) {
  Confinement out;
  if (settings.cgroup) {
    const CgroupSettings& c = *settings.cgroup;
    out.spec["cgroup"] = {{"root", c.root},
                          {"constrain_cores", c.constrainCores},
                          {"constrain_ram", c.constrainRam},
                          {"constrain_devices", c.constrainDevices},
                          {"constrain_device_memory", c.constrainDeviceMemory},
                          {"enable_controllers", c.enableControllers},
                          {"job_id_paths", c.jobIdPaths}};
    if (c.constrainDevices) out.spec["node_gpu_files"] = settings.nodeGpuFiles;
  }
  if (!settings.gresFlags.empty()) out.spec["gres_flags"] = settings.gresFlags;
  if (settings.taskAffinity) out.spec["task_affinity"] = true;
  out.spec["node_has_gpus"] = !settings.nodeGpuFiles.empty();
  if (!step.gpu_bind().empty()) {
    // closest and single follow the task's CPUs to the GPUs' sockets.
    out.spec["gpu_bind"] = step.gpu_bind();
    out.spec["gpu_sockets"] = settings.gpuSockets;
    out.spec["socket_cores"] = settings.socketCores;
  }
  if (settings.resctrlRoot) {
    // One group per job and node: chosen from every GPU the job holds here,
    // so each of its steps lands in the same group.
    resctrl::JobOnNode job;
    job.owns_whole_node = step.job_whole_node();
    job.socket_count = settings.socketCount;
    std::vector<int> indexes(step.job_gpu_indexes().begin(), step.job_gpu_indexes().end());
    if (indexes.empty()) {
      for (const auto& gpu : step.gpus()) indexes.push_back(gpu.index());
    }
    for (int index : indexes) {
      resctrl::GpuOnNode gpu{.device_index = index, .sockets = {}};
      if (index >= 0 && index < static_cast<int>(settings.gpuSockets.size())) gpu.sockets = settings.gpuSockets[index];
      job.gpus.push_back(std::move(gpu));
    }
    resctrl::GroupChoice choice = resctrl::chooseResctrlGroup(job);
    out.spec["resctrl"] = {{"root", *settings.resctrlRoot}, {"group", resctrl::groupName(choice.group)}};
    out.log = resctrl::placementLogLine(step.job_id(), settings.nodeName, choice);
  }
  return out;
}

}  // namespace gantry::agent
