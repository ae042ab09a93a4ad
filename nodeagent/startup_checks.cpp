#include "nodeagent/startup_checks.h"

#include <filesystem>

#include "common/config/cgroup_conf.h"
#include "nodeagent/confinement_setup.h"

namespace gantry::agent {

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

StartChecks checkNodeStart(const config::GantryConf& conf, const config::NodeConf& node,
                           const ReportOptions& options) {
  StartChecks checks;
  auto hardware = collectHardware(conf, node, options);
  if (!hardware) {
    checks.errors = splitLines(hardware.error());
    return checks;
  }
  for (const auto& reason : hardware->errors) checks.warnings.push_back("node drains: " + reason);
  for (const auto& warning : hardware->warnings) checks.warnings.push_back(warning);
  // collectHardware() has loaded cgroup.conf already, so this load succeeds.
  if (auto cgroup = config::loadCgroupConf(std::filesystem::path(options.confDir) / "cgroup.conf", conf)) {
    std::string problem = deviceConfinementProblemFor(conf, *cgroup, *hardware, options.hostRoot);
    if (!problem.empty()) checks.warnings.push_back(problem);
  }
  checks.hardware = std::move(hardware.value());
  return checks;
}

}  // namespace gantry::agent
