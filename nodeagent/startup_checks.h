// The checks a start of the agent makes before it registers, in one place:
// the real start and `gantryd --check-config` both call checkNodeStart(), so
// the check says no exactly when the start would refuse, against the same
// topology (same host root, same vendor libraries, same gres.conf merge).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/config/gantry_conf.h"
#include "nodeagent/hardware_report.h"

namespace gantry::agent {

struct StartChecks {
  std::optional<HardwareReport> hardware;  // set when the node's hardware could be set up
  std::vector<std::string> errors;         // each one stops the start
  std::vector<std::string> warnings;       // logged at start; the agent goes on
  bool ok() const { return errors.empty(); }
};

// Detects the hardware and merges gres.conf (collectHardware()), then the
// node-side confinement checks that need no change to the node. Drain
// reasons of the registration are warnings here: the node starts, drained.
StartChecks checkNodeStart(const config::GantryConf& conf, const config::NodeConf& node,
                           const ReportOptions& options);

// One entry per line of a possibly multi-line error text.
std::vector<std::string> splitLines(const std::string& text);

}  // namespace gantry::agent
