#include "nodeagent/confinement_setup.h"

#include <filesystem>
#include <fstream>
#include <set>

#include "common/config/cgroup_conf.h"
#include "common/config/resctrl_conf.h"
#include "nodeagent/device_confinement_check.h"
#include "nodeagent/resctrl/resctrl_setup.h"

namespace gantry::agent {
namespace fs = std::filesystem;

namespace {

std::string underRoot(const std::string& hostRoot, const std::string& path) {
  if (hostRoot.empty() || hostRoot == "/") return path;
  return (fs::path(hostRoot) / fs::path(path).relative_path()).string();
}

std::vector<std::string> gpuFilesOf(const HardwareReport& hardware) {
  std::vector<std::string> files;
  for (const auto& device : hardware.hardware.gres()) {
    if (device.name() == "gpu") files.insert(files.end(), device.files().begin(), device.files().end());
  }
  return files;
}

}  // namespace

std::string deviceConfinementProblemFor(const config::GantryConf& conf, const config::CgroupConf& cgroup,
                                        const HardwareReport& hardware, const std::string& hostRoot) {
  return deviceConfinementProblem(deviceConfinementFacts({.constrainDevices = cgroup.constrainDevices,
                                                          .taskCgroup = conf.hasTaskPlugin("task/cgroup"),
                                                          .cgroupRoot = underRoot(hostRoot, cgroup.mountPoint),
                                                          .hostRoot = hostRoot,
                                                          .gpuFiles = gpuFilesOf(hardware)}));
}

Result<ConfinementSettings> prepareConfinement(const config::GantryConf& conf, const HardwareReport& hardware,
                                               const ConfinementSetupOptions& options,
                                               std::vector<std::string>* log, std::vector<std::string>* warnings) {
  ConfinementSettings settings;
  settings.nodeName = options.nodeName;
  settings.socketCount = std::max(1, hardware.node.topology.sockets);
  settings.socketCores = hardware.node.topology.socketCores;
  std::set<std::string> flags;
  for (const auto& device : hardware.hardware.gres()) {
    if (device.name() != "gpu") continue;
    for (const auto& file : device.files()) settings.nodeGpuFiles.push_back(file);
    settings.gpuSockets.push_back(socketsOfCores({device.cores().begin(), device.cores().end()},
                                                 hardware.node.topology.socketCores));
    flags.insert(device.flags().begin(), device.flags().end());
  }
  settings.gresFlags.assign(flags.begin(), flags.end());
  settings.taskAffinity = conf.hasTaskPlugin("task/affinity");

  auto cgroup = config::loadCgroupConf(fs::path(options.confDir) / "cgroup.conf", conf);
  if (!cgroup) return Error{cgroup.error()};
  std::string deviceProblem = deviceConfinementProblemFor(conf, *cgroup, hardware, options.hostRoot);
  if (!deviceProblem.empty() && warnings) warnings->push_back(deviceProblem);
  if (conf.hasTaskPlugin("task/cgroup")) {
    std::string root = underRoot(options.hostRoot, cgroup->mountPoint);
    // Confinement needs the unified (v2) hierarchy; without it steps still
    // run, suspended by signals instead of the freezer.
    if (!fs::exists(fs::path(root) / "cgroup.controllers")) {
      if (log) log->push_back("cgroup: " + root + " is not a cgroup v2 hierarchy; steps run unconfined");
    } else {
      // A constraint whose controller this hierarchy does not offer (it may
      // be bound to a v1 hierarchy) is switched off with a warning rather
      // than failing every step.
      std::set<std::string> controllers;
      {
        std::ifstream in(fs::path(root) / "cgroup.controllers");
        std::string name;
        while (in >> name) controllers.insert(name);
      }
      auto available = [&](bool wanted, const std::string& controller, const char* key) {
        if (wanted && controllers.count(controller) == 0) {
          if (log) {
            log->push_back("cgroup: " + std::string(key) + "=yes but the " + controller +
                           " controller is not available in " + root + "; not enforced");
          }
          return false;
        }
        return wanted;
      };
      settings.cgroup = CgroupSettings{.root = root,
                                       .constrainCores = available(cgroup->constrainCores, "cpuset", "ConstrainCores"),
                                       .constrainRam = available(cgroup->constrainRamSpace, "memory", "ConstrainRAMSpace"),
                                       .constrainDevices = cgroup->constrainDevices && deviceProblem.empty(),
                                       .constrainDeviceMemory =
                                           available(cgroup->constrainDeviceMemory, "dmem", "ConstrainDeviceMemory"),
                                       .enableControllers = cgroup->enableControllers,
                                       .jobIdPaths = cgroup->cgroupJobIdPaths};
      if (log) log->push_back("cgroup: steps confined under " + root + "/gantry");
    }
  }

  return settings;
}

Result<std::optional<std::string>> prepareResctrl(const config::GantryConf& conf,
                                                  const ConfinementSetupOptions& options,
                                                  std::vector<std::string>* log) {
  // Without the plugin resctrl.yaml is not even read: no group is created
  // and no step is placed.
  if (!conf.hasTaskPlugin("task/resctrl")) return std::optional<std::string>{};
  auto resctrlConf = config::loadResctrlConf(fs::path(options.confDir) / "resctrl.yaml");
  if (!resctrlConf) return Error{resctrlConf.error()};
  if (!resctrlConf->present) {
    if (log) log->push_back("resctrl: not managed: no resctrl.yaml");
    return std::optional<std::string>{};
  }
  auto outcome = resctrl::setUpResctrlGroups(
      resctrl::ResctrlSetupOptions{.host_root = options.hostRoot, .conf = *resctrlConf});
  if (!outcome) return Error{outcome.error()};
  if (!outcome->managed) {
    if (log) log->push_back("resctrl: not managed: " + outcome->reason);
    return std::optional<std::string>{};
  }
  std::string root = underRoot(options.hostRoot, "/sys/fs/resctrl");
  if (log) log->push_back("resctrl: groups ready under " + root);
  return std::optional<std::string>{root};
}

}  // namespace gantry::agent
