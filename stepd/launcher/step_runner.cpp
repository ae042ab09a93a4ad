#include "stepd/launcher/step_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <optional>
#include <vector>

#include "common/switchlua/messages.h"
#include "common/switchlua/script_load.h"
#include "stepd/cgroup/control_files.h"
#include "stepd/cgroup/device_filter.h"
#include "stepd/cgroup/step_cgroup.h"
#include "stepd/gpu/step_gpu_library.h"
#include "stepd/core/dmem_limits.h"
#include "stepd/core/gpu_binding.h"
#include "stepd/core/step_control.h"
#include "stepd/core/step_spec.h"
#include "stepd/core/task_affinity.h"
#include "stepd/core/task_environment.h"
#include "stepd/launcher/io_forwarder.h"
#include "stepd/launcher/step_files.h"
#include "stepd/launcher/switch_step_hooks.h"
#include "stepd/launcher/task_launcher.h"
#include "stepd/launcher/task_streams.h"
#include "stepd/usage/usage_sampler.h"

namespace gantry::stepd {
namespace {

using SteadyClock = std::chrono::steady_clock;

struct Task {
  pid_t pid = 0;
  bool running = true;
  int exit_code = 0;
  int signal = 0;
};

class StepRunner {
 public:
  explicit StepRunner(const StepRunnerOptions& options) : dir_(options.step_dir), log_(dir_) {}
  ~StepRunner() {
    if (signal_fd_ >= 0) ::close(signal_fd_);
  }

  int run() {
    // Signals are blocked before the pid is published: a request that
    // arrives early waits for the loop instead of killing us.
    auto signals = setUpSignals();
    if (auto s = writeFileAtomically(dir_ + "/pid", std::to_string(::getpid()) + "\n"); !s)
      log_.info(s.error());
    // Descendants whose parent ends become ours, so none of them escapes
    // the step's end (see killAdopted).
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
      log_.info(std::string("cannot become a child subreaper: ") + std::strerror(errno));
    result_.start_time = std::time(nullptr);
    if (!signals) return finish(signals.error());
    auto spec = loadSpec();
    if (!spec) return finish(spec.error());
    spec_ = std::move(*spec);
    if (auto s = loadSwitchScript(); !s) return finish(s.error());
    if (auto s = switchPreinit(); !s) return finish(s.error());
    if (auto s = confine(); !s) return finish(s.error());
    if (auto s = switchInit(); !s) return finish(s.error());
    // Held from before the first task until the step's end (finish()).
    if (auto hold = holdStepGpuLibrary(spec_.gpu_library ? &*spec_.gpu_library : nullptr,
                                       [this](const std::string& line) { log_.info(line); })) {
      gpu_library_.emplace(std::move(*hold));  // a hold moves but is never assigned
    }
    kill_wait_ = std::chrono::seconds(spec_.kill_wait_sec);
    if (spec_.accounting) {
      usage_.emplace(spec_, gpu_library_ ? &*gpu_library_ : nullptr,
                     [this](const std::string& line) { log_.info(line); });
    }
    if (auto s = startTasks(); !s) {
      terminate();
      forceKill();
      supervise();
      return finish(s.error());
    }
    (void)writeStateFile(dir_, "running");
    supervise();
    return finish("");
  }

 private:
  Status setUpSignals() {
    sigset_t handled;
    sigemptyset(&handled);
    for (int sig : {SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGCHLD, taskSignalChannel()}) sigaddset(&handled, sig);
    if (sigprocmask(SIG_BLOCK, &handled, nullptr) != 0)
      return Error{std::string("cannot block signals: ") + std::strerror(errno)};
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    signal_fd_ = signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
    if (signal_fd_ < 0) return Error{std::string("signalfd failed: ") + std::strerror(errno)};
    return okStatus();
  }

  // SwitchType=switch/lua: the launcher loads switch.lua when it starts, and
  // a script that does not load fails the step before anything runs (the
  // spec's "error: switch/lua:" line, then its fatal line, in stepd.log).
  Status loadSwitchScript() {
    if (spec_.switch_script.empty()) return okStatus();
    auto loaded = switchlua::loadScript(spec_.switch_script, scriptSink());
    if (loaded) {
      switch_hooks_.emplace(spec_, scriptSink());
      return okStatus();
    }
    log_.error(loaded.error());
    log_.error(std::string(switchlua::kFatalLine));
    return Error{loaded.error()};
  }

  // The script's lines, already prefixed "switch/lua: <function>: ", go to
  // stepd.log, which the agent copies into its own log.
  switchlua::LogSink scriptSink() const {
    return [this](switchlua::ScriptLogLevel level, const std::string& line) {
      if (level == switchlua::ScriptLogLevel::Error) log_.error(line);
      else log_.info(line);
    };
  }

  // slurm_switch_step_preinit: before the step's cgroup exists.
  Status switchPreinit() {
    if (!switch_hooks_) return okStatus();
    return switch_hooks_->preinit();
  }

  // slurm_switch_step_init: once the cgroup exists, before any task. Its
  // environment goes into the submitted one, under the SLURM_* variables
  // taskEnvironment() sets, so the script cannot override those.
  Status switchInit() {
    if (!switch_hooks_) return okStatus();
    auto changes = switch_hooks_->init();
    if (!changes) return Error{changes.error()};
    for (const auto& [name, value] : changes->set) spec_.env[name] = value;
    for (const auto& name : changes->unset) spec_.env.erase(name);
    return okStatus();
  }

  Result<StepSpec> loadSpec() {
    auto text = readWholeFile(dir_ + "/spec.json");
    if (!text) return Error{text.error()};
    return parseStepSpec(*text);
  }

  TaskIdentity identity() const {
    return {.uid = spec_.uid, .gid = spec_.gid, .user = spec_.user,
            .switch_user = ::geteuid() == 0 && spec_.uid != ::geteuid()};
  }

  Status confine() {
    if (spec_.resctrl && !spec_.resctrl->group.empty()) {
      // Joined by this process before any fork so every task inherits it.
      const std::string tasks = spec_.resctrl->root + "/" + spec_.resctrl->group + "/tasks";
      if (auto s = writeControlFile(tasks, std::to_string(::getpid())); !s)
        return Error{"resctrl: cannot join group " + spec_.resctrl->group + ": " + s.error()};
      log_.info("resctrl: step joined group " + spec_.resctrl->group);
    }
    if (!spec_.cgroup) return okStatus();
    const CgroupSpec& c = *spec_.cgroup;
    auto cgroup = StepCgroup::create(
        {.root = c.root, .base = c.base, .job_dir_name = jobCgroupName(spec_.cluster, spec_.job_id, c.job_id_paths),
         .step_dir_name = stepCgroupName(spec_.step_id), .enable_controllers = c.enable_controllers,
         .constrain_cores = c.constrain_cores, .constrain_ram = c.constrain_ram,
         .constrain_device_memory = c.constrain_device_memory},
        {.cores = spec_.cores, .memory_bytes = spec_.mem_mb * 1024 * 1024,
         .dmem = dmemLimits(spec_.gpus, c.constrain_device_memory)});
    if (!cgroup) return Error{cgroup.error()};
    cgroup_ = std::move(*cgroup);
    log_.info("cgroup: step confined in " + cgroup_->stepPath());
    // Where the agent finds what is left of the step should we die.
    if (auto s = writeFileAtomically(dir_ + "/" + kCgroupFile, cgroup_->stepPath() + "\n"); !s) return s;
    if (c.constrain_devices) return constrainDevices();
    return okStatus();
  }

  // Refuses the node's other GPUs to the step. Without the node's device
  // list nothing can be refused, the step sees every device, and its GPU
  // variables keep node indexes.
  Status constrainDevices() {
    if (spec_.node_gpu_files.empty()) {
      log_.info("cgroup: ConstrainDevices without node_gpu_files in spec.json; devices are not confined");
      return okStatus();
    }
    std::vector<std::string> allocated;
    for (const auto& gpu : spec_.gpus) allocated.insert(allocated.end(), gpu.files.begin(), gpu.files.end());
    auto denied = deviceNumbers(filesToDeny(spec_.node_gpu_files, allocated), spec_.host_root);
    if (!denied) return Error{"ConstrainDevices: " + denied.error()};
    if (denied->empty()) {
      // The step holds every GPU of the node: there is nothing to refuse,
      // so no filter is needed, and the task sees exactly its devices.
      devices_constrained_ = true;
      log_.info("cgroup: the step holds every GPU of the node; no device file to refuse");
      return okStatus();
    }
    if (auto s = attachDeviceFilter(cgroup_->stepPath(), *denied); !s) return Error{"ConstrainDevices: " + s.error()};
    devices_constrained_ = true;
    log_.info("cgroup: " + std::to_string(denied->size()) + " device file(s) of other GPUs refused to the step");
    return okStatus();
  }

  // The batch script runs as the user, who may not enter the step
  // directory: it goes into a directory of the user's own (script_dir),
  // made afresh for the step.
  Result<std::string> makeScriptDir() {
    if (spec_.script_dir.empty()) return dir_;
    std::error_code ec;
    std::filesystem::remove_all(spec_.script_dir, ec);  // left by an earlier try of the step
    if (::mkdir(spec_.script_dir.c_str(), 0700) != 0)
      return Error{"cannot create " + spec_.script_dir + ": " + std::strerror(errno)};
    if (::geteuid() == 0 && ::chown(spec_.script_dir.c_str(), spec_.uid, spec_.gid) != 0)
      return Error{"cannot give " + spec_.script_dir + " to the user: " + std::strerror(errno)};
    return spec_.script_dir;
  }

  Result<std::vector<std::string>> taskArgv() {
    if (!spec_.isBatch()) return spec_.argv;
    auto script_dir = makeScriptDir();
    if (!script_dir) return Error{script_dir.error()};
    const std::string path = *script_dir + "/script";
    ::unlink(path.c_str());
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0700);
    if (fd < 0) return Error{"cannot write " + path + ": " + std::strerror(errno)};
    bool ok = ::write(fd, spec_.script.data(), spec_.script.size()) == static_cast<ssize_t>(spec_.script.size());
    if (::geteuid() == 0) ok = ::fchown(fd, spec_.uid, spec_.gid) == 0 && ok;
    ok = ::fchmod(fd, 0700) == 0 && ok;
    ::close(fd);
    if (!ok) return Error{"cannot write " + path + ": " + std::strerror(errno)};
    // For a batch step `argv` holds the script's arguments (sbatch job.sh a b).
    std::vector<std::string> argv = spec_.script.rfind("#!", 0) == 0 ? std::vector<std::string>{path}
                                                                     : std::vector<std::string>{"/bin/sh", path};
    argv.insert(argv.end(), spec_.argv.begin(), spec_.argv.end());
    return argv;
  }

  // srun -o/-e/-i: the step's files as a spec StepStreams opens (stdin
  // /dev/null when not named), or nothing when every stream goes to srun.
  std::optional<StepSpec> ioFilesSpec() const {
    const IoSpec& io = *spec_.io;
    if (io.pty || (io.stdout_file.empty() && io.stderr_file.empty() && io.stdin_file.empty())) return std::nullopt;
    StepSpec files = spec_;
    files.stdout_pattern = io.stdout_file;
    files.stderr_pattern = io.stderr_file;
    files.stdin_path = io.stdin_file.empty() ? "/dev/null" : io.stdin_file;
    return files;
  }

  // A task's srun streams with the named files in their place. As in
  // Slurm, -o alone takes stderr too.
  static TaskStreams withIoFiles(TaskStreams toSrun, const TaskStreams& files, const IoSpec& io) {
    if (!io.stdout_file.empty()) toSrun.out = files.out;
    if (!io.stderr_file.empty() || !io.stdout_file.empty()) toSrun.err = files.err;
    if (!io.stdin_file.empty()) toSrun.in = files.in;
    return toSrun;
  }

  Status startTasks() {
    if (spec_.holdsOnly()) {
      log_.info("extern step: holding the job's confinement, no task");
      return okStatus();
    }
    auto argv = taskArgv();
    if (!argv) return Error{argv.error()};
    std::optional<gres::GpuBind> gpu_bind;
    if (!spec_.gpu_bind.empty()) {
      auto parsed = gres::parseGpuBind(spec_.gpu_bind);
      if (!parsed) return Error{"--gpu-bind: " + parsed.error()};
      gpu_bind = *parsed;
    }
    if (spec_.io) {
      io_ = std::make_unique<IoForwarder>(spec_, *spec_.io);
      if (auto files = ioFilesSpec()) {
        auto opened = StepStreams::open(*files, identity());
        if (!opened) return Error{opened.error()};
        streams_.emplace(std::move(*opened));
      }
    } else {
      auto opened = StepStreams::open(spec_, identity());
      if (!opened) return Error{opened.error()};
      streams_.emplace(std::move(*opened));
    }
    for (int local = 0; local < spec_.tasks_on_node; ++local) {
      TaskStreams task_streams;
      if (io_) {
        auto opened = io_->openTask(spec_.first_task_id + local);
        if (!opened) return Error{opened.error()};
        task_streams = *opened;
        if (streams_) task_streams = withIoFiles(task_streams, streams_->forTask(local), *spec_.io);
      } else {
        task_streams = streams_->forTask(local);
      }
      std::optional<std::vector<size_t>> bound_gpus;
      if (gpu_bind && !spec_.gpus.empty()) bound_gpus = bindGpus(*gpu_bind, local, task_streams.err);
      TaskLaunch launch{
          .argv = *argv,
          .env = taskEnvironment(spec_, {.local_task_id = local,
                                         .devices_constrained = devices_constrained_,
                                         .bound_gpus = bound_gpus}),
          .work_dir = spec_.work_dir,
          .stdin_fd = task_streams.in,
          .stdout_fd = task_streams.out,
          .stderr_fd = task_streams.err,
          .identity = identity(),
          .cgroup_procs_path = cgroup_ ? cgroup_->stepPath() + "/cgroup.procs" : "",
          .controlling_terminal = spec_.io && spec_.io->pty,
          .cpu_affinity = taskCpus(local)};
      auto pid = launchTask(launch);
      if (!pid) return Error{"task " + std::to_string(spec_.first_task_id + local) + ": " + pid.error()};
      tasks_.push_back({.pid = *pid});
      if (usage_) usage_->addTask(static_cast<uint32_t>(spec_.first_task_id + local), *pid);
      recordTaskGroups();
    }
    // Connected only now: no gRPC thread exists while the tasks are forked.
    if (io_) {
      if (auto s = io_->start(); !s) return s;
    }
    log_.info("started " + std::to_string(tasks_.size()) + " task(s) of step " + std::to_string(spec_.job_id) +
              "." + spec_.step_id);
    return okStatus();
  }

  // task/affinity: the CPUs local task `local` is bound to (empty: none).
  std::vector<int> taskCpus(int local) const {
    if (!spec_.task_affinity) return {};
    return taskCpuSlice(spec_.cores, spec_.tasks_on_node, spec_.cpus_per_task, local).value_or(std::vector<int>{});
  }

  // The GPUs --gpu-bind gives local task `local`; what the task should know
  // about it (a binding that could not be followed, verbose) goes to its
  // standard error before it starts.
  std::vector<size_t> bindGpus(const gres::GpuBind& bind, int local, int stderr_fd) {
    TaskGpuBinding binding = bindTaskGpus(spec_, bind, local, devices_constrained_);
    std::string report = binding.note.empty() ? "" : binding.note + "\n";
    if (bind.verbose) report += describeBinding(spec_, local, binding) + "\n";
    if (!report.empty()) {
      log_.info(report.substr(0, report.size() - 1));
      if (stderr_fd >= 0 && ::write(stderr_fd, report.data(), report.size()) < 0)
        log_.info(std::string("gpu-bind: cannot tell the task: ") + std::strerror(errno));
    }
    return binding.positions;
  }

  // The agent kills these groups should we die (each task is a group leader).
  void recordTaskGroups() {
    std::string groups;
    for (const auto& task : tasks_) groups += std::to_string(task.pid) + "\n";
    if (auto s = writeFileAtomically(dir_ + "/" + kTaskGroupsFile, groups); !s) log_.info(s.error());
  }

  bool anyRunning() const {
    return std::any_of(tasks_.begin(), tasks_.end(), [](const Task& t) { return t.running; });
  }

  void signalTasks(int sig) {
    for (const auto& task : tasks_)
      if (task.running) ::kill(-task.pid, sig);
  }

  // A user's signal (scancel -s): to every process of the step (its cgroup,
  // else each task's process group), or to each task's own process only.
  // Suspend and resume stay the administrator's: a SIGCONT never undoes
  // a suspension, and nothing stops the tasks while they are being ended.
  void deliverUserSignal(const TaskSignal& request) {
    const int sig = request.signal;
    const bool stops = sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
    if ((sig == SIGCONT && suspended_) || (stops && terminating_)) {
      log_.info("user signal " + std::to_string(sig) + " not delivered: the step is " +
                (suspended_ ? "suspended" : "ending"));
      return;
    }
    log_.info("user signal " + std::to_string(sig) + " to the " +
              (request.reach == TaskSignalReach::TaskLeaderOnly ? "tasks' own processes" : "step's processes"));
    if (request.reach == TaskSignalReach::TaskLeaderOnly) {
      for (const auto& task : tasks_)
        if (task.running) ::kill(task.pid, sig);
      return;
    }
    if (cgroup_) {
      if (auto procs = readControlFile(cgroup_->stepPath() + "/cgroup.procs"); procs) {
        std::istringstream pids(*procs);
        for (pid_t pid = 0; pids >> pid;)
          if (pid > 0) ::kill(pid, sig);
        return;
      }
    }
    signalTasks(sig);
  }

  void suspend() {
    if (suspended_ || terminating_) return;
    bool frozen = false;
    if (cgroup_) {
      if (auto s = cgroup_->setFrozen(true); !s) {
        log_.info(s.error() + "; falling back to SIGSTOP");
      } else {
        frozen = true;
      }
    }
    if (!frozen) signalTasks(SIGSTOP);
    // The state file says "suspended" only once the tasks have really
    // stopped: the agent answers the controller on it, and gang scheduling
    // then lets another job run on these CPUs.
    waitUntilStopped(frozen);
    suspended_ = true;
    (void)writeStateFile(dir_, "suspended");
    log_.info("step suspended");
  }

  // Freezing and stopping complete asynchronously; waits (at most a
  // second) until cgroup.events says frozen, or every task leader shows
  // the stopped state in /proc.
  void waitUntilStopped(bool frozen) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    auto stopped = [&] {
      if (frozen) return cgroup_->isFrozen();
      for (const auto& task : tasks_) {
        if (!task.running) continue;
        std::ifstream stat("/proc/" + std::to_string(task.pid) + "/stat");
        std::string line;
        std::getline(stat, line);
        auto close = line.rfind(')');
        if (close == std::string::npos || close + 2 >= line.size()) continue;  // gone
        char state = line[close + 2];
        if (state != 'T' && state != 't' && state != 'Z') return false;
      }
      return true;
    };
    while (!stopped() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
  }

  void resume() {
    if (!suspended_) return;
    if (cgroup_) (void)cgroup_->setFrozen(false);
    signalTasks(SIGCONT);  // also undoes a SIGSTOP fallback; harmless otherwise
    suspended_ = false;
    (void)writeStateFile(dir_, terminating_ ? "terminating" : "running");
    log_.info("step resumed");
  }

  void terminate() {
    if (terminating_) return;
    terminating_ = true;
    resume();  // a frozen or stopped task cannot act on the grace signal
    signalTasks(SIGCONT);  // nor can one the user stopped (scancel -s STOP)
    signalTasks(SIGTERM);
    kill_deadline_ = SteadyClock::now() + kill_wait_;
    log_.info("terminating: SIGTERM sent to the tasks");
  }

  void forceKill() {
    if (killed_) return;
    killed_ = true;
    if (cgroup_) (void)cgroup_->killAll();
    signalTasks(SIGKILL);
    log_.info("terminating: tasks killed");
  }

  // Returns whether a child ended (SIGCHLD), so its task can be sampled
  // one last time before it is reaped.
  bool handleSignals() {
    bool child_ended = false;
    signalfd_siginfo info{};
    while (::read(signal_fd_, &info, sizeof info) == sizeof info) {
      if (static_cast<int>(info.ssi_signo) == taskSignalChannel()) {
        takeUserSignal(info);
        continue;
      }
      switch (info.ssi_signo) {
        case SIGTERM:
        case SIGINT: terminate(); break;
        case SIGUSR1: suspend(); break;
        case SIGUSR2: resume(); break;
        case SIGCHLD: child_ended = true; break;  // reaped below
        default: break;
      }
    }
    return child_ended;
  }

  void takeUserSignal(const signalfd_siginfo& info) {
    auto request = decodeTaskSignal(info.ssi_int);
    // Only the agent (root, or our own user when not run as root) asks.
    if (info.ssi_code != SI_QUEUE || (info.ssi_uid != 0 && info.ssi_uid != ::geteuid()) || !request) {
      log_.info("ignored a task signal request from uid " + std::to_string(info.ssi_uid));
      return;
    }
    deliverUserSignal(*request);
  }

  // Signals srun forwards (Ctrl-C) go to the tasks; SIGKILL (a second
  // Ctrl-C, or srun gone) ends the step at once.
  void handleForwardedSignals() {
    for (int sig : io_->takeSignals()) {
      log_.info("srun forwarded signal " + std::to_string(sig));
      if (sig == SIGKILL) {
        terminate();
        forceKill();
      } else {
        signalTasks(sig);
      }
    }
  }

  void reap() {
    int status = 0;
    pid_t pid;
    rusage usage{};
    while ((pid = ::wait4(-1, &status, WNOHANG, &usage)) > 0) {
      for (auto& task : tasks_) {
        if (task.pid != pid) continue;
        task.running = false;
        if (usage_) usage_->taskExited(pid, usage);
        if (WIFEXITED(status)) task.exit_code = WEXITSTATUS(status);
        if (WIFSIGNALED(status)) task.signal = WTERMSIG(status);
        if (WIFEXITED(status)) result_.exit_code = std::max(result_.exit_code, WEXITSTATUS(status));
        if (WIFSIGNALED(status) && result_.signal == 0) result_.signal = WTERMSIG(status);
      }
    }
  }

  // Usage sampling (JobAcctGatherFrequency task=): a deadline of the event
  // loop, never a sleep, so signals and exits are handled as they come.
  void sampleUsage() {
    if (!usage_) return;
    usage_->poll(cgroup_ ? cgroup_->deviceMemoryCurrent() : std::map<std::string, uint64_t>{});
    if (auto every = usage_->interval()) next_sample_ = SteadyClock::now() + *every;
  }

  // Milliseconds until the next deadline of the loop (-1: none).
  int nextTimeoutMs() const {
    std::optional<SteadyClock::time_point> deadline;
    if (terminating_ && !killed_) deadline = kill_deadline_;
    if (usage_ && usage_->interval()) deadline = deadline ? std::min(*deadline, next_sample_) : next_sample_;
    if (!deadline) return -1;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - SteadyClock::now());
    return static_cast<int>(std::max<int64_t>(0, left.count()));
  }

  void supervise() {
    reap();
    if (usage_ && usage_->interval()) next_sample_ = SteadyClock::now() + *usage_->interval();
    while (anyRunning() || (spec_.holdsOnly() && !terminating_)) {
      pollfd fds[2] = {{.fd = signal_fd_, .events = POLLIN, .revents = 0},
                       {.fd = io_ ? io_->signalFd() : -1, .events = POLLIN, .revents = 0}};
      ::poll(fds, 2, nextTimeoutMs());
      const bool child_ended = handleSignals();
      if (io_ && fds[1].revents != 0) handleForwardedSignals();
      // A task that ended is sampled once more before it is reaped (its
      // leader is a zombie: /proc still has its times).
      if (child_ended || (usage_ && usage_->interval() && SteadyClock::now() >= next_sample_)) sampleUsage();
      reap();
      if (terminating_ && !killed_ && SteadyClock::now() >= kill_deadline_) forceKill();
    }
  }

  // With the tasks gone, whatever they left running (a daemon, a
  // background job of the script) was reparented to us, the subreaper:
  // it ends with the step. Our own children cannot be replaced by another
  // process before we reap them, so this never signals a stranger.
  void killAdopted() {
    for (int round = 0; round < 100; ++round) {
      std::vector<pid_t> children;
      std::error_code ec;
      for (const auto& thread : std::filesystem::directory_iterator("/proc/self/task", ec)) {
        auto list = readWholeFile((thread.path() / "children").string());
        if (!list) continue;
        std::istringstream pids(*list);
        for (pid_t pid = 0; pids >> pid;) children.push_back(pid);
      }
      if (children.empty()) return;
      if (round == 0) log_.info("ending " + std::to_string(children.size()) + " process(es) the tasks left behind");
      for (pid_t pid : children) ::kill(pid, SIGKILL);
      for (pid_t pid : children) ::waitpid(pid, nullptr, 0);
    }
  }

  int finish(const std::string& message) {
    if (!message.empty()) {
      result_.message = message;
      if (result_.exit_code == 0) result_.exit_code = 1;
      log_.info("step failed: " + message);
    }
    if (cgroup_) {
      result_.dmem_peak_bytes = cgroup_->deviceMemoryPeak();
      (void)cgroup_->killAll();  // processes that left the task groups
    }
    if (usage_) result_.task_usage = usage_->finish(result_.dmem_peak_bytes);
    killAdopted();
    // slurm_switch_step_postfini: every process of the step is gone.
    if (switch_hooks_) {
      if (auto reason = switch_hooks_->postfini()) result_.drain_reason = *reason;
    }
    if (cgroup_) {
      if (auto s = cgroup_->remove(); !s) log_.info(s.error());
    }
    releaseStepGpuLibrary(gpu_library_, [this](const std::string& line) { log_.info(line); });
    if (!spec_.script_dir.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(spec_.script_dir, ec);
    }
    if (io_) {
      std::vector<TaskExitStatus> exits;
      for (size_t i = 0; i < tasks_.size(); ++i) {
        exits.push_back({.task_id = spec_.first_task_id + static_cast<int>(i),
                         .exit_code = tasks_[i].exit_code, .signal = tasks_[i].signal});
      }
      io_->finish(exits, message);
    }
    result_.end_time = std::time(nullptr);
    (void)writeStateFile(dir_, "done");
    if (auto s = writeResultFile(dir_, result_); !s) {
      log_.info(s.error());
      return 1;
    }
    log_.info("step done: exit_code=" + std::to_string(result_.exit_code) + " signal=" +
              std::to_string(result_.signal));
    return 0;
  }

  std::string dir_;
  StepLog log_;
  StepSpec spec_;
  std::optional<StepCgroup> cgroup_;
  std::optional<SwitchStepHooks> switch_hooks_;  // switch/lua's step functions, once the script loaded
  std::optional<detect::GpuLibraryHold> gpu_library_;
  std::optional<UsageSampler> usage_;  // with spec.json's accounting key
  SteadyClock::time_point next_sample_{};
  std::vector<Task> tasks_;
  std::optional<StepStreams> streams_;
  std::unique_ptr<IoForwarder> io_;
  StepResult result_;
  int signal_fd_ = -1;
  bool suspended_ = false;
  bool terminating_ = false;
  bool killed_ = false;
  bool devices_constrained_ = false;
  SteadyClock::time_point kill_deadline_{};
  std::chrono::milliseconds kill_wait_{std::chrono::seconds(10)};
};

}  // namespace

int runStep(const StepRunnerOptions& options) { return StepRunner(options).run(); }

}  // namespace gantry::stepd
