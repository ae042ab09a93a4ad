#include "nodeagent/launch/job_scripts.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "stepd/core/task_environment.h"

namespace gantry::agent {
namespace fs = std::filesystem;

namespace {

std::string kindName(JobScriptKind kind) { return kind == JobScriptKind::Prolog ? "prolog" : "epilog"; }

// Splits what the script wrote into lines for the log; a partial last line
// stays in `pending` until more arrives or the script ends.
void emitLines(std::string& pending, const LogLine& log) {
  size_t start = 0;
  for (size_t newline = pending.find('\n'); newline != std::string::npos;
       newline = pending.find('\n', start)) {
    log(pending.substr(start, newline - start));
    start = newline + 1;
  }
  pending.erase(0, start);
}

// Reads what is available now; false once the pipe has nothing more.
bool readAvailable(int fd, std::string& pending) {
  char buffer[4096];
  ssize_t got = read(fd, buffer, sizeof buffer);
  if (got > 0) {
    pending.append(buffer, static_cast<size_t>(got));
    return true;
  }
  return false;
}

ScriptOutcome outcomeOf(int status) {
  ScriptOutcome outcome;
  if (WIFEXITED(status)) outcome.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

Result<std::string> readFile(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return Error{ErrorCode::Internal, "cannot read " + path.string() + ": " + std::strerror(errno)};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The job's environment from its record; an unreadable record still gets
// the script run with whatever identity is known (the job id), because an
// Epilog that cleans up must not be skipped over a damaged file.
ScriptEnvironment environmentFromRecord(const fs::path& record, JobScriptKind kind, uint64_t jobId,
                                        const LogLine& log) {
  fs::path specFile = record / "spec.json";
  auto text = readFile(specFile);
  auto spec = text ? stepd::parseStepSpec(*text) : Result<stepd::StepSpec>(Error{text.error()});
  if (spec) return jobScriptEnvironment(*spec, kind);
  log(specFile.string() + ": " + spec.error());
  stepd::StepSpec minimal;
  minimal.job_id = jobId;
  return jobScriptEnvironment(minimal, kind);
}

uint64_t jobIdOfRecord(const fs::path& record) {
  try {
    return std::stoull(record.filename().string());
  } catch (...) {
    return 0;
  }
}

}  // namespace

ScriptEnvironment jobScriptEnvironment(const stepd::StepSpec& spec, JobScriptKind kind) {
  // CUDA_VISIBLE_DEVICES (node indexes), CUDA_MPS_ACTIVE_THREAD_PERCENTAGE,
  // SLURM_JOB_ID, SLURM_JOB_UID and SLURM_JOB_USER come from here.
  ScriptEnvironment env = stepd::prologEnvironment(spec);
  env["SLURM_JOB_GID"] = std::to_string(spec.gid);
  env["SLURM_JOB_NODELIST"] = spec.nodelist;
  env["SLURM_JOB_PARTITION"] = spec.partition;
  env["SLURM_CLUSTER_NAME"] = spec.cluster;
  env["SLURMD_NODENAME"] = spec.node_name;
  // Sites share one script between both hooks and branch on this.
  env["SLURM_SCRIPT_CONTEXT"] = kind == JobScriptKind::Prolog ? "prolog_slurmd" : "epilog_slurmd";
  // Nothing is inherited, so give shell scripts the usual system tools.
  env["PATH"] = "/usr/sbin:/usr/bin:/sbin:/bin";
  return env;
}

std::string describeScriptFailure(JobScriptKind kind, const ScriptOutcome& outcome,
                                  std::chrono::milliseconds timeout) {
  if (outcome.ok()) return "";
  std::string prefix = kindName(kind) + " failed: ";
  if (outcome.timedOut) {
    auto ms = timeout.count();
    std::string length = ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
    return prefix + "timed out after " + length;
  }
  if (outcome.signal != 0) return prefix + "killed by signal " + std::to_string(outcome.signal);
  return prefix + "exit " + std::to_string(outcome.exitCode);
}

Result<ScriptOutcome> runJobScript(const fs::path& program, const ScriptEnvironment& environment,
                                   std::chrono::milliseconds timeout, const LogLine& log) {
  int pipeFds[2];
  if (pipe2(pipeFds, O_CLOEXEC) != 0) {
    return Error{ErrorCode::Internal, std::string("cannot create a pipe: ") + std::strerror(errno)};
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 2);
  // Its own process group, so a timeout also ends whatever it started; the
  // agent's blocked signals must not stay blocked in the script.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);

  std::vector<std::string> envStrings;
  for (const auto& [name, value] : environment) envStrings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& entry : envStrings) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::string path = program.string();
  char* argv[] = {path.data(), nullptr};

  pid_t pid = 0;
  int rc = posix_spawn(&pid, path.c_str(), &actions, &attr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(pipeFds[1]);
  if (rc != 0) {
    close(pipeFds[0]);
    return Error{ErrorCode::Internal, "cannot start " + path + ": " + std::strerror(rc)};
  }

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string pending;
  ScriptOutcome outcome;
  for (;;) {
    pollfd readable{.fd = pipeFds[0], .events = POLLIN, .revents = 0};
    if (poll(&readable, 1, 100) > 0) readAvailable(pipeFds[0], pending);
    emitLines(pending, log);
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      outcome = outcomeOf(status);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      killpg(pid, SIGKILL);
      waitpid(pid, &status, 0);
      outcome = outcomeOf(status);
      outcome.timedOut = true;
      break;
    }
  }
  // The script is gone; take what it left in the pipe without waiting for
  // children of it that may still hold the pipe open.
  fcntl(pipeFds[0], F_SETFL, O_NONBLOCK);
  while (readAvailable(pipeFds[0], pending)) {
  }
  close(pipeFds[0]);
  emitLines(pending, log);
  if (!pending.empty()) log(pending);
  return outcome;
}

Status beginJobOnNode(const fs::path& jobsDir, uint64_t jobId, const std::string& stepSpecJson,
                      const JobScripts& scripts, const LogLine& log) {
  const fs::path record = jobsDir / std::to_string(jobId);
  std::error_code ec;
  if (fs::exists(record, ec)) return okStatus();  // not the job's first step here
  fs::create_directories(record, ec);
  if (ec) return Error{ErrorCode::Internal, "cannot create job directory " + record.string() + ": " + ec.message()};
  {
    std::ofstream out(record / "spec.json", std::ios::trunc);
    out << stepSpecJson;
    if (!out.flush()) {
      fs::remove_all(record, ec);
      return Error{ErrorCode::Internal,
                   "cannot write " + (record / "spec.json").string() + ": " + std::strerror(errno)};
    }
  }
  if (scripts.prolog.empty()) return okStatus();

  ScriptEnvironment env = environmentFromRecord(record, JobScriptKind::Prolog, jobId, log);
  auto outcome = runJobScript(scripts.prolog, env, scripts.timeout, log);
  std::string failure = !outcome ? "prolog failed: " + outcome.error()
                                 : describeScriptFailure(JobScriptKind::Prolog, *outcome, scripts.timeout);
  if (failure.empty()) return okStatus();
  // No record: the job never began here, so no Epilog follows.
  fs::remove_all(record, ec);
  return Error{ErrorCode::Internal, failure};
}

std::optional<fs::path> claimJobRecord(const fs::path& jobsDir, uint64_t jobId) {
  const fs::path record = jobsDir / std::to_string(jobId);
  fs::path claimed = record;
  claimed += ".ending";
  std::error_code ec;
  if (!fs::is_directory(record, ec)) return std::nullopt;
  fs::remove_all(claimed, ec);  // left by an agent that stopped mid-Epilog
  fs::rename(record, claimed, ec);
  if (ec) return std::nullopt;
  return claimed;
}

Status finishJobOnNode(const fs::path& claimedRecord, const JobScripts& scripts, const LogLine& log) {
  std::string failure;
  if (!scripts.epilog.empty()) {
    ScriptEnvironment env =
        environmentFromRecord(claimedRecord, JobScriptKind::Epilog, jobIdOfRecord(claimedRecord), log);
    auto outcome = runJobScript(scripts.epilog, env, scripts.timeout, log);
    failure = !outcome ? "epilog failed: " + outcome.error()
                       : describeScriptFailure(JobScriptKind::Epilog, *outcome, scripts.timeout);
  }
  std::error_code ec;
  fs::remove_all(claimedRecord, ec);
  if (!failure.empty()) return Error{ErrorCode::Internal, failure};
  return okStatus();
}

}  // namespace gantry::agent
