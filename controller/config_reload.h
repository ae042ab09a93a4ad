// Re-reading the controller's configuration directory: the one path that
// SIGHUP and `scontrol reconfigure` (the Reconfigure call) both take.
//
// The files are read on the caller's thread (never on the core's strand);
// a directory that does not load, or that the core refuses, is logged as
// "Resuming operation, reconfigure failed." and changes nothing. When the
// controller took the new configuration, every registered agent is told to
// re-read its own, as the agents of Slurm are on a reconfigure.
//
// Threads: reload() may be called from any thread; calls run one at a time.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/util/result.h"
#include "controller/core/controller_core.h"

namespace gantry::ctl {

// The gres.conf problems of each node of `conf` that a line naming it
// causes (node -> reason, one line): such a line stops that node's agent,
// so the controller drains the node with it, at start and on every reload.
std::map<std::string, std::string> gresConfDrains(const std::string& confDir, const config::GantryConf& conf);

class ConfigReloader {
 public:
  ConfigReloader(std::string confDir, core::ControllerCore& core) : confDir_(std::move(confDir)), core_(core) {}

  // Blocks until the controller and the agents have answered. Failure: the
  // controller kept its configuration (Invalid for files that do not load,
  // the core's kind for a refused change), and the message says why. Success:
  // one line per agent that kept its previous configuration ("node n1: ...").
  Result<std::vector<std::string>> reload();

  // switch/lua: asked on every reload, before the core applies it, for
  // what the script now answers to its two questions.
  void askSwitchScriptWith(std::function<core::SwitchScriptAnswers()> ask) { askSwitchScript_ = std::move(ask); }

 private:
  std::string confDir_;
  core::ControllerCore& core_;
  std::function<core::SwitchScriptAnswers()> askSwitchScript_;
  std::mutex running_;
};

}  // namespace gantry::ctl
