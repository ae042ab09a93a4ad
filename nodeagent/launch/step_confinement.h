// What the node agent adds to a step's spec.json for confinement: the
// cgroup settings of cgroup.conf (with the node's GPU files, so
// ConstrainDevices can refuse the ones the step was not given) and the
// resctrl group the job joins on this node.
//
// Pure apart from the log lines it returns; the agent builds the settings
// once at start from its configuration and detected hardware.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gantry/v1/agent.pb.h"

namespace gantry::agent {

struct CgroupSettings {
  std::string root;  // the cgroup v2 mount point, host root applied
  bool constrainCores = false, constrainRam = false, constrainDevices = false;
  bool constrainDeviceMemory = false, enableControllers = false, jobIdPaths = false;
};

struct ConfinementSettings {
  std::string nodeName;
  std::optional<CgroupSettings> cgroup;  // set when TaskPlugin has task/cgroup
  std::optional<std::string> resctrlRoot;  // set when the agent manages resctrl groups
  std::vector<std::string> nodeGpuFiles;  // every GPU device file of the node
  int socketCount = 1;
  // Sockets each GPU is attached to, by GPU index (empty: unknown).
  std::vector<std::vector<int>> gpuSockets;
  std::vector<std::vector<int>> socketCores;  // cores of each socket (for --gpu-bind)
  std::vector<std::string> gresFlags;  // flags of the node's GPU records (env_uuid, amd_gpu_env, ...)
  bool taskAffinity = false;  // TaskPlugin has task/affinity: tasks are bound to their CPUs
};

struct Confinement {
  nlohmann::json spec = nlohmann::json::object();  // keys to merge into spec.json
  std::string log;  // the resctrl placement line, "" when none
};

Confinement confinementFor(const ConfinementSettings& settings, const v1::LaunchStepRequest& step);

// Sockets of a GPU from its cores and the cores of each socket.
std::vector<int> socketsOfCores(const std::vector<int>& cores, const std::vector<std::vector<int>>& socketCores);

}  // namespace gantry::agent
