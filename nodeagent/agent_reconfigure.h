// A SIGHUP to the node agent: the configuration folder read again and the
// confinement settings of new steps rebuilt from it. A failure leaves the
// running settings as they were; whether the agent then keeps running
// depends on what failed and how it was started (afterFailedReconfigure).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nodeagent/confinement_setup.h"
#include "nodeagent/hardware_report.h"

namespace gantry::agent {

enum class ReconfigureVerdict {
  Applied,      // new settings ready for the next steps
  KeepRunning,  // failed: log "Resuming operation, reconfigure failed." and go on as before
  Exit,         // failed: the agent stops
};

// The spec's rule: an agent whose resctrl reconfigure fails keeps running
// only under systemd (gantryd --systemd, as the packaged unit starts it;
// gantryd never detaches itself, so that is the only daemon-like case); in
// the foreground it exits. Any other reconfigure failure keeps it running
// on its previous configuration.
ReconfigureVerdict afterFailedReconfigure(bool resctrlFailed, bool underSystemd);

struct ReconfigureRequest {
  std::string confDir;
  std::string nodeName;
  std::string hostRoot = "/";
  bool underSystemd = false;
};

struct ReconfigureOutcome {
  ReconfigureVerdict verdict = ReconfigureVerdict::KeepRunning;
  std::optional<ConfinementSettings> settings;  // set when Applied
  std::string error;                            // what failed, one problem a line
  std::vector<std::string> log;                 // the decisions of the new set-up
  std::vector<std::string> warnings;            // what is configured but cannot be honoured
};

// Loads every file of the folder, then sets up cgroup confinement and the
// resctrl groups again for the hardware found at start.
ReconfigureOutcome reconfigureAgent(const ReconfigureRequest& request, const HardwareReport& hardware);

}  // namespace gantry::agent
