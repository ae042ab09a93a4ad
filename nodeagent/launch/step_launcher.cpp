#include "nodeagent/launch/step_launcher.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <spdlog/spdlog.h>

#include "common/util/process.h"
#include "nodeagent/launch/private_files.h"
#include "nodeagent/launch/step_leftovers.h"

namespace gantry::agent {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json specFor(const v1::LaunchStepRequest& r, const LauncherOptions& options, const fs::path& scriptDir) {
  json spec = {
      {"job_id", r.job_id()},
      {"step_id", r.step_id()},
      {"job_name", r.job_name()},
      {"uid", r.uid()},
      {"gid", r.gid()},
      {"user", r.user()},
      {"work_dir", r.work_dir().empty() ? "/" : r.work_dir()},
      // Slurm's default names: an array's tasks each get their own file.
      {"stdout", !r.stdout_pattern().empty() ? r.stdout_pattern()
                 : r.array_job_id() != 0     ? "slurm-%A_%a.out"
                                             : "slurm-%j.out"},
      {"stderr", r.stderr_pattern()},
      {"open_append", r.open_append()},
      {"stdin", r.stdin_path().empty() ? "/dev/null" : r.stdin_path()},
      {"node_name", options.nodeName},
      {"node_id", r.node_id()},
      {"nodelist", r.node_list()},
      {"num_nodes", r.num_nodes()},
      {"ntasks", r.ntasks()},
      {"tasks_on_node", r.tasks_on_node()},
      {"first_task_id", r.first_task_id()},
      {"cpus_on_node", r.cpus_on_node()},
      {"cores", std::vector<int>(r.cores().begin(), r.cores().end())},
      {"cpus_per_task", std::max(r.cpus_per_task(), 1)},
      {"mem_mb", r.memory_mb()},
      {"time_limit_sec", r.time_limit_seconds()},
      {"partition", r.partition()},
      {"cluster", options.clusterName},
      {"submit_host", r.submit_host()},
      {"submit_dir", r.submit_dir()},
      {"host_root", options.hostRoot},
  };
  if (r.array_job_id() != 0) {
    spec["array_job_id"] = r.array_job_id();
    if (r.has_array_task_id()) spec["array_task_id"] = r.array_task_id();
  }
  if (r.step_id() == "batch") {
    spec["script"] = r.script();
    spec["script_dir"] = scriptDir.string();
    // The script's arguments (sbatch job.sh a b): its $1 $2 ...
    if (r.argv_size() > 0) spec["argv"] = std::vector<std::string>(r.argv().begin(), r.argv().end());
  } else {
    spec["argv"] = std::vector<std::string>(r.argv().begin(), r.argv().end());
  }
  json env = json::object();
  for (const auto& [key, value] : r.environment()) env[key] = value;
  spec["env"] = env;
  json gpus = json::array();
  for (const auto& gpu : r.gpus()) {
    gpus.push_back({{"index", gpu.index()},
                    {"name", gpu.name()},
                    {"type", gpu.type()},
                    {"files", std::vector<std::string>(gpu.files().begin(), gpu.files().end())},
                    {"uuid", gpu.uuid()},
                    {"pci_bus_id", gpu.pci_bus_id()},
                    {"vendor", gpu.vendor()},
                    {"shares", gpu.shares()},
                    {"share_count", gpu.share_count()},
                    {"dmem_region", gpu.dmem_region()},
                    {"dmem_slice_bytes", gpu.dmem_slice_bytes()}});
  }
  spec["gpus"] = gpus;
  if (!r.io_addr().empty()) {
    // Interactive step: the tasks' streams go to the srun at this endpoint.
    spec["io"] = {{"addr", r.io_addr()}, {"port", r.io_port()}, {"token", r.io_token()}, {"pty", r.io_pty()},
                  // srun -o/-e/-i: what the controller passed on is what the user named.
                  {"stdout", r.stdout_pattern()}, {"stderr", r.stderr_pattern()}, {"stdin", r.stdin_path()}};
  }
  Confinement confinement = confinementFor(options.confinement, r);
  spec.update(confinement.spec);
  if (!confinement.log.empty()) spdlog::info("{}", confinement.log);
  spec.update(stepGpuLibraryKeys(options.gpuLibrary, r));
  const bool constrainDevices = options.confinement.cgroup && options.confinement.cgroup->constrainDevices;
  spec.update(stepAccountingKeys(options.accounting, r, constrainDevices));
  if (!options.switchScript.empty()) spec["switch_script"] = options.switchScript.string();
  if (r.switch_managed()) {
    spec["switch_managed"] = true;
    // Left out when it could not be passed: gantrystepd then gives the
    // step functions nil and says so in its log.
    if (!r.switch_stepinfo_missing() && !r.switch_stepinfo().empty()) spec["switch_stepinfo"] = r.switch_stepinfo();
    spec["switch_sluid"] = r.switch_sluid();
  }
  return spec;
}

bool alive(int pid) { return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM); }

int launcherPid(const fs::path& dir, int pid) {
  if (pid != 0) return pid;
  std::ifstream in(dir / "launcher.pid");
  in >> pid;
  return pid;
}

uid_t stepUid(const fs::path& dir) {
  std::ifstream in(dir / "spec.json");
  json spec = json::parse(in, nullptr, false);
  return spec.is_object() ? spec.value("uid", uid_t{0}) : uid_t{0};
}

}  // namespace

std::optional<stepd::TaskSignalReach> taskSignalReach(v1::SignalScope scope, const std::string& stepId, int signal) {
  using Reach = stepd::TaskSignalReach;
  if (stepId == "extern") return std::nullopt;
  const bool batch = stepId == "batch";
  switch (scope) {
    case v1::SIGNAL_SCOPE_BATCH: return batch ? std::optional(Reach::TaskLeaderOnly) : std::nullopt;
    case v1::SIGNAL_SCOPE_FULL: return Reach::AllProcesses;
    default: return !batch || signal == SIGKILL ? std::optional(Reach::AllProcesses) : std::nullopt;
  }
}

StepLauncher::StepLauncher(LauncherOptions options) : options_(std::move(options)) {
  std::error_code ec;
  // The spool itself stays reachable (scripts/ must be); what is in
  // steps/ and jobs/ is root's alone.
  fs::create_directories(options_.spoolDir, ec);
  for (const auto& dir : {stepsDir(), jobsDir()}) {
    if (auto made = makePrivateDirectory(dir); !made) spdlog::error("{}", made.error());
  }
  if (::mkdir(scriptsDir().c_str(), 0711) != 0 && errno != EEXIST) {
    spdlog::error("cannot create {}: {}", scriptsDir().string(), std::strerror(errno));
  }
  // Epilogs that were claimed but not finished when the agent stopped
  // (<jobid>.ending records) run now.
  for (const auto& entry : fs::directory_iterator(jobsDir(), ec)) {
    std::string name = entry.path().filename().string();
    const std::string suffix = ".ending";
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    try {
      uint64_t jobId = std::stoull(name.substr(0, name.size() - suffix.size()));
      spdlog::info("job {}: epilog left over from before the restart runs now", jobId);
      finishInBackground(jobId, entry.path());
    } catch (const std::exception&) {
      spdlog::warn("ignoring {}: not a job record", entry.path().string());
    }
  }
}

bool StepLauncher::parseDirName(const std::string& name, StepKey* key) {
  auto dot = name.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) return false;
  try {
    size_t used = 0;
    key->jobId = std::stoull(name.substr(0, dot), &used);
    if (used != dot) return false;
  } catch (...) {
    return false;
  }
  key->stepId = name.substr(dot + 1);
  return true;
}

int StepLauncher::readPid(const fs::path& dir) {
  std::ifstream in(dir / "pid");
  int pid = 0;
  in >> pid;
  return pid;
}

void StepLauncher::setConfinement(ConfinementSettings settings) {
  std::lock_guard lock(mutex_);
  options_.confinement = std::move(settings);
}

void StepLauncher::setGpuLibrary(StepGpuLibrarySettings settings) {
  std::lock_guard lock(mutex_);
  options_.gpuLibrary = std::move(settings);
}

void StepLauncher::setAccounting(StepAccountingSettings settings) {
  std::lock_guard lock(mutex_);
  options_.accounting = std::move(settings);
}

Status StepLauncher::launch(const v1::LaunchStepRequest& request) {
  if (request.step_id().empty() || request.step_id().find('/') != std::string::npos ||
      request.step_id().find('.') != std::string::npos) {
    return Error{"invalid step id '" + request.step_id() + "'"};
  }
  std::lock_guard launching(jobRecordMutex_);
  StepKey key{request.job_id(), request.step_id()};
  fs::path dir = stepsDir() / key.dirName();
  std::error_code ec;
  std::string specText;
  {
    std::lock_guard lock(mutex_);
    if (fs::exists(dir, ec)) {
      // A repeated launch (the controller retried after a lost answer) is
      // harmless: the step is already there.
      return okStatus();
    }
    specText = specFor(request, options_, scriptsDir() / key.dirName()).dump(2);
  }
  // The job's first step here runs the Prolog first; outside mutex_
  // because a Prolog may take up to its timeout.
  const uint64_t jobId = request.job_id();
  if (auto begun = beginJobOnNode(jobsDir(), jobId, specText, options_.jobScripts,
                                  [jobId](const std::string& line) { spdlog::info("job {} prolog: {}", jobId, line); });
      !begun) {
    return begun;
  }
  std::lock_guard lock(mutex_);
  if (::mkdir(dir.c_str(), 0700) != 0) {
    return Error{ErrorCode::Internal, "cannot create step directory " + dir.string() + ": " + std::strerror(errno)};
  }
  if (auto status = writePrivateFile(dir / "spec.json", specText); !status) return status;

  // gantrystepd runs in a session of its own so that it survives the agent;
  // while the agent lives the runner reaps it when it ends. Its start is
  // awaited (exec, not the step) so that one that cannot run fails here.
  auto started = std::make_shared<std::promise<Status>>();
  std::future<Status> exec = started->get_future();
  ProcessSpec stepdSpec{.argv = {options_.stepdPath.string(), "--step-dir", dir.string()},
                        .environment = inheritedEnvironment(),
                        .stdoutTo = OutputTarget::appendTo(dir / "stepd.log"),
                        .stderrTo = OutputTarget::sameAsStdout(),
                        .detached = true,
                        .onStarted = [started](const Status& status) { started->set_value(status); }};
  ProcessHandle stepd = runProcess(io_.executor(), std::move(stepdSpec), [key](ProcessOutcome outcome) {
    if (outcome.started() && !outcome.succeeded()) {
      spdlog::info("job {} step {}: gantrystepd ended: {}", key.jobId, key.stepId, describeOutcome(outcome));
    }
  });
  if (Status status = exec.get(); !status) {
    fs::remove_all(dir, ec);
    return status;
  }
  const pid_t pid = stepd.pid();
  // gantrystepd writes its own pid too; writing it here closes the window
  // before it does, so the step is never mistaken for a dead one.
  if (auto written = writePrivateFile(dir / "launcher.pid", std::to_string(pid) + "\n"); !written) {
    spdlog::warn("{}", written.error());
  }
  return okStatus();
}

std::vector<StepKey> StepLauncher::running() {
  std::lock_guard lock(mutex_);
  std::vector<StepKey> result;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(stepsDir(), ec)) {
    StepKey key;
    if (!parseDirName(entry.path().filename().string(), &key)) continue;
    if (fs::exists(entry.path() / "result.json")) continue;
    result.push_back(key);
  }
  return result;
}

std::vector<StepKey> StepLauncher::known() {
  std::lock_guard lock(mutex_);
  std::vector<StepKey> result;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(stepsDir(), ec)) {
    StepKey key;
    if (parseDirName(entry.path().filename().string(), &key)) result.push_back(key);
  }
  return result;
}

std::vector<FinishedStep> StepLauncher::finished() {
  std::lock_guard lock(mutex_);
  std::vector<FinishedStep> result;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(stepsDir(), ec)) {
    FinishedStep step;
    if (!parseDirName(entry.path().filename().string(), &step.key)) continue;
    fs::path resultFile = entry.path() / "result.json";
    if (fs::exists(resultFile)) {
      std::ifstream in(resultFile);
      json parsed = json::parse(in, nullptr, false);
      if (parsed.is_object()) {
        step.exitCode = parsed.value("exit_code", 1);
        step.signal = parsed.value("signal", 0);
        step.startTime = parsed.value("start_time", int64_t{0});
        step.endTime = parsed.value("end_time", int64_t{0});
        step.message = parsed.value("message", std::string());
        step.drainReason = parsed.value("drain_reason", std::string());
        if (parsed.contains("dmem_peak_bytes") && parsed["dmem_peak_bytes"].is_object()) {
          for (const auto& [region, bytes] : parsed["dmem_peak_bytes"].items()) {
            if (bytes.is_number_unsigned()) step.dmemPeakBytes[region] = bytes.get<uint64_t>();
          }
        }
        if (parsed.contains("task_usage")) step.taskUsage = stepd::taskUsageFromJson(parsed["task_usage"]);
      } else {
        step.exitCode = 1;
        step.message = "unreadable result.json";
      }
      queueDrain(step);
      result.push_back(std::move(step));
      continue;
    }
    // No result: finished only if the launcher process is gone, and with
    // it every process of the step (else the next job would get the
    // resources while they still run).
    int pid = launcherPid(entry.path(), readPid(entry.path()));
    // A gantrystepd of ours that ended is reaped by the process runner, so
    // it is not mistaken for a live one (kill(0) finds zombies) for long.
    if (pid > 0 && !alive(pid) && !leftoversRemain(entry.path())) {
      step.exitCode = 1;
      step.message = "gantrystepd exited without a result";
      result.push_back(std::move(step));
    }
  }
  return result;
}

bool StepLauncher::leftoversRemain(const fs::path& stepDir) {
  if (endStepLeftovers(stepDir, stepUid(stepDir))) return false;
  spdlog::info("{}: gantrystepd is gone; waiting for what is left of the step to end", stepDir.string());
  return true;
}

void StepLauncher::acknowledge(const StepKey& key) {
  std::lock_guard lock(mutex_);
  std::error_code ec;
  // The launcher's own log goes into the agent's before its directory does,
  // as slurmstepd's lines go into slurmd's log.
  std::ifstream stepLog(stepsDir() / key.dirName() / "stepd.log");
  for (std::string line; std::getline(stepLog, line);) {
    if (!line.empty()) spdlog::info("gantrystepd {}: {}", key.dirName(), line);
  }
  fs::remove_all(stepsDir() / key.dirName(), ec);
  fs::remove_all(scriptsDir() / key.dirName(), ec);  // left by a gantrystepd that died
  drainQueued_.erase(key.dirName());
}

void StepLauncher::queueDrain(const FinishedStep& step) {
  if (step.drainReason.empty() || !drainQueued_.insert(step.key.dirName()).second) return;
  spdlog::error("job {} step {}: draining the node: {}", step.key.jobId, step.key.stepId, step.drainReason);
  std::lock_guard lock(drainReasons_->mutex);
  drainReasons_->reasons.push_back(step.drainReason);
}

Status StepLauncher::signalJob(uint64_t jobId, int signal, v1::SignalScope scope, const std::string& stepId) {
  std::lock_guard lock(mutex_);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(stepsDir(), ec)) {
    StepKey key;
    if (!parseDirName(entry.path().filename().string(), &key) || key.jobId != jobId) continue;
    if (!stepId.empty() && key.stepId != stepId) continue;
    if (fs::exists(entry.path() / "result.json")) continue;
    auto reach = taskSignalReach(stepId.empty() ? scope : v1::SIGNAL_SCOPE_STEPS, key.stepId, signal);
    // Only a gantrystepd that wrote its pid has the channel open (it
    // blocks it first); before that the request would kill it.
    int pid = readPid(entry.path());
    if (!reach || pid <= 0) continue;
    sigval value{};
    value.sival_int = stepd::encodeTaskSignal({.signal = signal, .reach = *reach});
    if (::sigqueue(pid, stepd::taskSignalChannel(), value) != 0) {
      spdlog::warn("job {} step {}: cannot pass on signal {}: {}", jobId, key.stepId, signal, std::strerror(errno));
    }
  }
  return okStatus();
}

namespace {

// How long a suspend waits for every step of the job to say it stopped.
constexpr auto kSuspendConfirmation = std::chrono::seconds(2);

std::string stepState(const fs::path& dir) {
  std::ifstream in(dir / "state");
  std::string state;
  std::getline(in, state);
  return state;
}

}  // namespace

// The answer is sent once each step launcher has frozen its tasks (its
// state file says so), or has ended: gang scheduling resumes the next job
// on these CPUs only after this answer, so the two never run at once.
Status StepLauncher::suspendJob(uint64_t jobId) {
  if (auto signalled = controlSteps(jobId, SIGUSR1); !signalled) return signalled;
  auto deadline = std::chrono::steady_clock::now() + kSuspendConfirmation;
  for (;;) {
    std::string waitingFor;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(stepsDir(), ec)) {
      StepKey key;
      if (!parseDirName(entry.path().filename().string(), &key) || key.jobId != jobId) continue;
      if (fs::exists(entry.path() / "result.json")) continue;
      std::string state = stepState(entry.path());
      if (state == "suspended" || state == "done" || state == "terminating") continue;
      if (!alive(launcherPid(entry.path(), readPid(entry.path())))) continue;
      waitingFor = entry.path().filename().string();
      break;
    }
    if (waitingFor.empty()) return okStatus();
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error{ErrorCode::NotNow, "step " + waitingFor + " of job " + std::to_string(jobId) +
                                          " has not confirmed its suspension yet"};
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}
Status StepLauncher::resumeJob(uint64_t jobId) { return controlSteps(jobId, SIGUSR2); }
Status StepLauncher::terminateSteps(uint64_t jobId) { return controlSteps(jobId, SIGTERM); }

Status StepLauncher::controlSteps(uint64_t jobId, int signal) {
  std::lock_guard lock(mutex_);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(stepsDir(), ec)) {
    StepKey key;
    if (!parseDirName(entry.path().filename().string(), &key) || key.jobId != jobId) continue;
    if (fs::exists(entry.path() / "result.json")) continue;
    int pid = readPid(entry.path());
    if (pid > 0) ::kill(pid, signal);
  }
  return okStatus();
}

bool StepLauncher::anyStepRunning(const fs::path& stepsDir, uint64_t jobId) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(stepsDir, ec)) {
    StepKey key;
    if (!parseDirName(entry.path().filename().string(), &key) || key.jobId != jobId) continue;
    if (fs::exists(entry.path() / "result.json")) continue;
    int pid = launcherPid(entry.path(), readPid(entry.path()));
    if (alive(pid) || leftoversRemain(entry.path())) return true;
  }
  return false;
}

Status StepLauncher::endJob(uint64_t jobId) {
  if (auto signalled = controlSteps(jobId, SIGTERM); !signalled) return signalled;
  std::optional<fs::path> record;
  {
    std::lock_guard launching(jobRecordMutex_);
    record = claimJobRecord(jobsDir(), jobId);
  }
  if (record) finishInBackground(jobId, *record);
  return okStatus();
}

struct StepLauncher::PendingEpilog {
  boost::asio::steady_timer poll;
  fs::path steps;
  fs::path claimed;
  JobScripts scripts;
  uint64_t jobId = 0;
  std::shared_ptr<DrainReasons> drains;
  std::chrono::steady_clock::time_point giveUp;
};

void StepLauncher::finishInBackground(uint64_t jobId, fs::path claimedRecord) {
  // The steps may take their kill wait to end after SIGTERM and the caller
  // is an RPC with a deadline, so the Epilog waits on the launcher's event
  // thread. It owns copies of all it uses and outlives nothing but the
  // launcher (an Epilog the launcher drops is still claimed on disk and
  // runs after the agent's restart).
  auto pending = std::make_shared<PendingEpilog>(PendingEpilog{
      .poll = boost::asio::steady_timer(io_.executor()),
      .steps = stepsDir(),
      .claimed = std::move(claimedRecord),
      .scripts = options_.jobScripts,
      .jobId = jobId,
      .drains = drainReasons_,
      .giveUp = std::chrono::steady_clock::now() + options_.jobScripts.timeout});
  boost::asio::post(io_.executor(), [pending] { runEpilogWhenStepsGone(pending); });
}

void StepLauncher::runEpilogWhenStepsGone(const std::shared_ptr<PendingEpilog>& pending) {
  const uint64_t jobId = pending->jobId;
  bool running = anyStepRunning(pending->steps, jobId);
  if (running && std::chrono::steady_clock::now() < pending->giveUp) {
    pending->poll.expires_after(std::chrono::milliseconds(200));
    pending->poll.async_wait([pending](const boost::system::error_code& ec) {
      if (!ec) runEpilogWhenStepsGone(pending);
    });
    return;
  }
  if (running) spdlog::warn("job {}: steps still running, epilog runs anyway", jobId);
  finishJobOnNode(
      pending->poll.get_executor(), pending->claimed, pending->scripts,
      [jobId](const std::string& line) { spdlog::info("job {} epilog: {}", jobId, line); },
      [pending](Status finished) {
        const uint64_t jobId = pending->jobId;
        if (!finished) {
          // A node whose Epilog fails may not be clean for the next job.
          spdlog::error("job {}: {}", jobId, finished.error());
          std::lock_guard lock(pending->drains->mutex);
          pending->drains->reasons.push_back("job " + std::to_string(jobId) + ": " + finished.error());
        } else if (!pending->scripts.epilog.empty()) {
          spdlog::info("job {}: epilog done", jobId);
        }
      });
}

std::vector<std::string> StepLauncher::drainReasons() const {
  std::lock_guard lock(drainReasons_->mutex);
  return drainReasons_->reasons;
}

void StepLauncher::forgetDrainReasons(size_t count) {
  std::lock_guard lock(drainReasons_->mutex);
  auto& reasons = drainReasons_->reasons;
  reasons.erase(reasons.begin(), reasons.begin() + static_cast<std::ptrdiff_t>(std::min(count, reasons.size())));
}

}  // namespace gantry::agent
