#include "nodeagent/launch/job_scripts.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "common/util/process.h"
#include "nodeagent/launch/private_files.h"
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

void startJobScript(boost::asio::any_io_executor executor, const fs::path& program,
                    const ScriptEnvironment& environment, std::chrono::milliseconds timeout, LogLine log,
                    ScriptDone done) {
  // Both streams in one pipe, so the log keeps their order; kept nowhere
  // but in the log. Only the strand touches `pending`.
  auto pending = std::make_shared<std::string>();
  ProcessSpec spec{.argv = {program.string()},
                   .stdoutTo = OutputTarget::capture(0),
                   .stderrTo = OutputTarget::sameAsStdout(),
                   .timeout = timeout,
                   .killGrace = kScriptKillGrace,
                   .onOutput = [pending, log](OutputStream, std::string_view chunk) {
                     pending->append(chunk);
                     emitLines(*pending, log);
                   }};
  for (const auto& [name, value] : environment) spec.environment.push_back(name + "=" + value);
  runProcess(std::move(executor), std::move(spec),
             [pending, log, done = std::move(done)](ProcessOutcome outcome) {
               if (!pending->empty()) log(*pending);
               if (!outcome.started()) {
                 done(*outcome.startError);
                 return;
               }
               // A lost exit status (exit -1) counts as a failure.
               done(ScriptOutcome{.exitCode = outcome.signal != 0 ? 0 : outcome.exitCode,
                                  .signal = outcome.signal,
                                  .timedOut = outcome.timedOut});
             });
}

Result<ScriptOutcome> runJobScript(const fs::path& program, const ScriptEnvironment& environment,
                                   std::chrono::milliseconds timeout, const LogLine& log) {
  boost::asio::io_context io;
  std::optional<Result<ScriptOutcome>> result;
  startJobScript(io.get_executor(), program, environment, timeout, log,
                 [&result](Result<ScriptOutcome> outcome) { result = std::move(outcome); });
  io.run();
  return std::move(*result);
}

Status beginJobOnNode(const fs::path& jobsDir, uint64_t jobId, const std::string& stepSpecJson,
                      const JobScripts& scripts, const LogLine& log) {
  const fs::path record = jobsDir / std::to_string(jobId);
  std::error_code ec;
  if (fs::exists(record, ec)) return okStatus();  // not the job's first step here
  // Root's alone, as the step directories: the spec may hold srun's token.
  if (auto made = makePrivateDirectory(record); !made) return made;
  if (auto written = writePrivateFile(record / "spec.json", stepSpecJson); !written) {
    fs::remove_all(record, ec);
    return written;
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

void finishJobOnNode(boost::asio::any_io_executor executor, const fs::path& claimedRecord, const JobScripts& scripts,
                     LogLine log, std::function<void(Status)> done) {
  auto settle = [claimedRecord, done = std::move(done)](std::string failure) {
    std::error_code ec;
    fs::remove_all(claimedRecord, ec);
    if (!failure.empty()) {
      done(Error{ErrorCode::Internal, failure});
    } else {
      done(okStatus());
    }
  };
  if (scripts.epilog.empty()) {
    boost::asio::post(executor, [settle = std::move(settle)] { settle(""); });
    return;
  }
  ScriptEnvironment env =
      environmentFromRecord(claimedRecord, JobScriptKind::Epilog, jobIdOfRecord(claimedRecord), log);
  startJobScript(std::move(executor), scripts.epilog, env, scripts.timeout, log,
                 [timeout = scripts.timeout, settle = std::move(settle)](Result<ScriptOutcome> outcome) {
                   settle(!outcome ? "epilog failed: " + outcome.error()
                                   : describeScriptFailure(JobScriptKind::Epilog, *outcome, timeout));
                 });
}

Status finishJobOnNode(const fs::path& claimedRecord, const JobScripts& scripts, const LogLine& log) {
  boost::asio::io_context io;
  Status result = okStatus();
  finishJobOnNode(io.get_executor(), claimedRecord, scripts, log, [&result](Status status) { result = std::move(status); });
  io.run();
  return result;
}

}  // namespace gantry::agent
