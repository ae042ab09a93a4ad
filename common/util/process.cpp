#include "common/util/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>

extern char** environ;

namespace gantry {
namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

// What the child tells us through its CLOEXEC pipe when its set-up fails;
// nothing at all (end of file at exec) when the program runs.
enum class SetupStep : int { Stdin, Stdout, Stderr, Groups, Gid, Uid, WorkDir, Exec };

struct SetupFailure {
  SetupStep step;
  int error;
};

std::string stepName(SetupStep step) {
  switch (step) {
    case SetupStep::Stdin: return "cannot open stdin";
    case SetupStep::Stdout: return "cannot open stdout";
    case SetupStep::Stderr: return "cannot open stderr";
    case SetupStep::Groups: return "cannot set the supplementary groups";
    case SetupStep::Gid: return "cannot set the gid";
    case SetupStep::Uid: return "cannot set the uid";
    case SetupStep::WorkDir: return "cannot enter the working directory";
    case SetupStep::Exec: return "exec failed";
  }
  return "set-up failed";
}

// A descriptor above 2, so no dup2 onto 0-2 in the child can clobber it
// (our own 0-2 may be closed when we were started without them).
int aboveStandard(int fd) {
  if (fd > 2) return fd;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  close(fd);
  return moved;
}

struct Pipe {
  int read = -1;
  int write = -1;
};

// Both ends CLOEXEC; the read end non-blocking (we read it), the write end
// blocking (it becomes the child's stdout or its report channel).
bool makePipe(Pipe& pipe) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  pipe.read = aboveStandard(fds[0]);
  pipe.write = aboveStandard(fds[1]);
  if (pipe.read < 0 || pipe.write < 0) return false;
  fcntl(pipe.read, F_SETFL, O_NONBLOCK);
  return true;
}

void closeIfOpen(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Everything the child needs, made before it starts. The child shares our
// memory until it execs (see startChild), so it only reads this plan and
// makes system calls: no allocation, no lock, nothing another of our
// threads could be holding.
struct ChildPlan {
  std::vector<std::string> argvText;
  std::vector<std::string> envText;
  std::vector<char*> argv;
  std::vector<char*> envp;
  std::string stdinPath;
  std::string stdoutFile, stderrFile;  // empty: not a file
  int stdoutPipe = -1, stderrPipe = -1;  // write ends, -1: not captured
  bool stderrToStdout = false;
  bool detached = false;
  std::optional<RunAs> runAs;
  std::string workDir;
  int reportFd = -1;
};

[[noreturn]] void childFails(int reportFd, SetupStep step) {
  SetupFailure failure{step, errno};
  // One small write to a pipe is atomic; nothing to do if it fails.
  (void)!write(reportFd, &failure, sizeof failure);
  _exit(127);
}

int openOutput(const std::string& file, int pipeFd) {
  if (pipeFd >= 0) return pipeFd;
  return open(file.empty() ? "/dev/null" : file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
}

// In the child: never returns.
[[noreturn]] void becomeChild(const ChildPlan& plan) {
  // Ours may be caught, ignored (gRPC ignores SIGPIPE) or blocked (the
  // agent blocks SIGTERM for sigwait); the program starts with defaults.
  struct sigaction defaults {};
  defaults.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &defaults, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);

  if (plan.detached) {
    setsid();
  } else {
    setpgid(0, 0);
  }
  int in = open(plan.stdinPath.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0 || dup2(in, 0) < 0) childFails(plan.reportFd, SetupStep::Stdin);
  int out = openOutput(plan.stdoutFile, plan.stdoutPipe);
  if (out < 0 || dup2(out, 1) < 0) childFails(plan.reportFd, SetupStep::Stdout);
  int err = plan.stderrToStdout ? 1 : openOutput(plan.stderrFile, plan.stderrPipe);
  if (err < 0 || dup2(err, 2) < 0) childFails(plan.reportFd, SetupStep::Stderr);
  // Descriptors of ours that lack CLOEXEC must not leak into the program;
  // where close_range is missing (before Linux 5.9) CLOEXEC has to do.
  if (plan.reportFd > 3) close_range(3, static_cast<unsigned>(plan.reportFd - 1), 0);
  close_range(static_cast<unsigned>(plan.reportFd + 1), ~0U, 0);

  if (plan.runAs) {
    // The raw system calls: glibc's wrappers would change the ids of every
    // thread of the process, which in a child sharing our memory means
    // signalling our own threads.
    const auto& groups = plan.runAs->groups;
    if (syscall(SYS_setgroups, groups.size(), groups.empty() ? nullptr : groups.data()) != 0) {
      childFails(plan.reportFd, SetupStep::Groups);
    }
    if (syscall(SYS_setgid, plan.runAs->gid) != 0) childFails(plan.reportFd, SetupStep::Gid);
    if (syscall(SYS_setuid, plan.runAs->uid) != 0) childFails(plan.reportFd, SetupStep::Uid);
  }
  if (!plan.workDir.empty() && chdir(plan.workDir.c_str()) != 0) childFails(plan.reportFd, SetupStep::WorkDir);
  execve(plan.argv[0], plan.argv.data(), plan.envp.data());
  childFails(plan.reportFd, SetupStep::Exec);
}

int childEntry(void* plan) { becomeChild(*static_cast<const ChildPlan*>(plan)); }

// Starts the child as posix_spawn does: a clone that shares our memory and
// suspends this thread until the child has exec'd (or failed), on a stack
// of its own. A fork would copy the page tables of the whole process first,
// which for a controller with many calls starting costs more than the
// calls themselves (docs/performance.md, switch/lua). Every signal stays
// blocked while the child runs our code; it sets its own handlers to the
// defaults before it unblocks them. Returns the pid, or -1 with errno.
pid_t startChild(const ChildPlan& plan) {
  constexpr size_t kChildStack = 256 * 1024;
  std::vector<char> stack(kChildStack);
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  pid_t pid = clone(childEntry, stack.data() + stack.size(), CLONE_VM | CLONE_VFORK | SIGCHLD,
                    const_cast<ChildPlan*>(&plan));
  int cloneError = errno;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  errno = cloneError;
  return pid;
}

std::optional<std::string> refusal(const ProcessSpec& spec) {
  if (spec.argv.empty() || spec.argv[0].empty()) return "no program given";
  if (spec.stdoutTo.kind == OutputTarget::Kind::SameAsStdout) return "stdout cannot go to itself";
  if (spec.timeout.count() < 0 || spec.killGrace.count() < 0) return "negative timeout or kill grace";
  if (spec.detached) {
    if (spec.timeout.count() > 0) return "a detached child has no timeout";
    if (spec.stdoutTo.kind == OutputTarget::Kind::Capture || spec.stderrTo.kind == OutputTarget::Kind::Capture) {
      return "a detached child's output cannot be captured";
    }
  }
  for (const auto& target : {spec.stdoutTo, spec.stderrTo}) {
    if (target.kind == OutputTarget::Kind::File && target.file.empty()) return "an output file without a path";
  }
  return std::nullopt;
}

// Linux 5.3 and later; -1 (and fall back to polling) anywhere else.
int openPidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

// Whether a process of group `pgid` is still running. kill(0) alone also
// counts zombies, and the orphans of a killed group are zombies until init
// reaps them, which some inits do only now and then; so when the kernel
// says the group exists, /proc tells whether anything in it still runs.
bool groupRuns(pid_t pgid) {
  if (killpg(pgid, 0) != 0) return errno == EPERM;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return true;
  bool runs = false;
  while (dirent* entry = readdir(proc)) {
    if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
    char path[sizeof "/proc//stat" + sizeof entry->d_name];
    std::snprintf(path, sizeof path, "/proc/%s/stat", entry->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    char text[512];
    ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got <= 0) continue;
    text[got] = '\0';
    // "pid (comm) state ppid pgrp ...": comm may hold anything, so parse
    // from its closing parenthesis.
    const char* end = std::strrchr(text, ')');
    char state = 0;
    int parent = 0, group = 0;
    if (end == nullptr || std::sscanf(end + 1, " %c %d %d", &state, &parent, &group) != 3) continue;
    if (group == pgid && state != 'Z' && state != 'X') {
      runs = true;
      break;
    }
  }
  closedir(proc);
  return runs;
}

}  // namespace

namespace detail {

// One child from fork to callback. Owned by the handlers it has pending
// (shared_ptr); every member is touched on strand_ only, after start().
class ChildWatch : public std::enable_shared_from_this<ChildWatch> {
 public:
  using Strand = asio::strand<asio::any_io_executor>;

  ChildWatch(Strand strand, pid_t pid, ProcessSpec spec, ProcessCallback done)
      : strand_(std::move(strand)),
        pid_(pid),
        spec_(std::move(spec)),
        done_(std::move(done)),
        report_(strand_),
        stdout_(strand_),
        stderr_(strand_),
        pidfd_(strand_),
        exitPoll_(strand_),
        deadline_(strand_),
        grace_(strand_) {
    outcome_.pid = pid;
  }

  // Takes the descriptors (read ends and the pidfd, -1 where none).
  void start(int reportFd, int stdoutFd, int stderrFd, int pidfd) {
    asio::post(strand_, [self = shared_from_this(), reportFd, stdoutFd, stderrFd, pidfd] {
      self->adopt(self->report_, reportFd);
      self->watchReport();
      self->adopt(self->stdout_, stdoutFd);
      self->adopt(self->stderr_, stderrFd);
      self->watchOutput(OutputStream::Stdout);
      self->watchOutput(OutputStream::Stderr);
      if (self->adopt(self->pidfd_, pidfd)) {
        self->watchPidfd();
      } else {
        self->pollExit(std::chrono::milliseconds(1));
      }
      if (self->spec_.timeout.count() > 0) {
        self->deadline_.expires_after(self->spec_.timeout);
        self->deadline_.async_wait([self](const boost::system::error_code& ec) {
          if (ec || self->reaped_ || self->killing_) return;
          self->outcome_.timedOut = true;
          self->beginKill();
        });
      }
    });
  }

  void signal(int signal) {
    asio::post(strand_, [self = shared_from_this(), signal] {
      if (!self->reaped_) self->signalGroup(signal);
    });
  }

  void cancel() {
    asio::post(strand_, [self = shared_from_this()] {
      if (self->reaped_ || self->killing_) return;
      self->outcome_.cancelled = true;
      self->beginKill();
    });
  }

 private:
  using Descriptor = asio::posix::stream_descriptor;

  // False (and the descriptor closed) when there is none or the reactor
  // refuses it; a pipe we cannot watch is then simply not read.
  bool adopt(Descriptor& descriptor, int fd) {
    if (fd < 0) return false;
    boost::system::error_code ec;
    descriptor.assign(fd, ec);
    if (!ec) return true;
    ::close(fd);
    return false;
  }

  Descriptor& pipeOf(OutputStream stream) { return stream == OutputStream::Stdout ? stdout_ : stderr_; }

  void watchReport() {
    report_.async_wait(Descriptor::wait_read, [self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec || !self->report_.is_open()) return;
      if (!self->readReport()) self->watchReport();
    });
  }

  // True once the child's report is complete (exec done or set-up failed).
  bool readReport() {
    SetupFailure failure{};
    ssize_t got = read(report_.native_handle(), &failure, sizeof failure);
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) return false;
    report_.close();
    if (got == static_cast<ssize_t>(sizeof failure)) {
      std::string what = failure.step == SetupStep::Exec ? std::string() : stepName(failure.step) + ": ";
      ErrorCode kind = failure.error == ENOENT                             ? ErrorCode::NotFound
                       : failure.error == EACCES || failure.error == EPERM ? ErrorCode::Denied
                                                                           : ErrorCode::Internal;
      outcome_.startError = Error{kind, "cannot start " + spec_.argv[0] + ": " + what + std::strerror(failure.error)};
      outcome_.startErrno = failure.error;
    }
    notifyStarted();
    return true;
  }

  void notifyStarted() {
    if (startedNotified_) return;
    startedNotified_ = true;
    if (!spec_.onStarted) return;
    if (outcome_.startError) {
      spec_.onStarted(*outcome_.startError);
    } else {
      spec_.onStarted(okStatus());
    }
  }

  void watchOutput(OutputStream stream) {
    Descriptor& pipe = pipeOf(stream);
    if (!pipe.is_open()) return;
    pipe.async_wait(Descriptor::wait_read, [self = shared_from_this(), stream](const boost::system::error_code& ec) {
      if (ec || !self->pipeOf(stream).is_open()) return;
      if (self->drain(stream)) self->watchOutput(stream);
    });
  }

  // Reads what the pipe holds now; false once it is closed (end of file).
  bool drain(OutputStream stream) {
    Descriptor& pipe = pipeOf(stream);
    const bool isStdout = stream == OutputStream::Stdout;
    const size_t limit = (isStdout ? spec_.stdoutTo : spec_.stderrTo).limit;
    std::string& kept = isStdout ? outcome_.stdoutText : outcome_.stderrText;
    bool& truncated = isStdout ? outcome_.stdoutTruncated : outcome_.stderrTruncated;
    char buffer[16384];
    while (pipe.is_open()) {
      ssize_t got = read(pipe.native_handle(), buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0 && errno == EAGAIN) return true;
      if (got <= 0) {
        pipe.close();
        return false;
      }
      std::string_view chunk(buffer, static_cast<size_t>(got));
      size_t room = limit > kept.size() ? limit - kept.size() : 0;
      kept.append(chunk.substr(0, room));
      if (chunk.size() > room) truncated = true;
      if (spec_.onOutput) spec_.onOutput(stream, chunk);
    }
    return false;
  }

  void watchPidfd() {
    pidfd_.async_wait(Descriptor::wait_read, [self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec) return;
      if (!self->tryReap()) self->watchPidfd();
    });
  }

  // Without a pidfd: look often at first (most helpers are quick), then
  // settle at ten times a second.
  void pollExit(std::chrono::milliseconds delay) {
    exitPoll_.expires_after(delay);
    exitPoll_.async_wait([self = shared_from_this(), delay](const boost::system::error_code& ec) {
      if (ec) return;
      if (!self->tryReap()) self->pollExit(std::min<std::chrono::milliseconds>(delay * 2, std::chrono::milliseconds(100)));
    });
  }

  bool tryReap() {
    int status = 0;
    pid_t got = waitpid(pid_, &status, WNOHANG);
    if (got == 0) return false;
    if (got < 0 && errno == EINTR) return false;
    if (got == pid_) {
      if (WIFEXITED(status)) outcome_.exitCode = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) outcome_.signal = WTERMSIG(status);
    }
    reaped_ = true;
    onReaped();
    return true;
  }

  void onReaped() {
    pidfd_.close();
    exitPoll_.cancel();
    deadline_.cancel();
    // The child is gone, so its report is final. Its output is taken as far
    // as it is there now: processes it left behind may hold the pipes open
    // for a long time, and the child's end is what we wait for.
    if (report_.is_open()) readReport();
    if (outcome_.startError) outcome_.exitCode = -1;
    drain(OutputStream::Stdout);
    drain(OutputStream::Stderr);
    stdout_.close();
    stderr_.close();
    // A timeout or cancel in progress ends when the group is gone, or when
    // the grace is over and SIGKILL went to what is left of it.
    if (killing_ && !graceOver_) {
      watchGroup();
    } else {
      finish();
    }
  }

  // After the child's reap while killing: done as soon as nothing of its
  // group runs any more, or when the grace is over.
  void watchGroup(std::chrono::milliseconds delay = std::chrono::milliseconds(5)) {
    if (!groupRuns(pid_)) {
      finish();
      return;
    }
    exitPoll_.expires_after(delay);
    exitPoll_.async_wait([self = shared_from_this(), delay](const boost::system::error_code& ec) {
      if (!ec && !self->finished_) self->watchGroup(std::min<std::chrono::milliseconds>(delay * 2, std::chrono::milliseconds(100)));
    });
  }

  void beginKill() {
    killing_ = true;
    signalGroup(SIGTERM);
    signalGroup(SIGCONT);  // a stopped process acts on SIGTERM only once it runs
    grace_.expires_after(spec_.killGrace);
    grace_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec) return;
      self->graceOver_ = true;
      self->signalGroup(SIGKILL);
      if (self->reaped_) self->finish();  // otherwise the reap finishes
    });
  }

  void signalGroup(int signal) {
    // Between fork and its setpgid the child is still in our group: then
    // only the child itself gets the signal (it has started nothing yet).
    if (killpg(pid_, signal) != 0 && errno == ESRCH && !reaped_) kill(pid_, signal);
  }

  void finish() {
    if (finished_) return;
    finished_ = true;
    grace_.cancel();
    exitPoll_.cancel();
    report_.close();
    stdout_.close();
    stderr_.close();
    pidfd_.close();
    notifyStarted();
    ProcessCallback done = std::move(done_);
    if (done) done(std::move(outcome_));
  }

  Strand strand_;
  pid_t pid_;
  ProcessSpec spec_;
  ProcessCallback done_;
  ProcessOutcome outcome_;
  Descriptor report_;
  Descriptor stdout_;
  Descriptor stderr_;
  Descriptor pidfd_;
  asio::steady_timer exitPoll_;
  asio::steady_timer deadline_;
  asio::steady_timer grace_;
  bool startedNotified_ = false;
  bool reaped_ = false;
  bool killing_ = false;
  bool graceOver_ = false;
  bool finished_ = false;
};

}  // namespace detail

void ProcessHandle::signal(int signal) const {
  if (auto watch = watch_.lock()) watch->signal(signal);
}

void ProcessHandle::cancel() const {
  if (auto watch = watch_.lock()) watch->cancel();
}

namespace {

// Reports a child that was never made, on the strand like any outcome.
ProcessHandle failBeforeFork(const asio::strand<asio::any_io_executor>& strand, ProcessSpec spec,
                             ProcessCallback done, Error error, int errnoValue) {
  asio::post(strand, [spec = std::move(spec), done = std::move(done), error = std::move(error), errnoValue] {
    ProcessOutcome outcome;
    outcome.startError = error;
    outcome.startErrno = errnoValue;
    if (spec.onStarted) spec.onStarted(error);
    if (done) done(std::move(outcome));
  });
  return {};
}

ChildPlan planFor(const ProcessSpec& spec) {
  ChildPlan plan;
  plan.argvText = spec.argv;
  plan.envText = spec.environment;
  for (auto& arg : plan.argvText) plan.argv.push_back(arg.data());
  plan.argv.push_back(nullptr);
  for (auto& entry : plan.envText) plan.envp.push_back(entry.data());
  plan.envp.push_back(nullptr);
  plan.stdinPath = spec.stdinFile.empty() ? "/dev/null" : spec.stdinFile.string();
  if (spec.stdoutTo.kind == OutputTarget::Kind::File) plan.stdoutFile = spec.stdoutTo.file.string();
  if (spec.stderrTo.kind == OutputTarget::Kind::File) plan.stderrFile = spec.stderrTo.file.string();
  plan.stderrToStdout = spec.stderrTo.kind == OutputTarget::Kind::SameAsStdout;
  plan.detached = spec.detached;
  plan.runAs = spec.runAs;
  plan.workDir = spec.workDir.string();
  return plan;
}

}  // namespace

ProcessHandle runProcess(asio::any_io_executor executor, ProcessSpec spec, ProcessCallback done) {
  auto strand = asio::make_strand(executor);
  if (auto refused = refusal(spec)) {
    std::string program = spec.argv.empty() ? std::string("a process") : spec.argv[0];
    Error failure{ErrorCode::Invalid, "cannot start " + program + ": " + *refused};
    return failBeforeFork(strand, std::move(spec), std::move(done), std::move(failure), 0);
  }
  ChildPlan plan = planFor(spec);
  Pipe report, out, err;
  const bool captureOut = spec.stdoutTo.kind == OutputTarget::Kind::Capture;
  const bool captureErr = spec.stderrTo.kind == OutputTarget::Kind::Capture;
  auto closeAll = [&] {
    for (Pipe* pipe : {&report, &out, &err}) {
      closeIfOpen(pipe->read);
      closeIfOpen(pipe->write);
    }
  };
  if (!makePipe(report) || (captureOut && !makePipe(out)) || (captureErr && !makePipe(err))) {
    int error = errno;
    closeAll();
    Error failure{ErrorCode::Internal, "cannot start " + spec.argv[0] + ": cannot create a pipe: " + std::strerror(error)};
    return failBeforeFork(strand, std::move(spec), std::move(done), std::move(failure), error);
  }
  plan.reportFd = report.write;
  plan.stdoutPipe = out.write;
  plan.stderrPipe = err.write;

  pid_t pid = startChild(plan);
  int forkError = errno;
  closeIfOpen(report.write);
  closeIfOpen(out.write);
  closeIfOpen(err.write);
  if (pid < 0) {
    closeAll();
    Error failure{ErrorCode::Internal, "cannot start " + spec.argv[0] + ": fork failed: " + std::strerror(forkError)};
    return failBeforeFork(strand, std::move(spec), std::move(done), std::move(failure), forkError);
  }
  // Also from this side, so the group exists before we might signal it
  // (fails harmlessly when the child already did it, or exec'd).
  if (!spec.detached) setpgid(pid, pid);
  // A pidfd is CLOEXEC from the start; where there is none we poll.
  int pidfd = spec.exitWatch == ExitWatch::Automatic ? openPidfd(pid) : -1;

  auto watch = std::make_shared<detail::ChildWatch>(strand, pid, std::move(spec), std::move(done));
  watch->start(report.read, out.read, err.read, pidfd);
  return ProcessHandle(pid, watch);
}

ProcessOutcome runProcessAndWait(ProcessSpec spec) {
  asio::io_context io;
  ProcessOutcome result;
  runProcess(io.get_executor(), std::move(spec), [&result](ProcessOutcome outcome) { result = std::move(outcome); });
  io.run();
  return result;
}

std::vector<std::string> inheritedEnvironment() {
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) entries.emplace_back(*entry);
  return entries;
}

std::string describeOutcome(const ProcessOutcome& outcome) {
  if (outcome.startError) return outcome.startError->message;
  if (outcome.timedOut) return "timed out";
  if (outcome.cancelled) return "cancelled";
  if (outcome.signal != 0) return "signal " + std::to_string(outcome.signal);
  if (outcome.exitCode < 0) return "exit status lost";
  return "exit " + std::to_string(outcome.exitCode);
}

}  // namespace gantry
