// gantryctld's SwitchCalls: each switch.lua call the core asks for runs
// through the CallRunner (controller/switch/runner), in a process of its
// own as SlurmUser, and its report is read the way the lifecycle reads it
// (call_answers.h). Also asks the script its two questions when it is
// loaded (at start and at each reconfigure).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "controller/core/switch_calls.h"
#include "controller/switch/runner/call_runner.h"

namespace gantry::ctl {

struct SwitchIdentity {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
};

// SlurmUser's ids and groups; Error when the user does not exist.
Result<SwitchIdentity> switchIdentityOf(const std::string& user);

class SwitchCallPort final : public core::SwitchCalls {
 public:
  // `toSyslog`: no SlurmctldLogFile is set, so the lines the script logs
  // during a call go to syslog rather than to the controller's terminal.
  SwitchCallPort(std::filesystem::path script, SwitchIdentity runAs, bool toSyslog);

  uint64_t start(core::SwitchCallOrder order, Done done) override;
  void kill(uint64_t handle) override;

 private:
  std::filesystem::path script_;
  SwitchIdentity runAs_;
  bool toSyslog_ = false;
  interconnect::CallRunner runner_;
};

// slurm_switch_block_job_complete() and slurm_switch_setup_special_steps(),
// asked in this process (they take no job and must have no side effects);
// an undefined function or an error counts as false, and is logged.
core::SwitchScriptAnswers askSwitchScript(const std::filesystem::path& script);

}  // namespace gantry::ctl
