// What the agent tells the controller about its node: CPU topology, memory
// and GRES devices in index order, plus problems that must drain the node.
#pragma once

#include <string>
#include <vector>

#include "common/config/gantry_conf.h"
#include "common/util/result.h"
#include "gantry/v1/types.pb.h"

namespace gantry::agent {

struct HardwareReport {
  v1::NodeHardware hardware;
  std::vector<std::string> errors;  // drain reasons
  std::vector<std::string> log;     // lines for the agent's log (and gantryd -C)
};

struct ReportOptions {
  std::string confDir;
  std::string hostRoot = "/";
  std::vector<std::string> parameters;  // gantryd -C --parameters=...
};

// Fails only on errors that must stop the agent before it registers (a
// gres.conf that does not parse, a detection backend that cannot run).
Result<HardwareReport> collectHardware(const config::GantryConf& conf, const config::NodeConf& node,
                                       const ReportOptions& options);

// The `gantryd -C` line: NodeName=... CPUs=... Boards=... ... Gres=...
std::string formatNodeLine(const std::string& nodeName, const v1::NodeHardware& hardware);

}  // namespace gantry::agent
