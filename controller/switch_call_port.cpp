#include "controller/switch_call_port.h"

#include <grp.h>
#include <pwd.h>
#include <syslog.h>

#include <spdlog/spdlog.h>

#include "common/switchlua/job_table.h"
#include "common/switchlua/script_call.h"
#include "controller/switch/runner/call_answers.h"

namespace gantry::ctl {

namespace {

void logScriptLine(switchlua::ScriptLogLevel level, const std::string& line) {
  if (level == switchlua::ScriptLogLevel::Error) spdlog::error("{}", line);
  else if (level == switchlua::ScriptLogLevel::Info) spdlog::info("{}", line);
  else spdlog::debug("{}", line);
}

}  // namespace

Result<SwitchIdentity> switchIdentityOf(const std::string& user) {
  passwd* entry = ::getpwnam(user.c_str());
  if (entry == nullptr) return Error{ErrorCode::Invalid, "SlurmUser " + user + " does not exist"};
  SwitchIdentity identity{.uid = entry->pw_uid, .gid = entry->pw_gid, .groups = {}};
  int count = 32;
  std::vector<gid_t> groups(static_cast<size_t>(count));
  if (::getgrouplist(user.c_str(), entry->pw_gid, groups.data(), &count) < 0) {
    groups.resize(static_cast<size_t>(count));
    ::getgrouplist(user.c_str(), entry->pw_gid, groups.data(), &count);
  }
  groups.resize(static_cast<size_t>(std::max(count, 0)));
  identity.groups = std::move(groups);
  return identity;
}

SwitchCallPort::SwitchCallPort(std::filesystem::path script, SwitchIdentity runAs, bool toSyslog)
    : script_(std::move(script)), runAs_(std::move(runAs)), toSyslog_(toSyslog) {
  if (toSyslog_) ::openlog("gantryctld", LOG_PID, LOG_DAEMON);
}

uint64_t SwitchCallPort::start(core::SwitchCallOrder order, Done done) {
  bool setup = order.function == core::SwitchCallOrder::Function::JobStart;
  interconnect::CallRequest request{.script = script_,
                                    .function = setup ? "slurm_switch_job_start" : "slurm_switch_job_complete",
                                    .arguments = {switchlua::jobTableJson(order.job)},
                                    .uid = runAs_.uid,
                                    .gid = runAs_.gid,
                                    .groups = runAs_.groups,
                                    .timeout = order.timeout};
  if (!setup) request.arguments.push_back(order.jobinfo);
  bool toSyslog = toSyslog_;
  return runner_.start(std::move(request), [setup, toSyslog, done = std::move(done)](interconnect::CallReport report) {
    core::SwitchCallOutcome outcome;
    if (setup) outcome.answer = interconnect::setupAnswerOf(report);
    else outcome.answer = interconnect::teardownAnswerOf(report);
    for (auto& line : report.log) {
      if (toSyslog) {
        int priority = line.level == switchlua::ScriptLogLevel::Error  ? LOG_ERR
                       : line.level == switchlua::ScriptLogLevel::Info ? LOG_INFO
                                                                       : LOG_DEBUG;
        ::syslog(priority, "%s", line.line.c_str());
        continue;
      }
      using Level = core::SwitchCallLogLine::Level;
      Level level = line.level == switchlua::ScriptLogLevel::Error  ? Level::Error
                    : line.level == switchlua::ScriptLogLevel::Info ? Level::Info
                                                                    : Level::Debug;
      outcome.log.push_back({.level = level, .text = std::move(line.line)});
    }
    done(std::move(outcome));
  });
}

void SwitchCallPort::kill(uint64_t handle) { runner_.kill(handle); }

core::SwitchScriptAnswers askSwitchScript(const std::filesystem::path& script) {
  core::SwitchScriptAnswers answers{
      .blockJobComplete = switchlua::askBoolean(script, "slurm_switch_block_job_complete", logScriptLine),
      .setupSpecialSteps = switchlua::askBoolean(script, "slurm_switch_setup_special_steps", logScriptLine)};
  spdlog::info("switchlua: block_job_complete={} setup_special_steps={}", answers.blockJobComplete,
               answers.setupSpecialSteps);
  return answers;
}

}  // namespace gantry::ctl
