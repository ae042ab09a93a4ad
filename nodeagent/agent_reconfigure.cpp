#include "nodeagent/agent_reconfigure.h"

#include <filesystem>

#include "common/config/config_set.h"
#include "common/config/resctrl_conf.h"

namespace gantry::agent {
namespace fs = std::filesystem;

namespace {

// Whether resctrl.yaml is among the files that did not load: only when
// task/resctrl is configured is the file read at all.
bool resctrlFileFails(const std::string& confDir) {
  auto gantry = config::loadGantryConf(fs::path(confDir) / "gantry.conf");
  if (!gantry || !gantry->conf.hasTaskPlugin("task/resctrl")) return false;
  return !config::loadResctrlConf(fs::path(confDir) / "resctrl.yaml").ok();
}

ReconfigureOutcome failed(bool resctrlFailed, bool underSystemd, std::string error,
                          std::vector<std::string> log = {}) {
  return ReconfigureOutcome{.verdict = afterFailedReconfigure(resctrlFailed, underSystemd),
                            .settings = std::nullopt,
                            .error = std::move(error),
                            .log = std::move(log)};
}

}  // namespace

ReconfigureVerdict afterFailedReconfigure(bool resctrlFailed, bool underSystemd) {
  if (resctrlFailed && !underSystemd) return ReconfigureVerdict::Exit;
  return ReconfigureVerdict::KeepRunning;
}

ReconfigureOutcome reconfigureAgent(const ReconfigureRequest& request, const HardwareReport& hardware) {
  auto fresh = config::loadConfigSet(request.confDir, {.nodeName = request.nodeName});
  if (!fresh) return failed(resctrlFileFails(request.confDir), request.underSystemd, fresh.error());

  const ConfinementSetupOptions options{
      .confDir = request.confDir, .hostRoot = request.hostRoot, .nodeName = request.nodeName};
  ReconfigureOutcome outcome;
  auto settings = prepareConfinement(fresh->gantry, hardware, options, &outcome.log, &outcome.warnings);
  if (!settings) return failed(false, request.underSystemd, settings.error(), std::move(outcome.log));
  // The groups are written in file order: when one schemata is refused,
  // those before it already have their new limits.
  auto resctrlRoot = prepareResctrl(fresh->gantry, options, &outcome.log);
  if (!resctrlRoot) return failed(true, request.underSystemd, resctrlRoot.error(), std::move(outcome.log));
  settings->resctrlRoot = *resctrlRoot;
  outcome.verdict = ReconfigureVerdict::Applied;
  outcome.settings = std::move(*settings);
  return outcome;
}

}  // namespace gantry::agent
