#include "common/config/config_set.h"

namespace gantry::config {
namespace {

void appendError(std::string& errors, const std::string& text) {
  if (text.empty()) return;
  if (!errors.empty()) errors += "\n";
  errors += text;
}

}  // namespace

Result<ConfigSet> loadConfigSet(const std::filesystem::path& confDir, const ConfigSetOptions& options) {
  ConfigSet set;
  std::string errors;
  auto gantry = loadGantryConf(confDir / "gantry.conf");
  if (gantry.ok()) {
    set.gantry = std::move(gantry->conf);
    set.warnings = std::move(gantry->warnings);
  } else {
    appendError(errors, gantry.error());
  }
  if (!options.nodeName.empty()) {
    auto gres = loadGresConf(confDir / "gres.conf", options.nodeName);
    if (gres.ok()) {
      set.gres = std::move(gres.value());
      set.warnings.insert(set.warnings.end(), set.gres.warnings.begin(), set.gres.warnings.end());
    } else {
      appendError(errors, gres.error());
    }
  }
  auto cgroup = loadCgroupConf(confDir / "cgroup.conf", set.gantry);
  if (cgroup.ok()) {
    set.cgroup = std::move(cgroup.value());
    set.warnings.insert(set.warnings.end(), set.cgroup.warnings.begin(), set.cgroup.warnings.end());
  } else {
    appendError(errors, cgroup.error());
  }
  // resctrl.yaml belongs to task/resctrl: without the plugin it is not read.
  if (set.gantry.hasTaskPlugin("task/resctrl")) {
    auto resctrl = loadResctrlConf(confDir / "resctrl.yaml");
    if (resctrl.ok()) set.resctrl = std::move(resctrl.value());
    else appendError(errors, resctrl.error());
  }
  if (!errors.empty()) return Error{errors};
  return set;
}

ReconfigureOutcome reconfigure(ConfigSet& current, const std::filesystem::path& confDir,
                               const ConfigSetOptions& options) {
  auto next = loadConfigSet(confDir, options);
  if (!next.ok()) return ReconfigureOutcome{false, "Resuming operation, reconfigure failed.\n" + next.error()};
  current = std::move(next.value());
  return ReconfigureOutcome{true, ""};
}

}  // namespace gantry::config
