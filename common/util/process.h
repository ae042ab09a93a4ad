// Child processes without a thread waiting on each. runProcess() forks and
// execs a program in a process group of its own and returns at once; the
// child is then watched on an Asio executor: its exit through a pidfd where
// the kernel has pidfd_open (Linux 5.3 and later), otherwise by polling
// waitpid on a timer; its output is read as it comes; on a timeout the whole
// group is killed (SIGTERM, then SIGKILL after a grace), so processes the
// child started die too. Once the child is reaped the callback runs, once,
// with the outcome. Every child is reaped, whatever happens, as long as the
// executor's io_context runs.
//
// Threads: runProcess() and ProcessHandle's methods may be called from any
// thread and never wait for the child (runProcess forks, nothing more).
// Everything about one child (its timers, its output, onStarted, onOutput
// and the completion callback) runs on a strand of the executor given to
// runProcess(), so on a thread that runs that executor's io_context and
// never two at once for the same child. runProcessAndWait() blocks its
// caller and runs a private io_context on the calling thread.
//
// What the process must leave alone: the children the runner starts are
// reaped by the runner only. Calling waitpid(-1) elsewhere, or setting
// SIGCHLD to SIG_IGN, loses their exit status (see ProcessOutcome).
// Destroying the io_context while a child runs abandons it: it is not
// killed, not reaped by us, and its callback never runs.
#pragma once

#include <sys/types.h>

#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/result.h"

namespace gantry {

enum class OutputStream { Stdout, Stderr };

// Where a child's stdout or stderr goes.
struct OutputTarget {
  enum class Kind {
    Discard,       // /dev/null
    Capture,       // a pipe to us: kept in the outcome up to `limit` bytes
    File,          // appended to `file`, created with mode 0600
    SameAsStdout,  // stderr only: wherever stdout goes, in one stream, so
                   // the order of lines between the two is kept
  };
  Kind kind = Kind::Discard;
  // Capture: bytes kept; what comes after is still read (so the child never
  // blocks on a full pipe) and passed to onOutput, but dropped.
  size_t limit = 0;
  std::filesystem::path file{};

  static OutputTarget discard() { return {}; }
  static OutputTarget capture(size_t limit) { return {.kind = Kind::Capture, .limit = limit}; }
  static OutputTarget appendTo(std::filesystem::path file) { return {.kind = Kind::File, .file = std::move(file)}; }
  static OutputTarget sameAsStdout() { return {.kind = Kind::SameAsStdout}; }
};

// The identity a child runs as; switching needs CAP_SETUID/CAP_SETGID.
struct RunAs {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups{};  // supplementary groups; empty: none
};

// How the runner learns that a child ended.
enum class ExitWatch {
  Automatic,  // a pidfd where the kernel offers one, else polling
  Polling,    // waitpid(WNOHANG) on a timer even where pidfds work (tests)
};

struct ProcessSpec {
  // argv[0] is the program: a path, not looked up in PATH.
  std::vector<std::string> argv{};
  // The child's whole environment, "NAME=value" each; nothing is inherited
  // (inheritedEnvironment() gives ours, for children that should get it).
  std::vector<std::string> environment{};
  std::filesystem::path workDir{};  // empty: ours; entered after the switch to runAs
  std::optional<RunAs> runAs{};     // empty: our own identity
  std::filesystem::path stdinFile{};  // empty: /dev/null
  // Files are opened before the switch to runAs, with our privileges.
  OutputTarget stdoutTo{};
  OutputTarget stderrTo{};
  // Zero: no limit. Past it the group gets SIGTERM, then SIGKILL once
  // killGrace has passed (if anything of the group is left by then).
  std::chrono::milliseconds timeout{0};
  std::chrono::milliseconds killGrace{1000};
  // A session of its own (setsid) instead of a process group in ours, for
  // children meant to outlive us (gantrystepd). Nothing ties it to us: the
  // runner still reaps it and calls back while we live, but a detached
  // child may have no timeout and no Capture stream (a pipe to a process
  // that went away would break its writes).
  bool detached = false;
  ExitWatch exitWatch = ExitWatch::Automatic;
  // Called once the program runs (exec succeeded: ok) or could not be
  // started (the error), always before the completion callback.
  std::function<void(const Status&)> onStarted{};
  // What a Capture stream delivers, as it arrives (all of it, also past
  // the limit), e.g. to log it by line.
  std::function<void(OutputStream, std::string_view)> onOutput{};
};

struct ProcessOutcome {
  pid_t pid = 0;  // 0: no child was made
  // Set when the program never ran: the spec was refused, a pipe or fork
  // failed, or the child's set-up (stdin, an output file, groups, gid, uid,
  // working directory, exec) failed. startErrno is the errno behind it
  // (ENOENT for a missing program) or 0. The fields below are then unset.
  std::optional<Error> startError{};
  int startErrno = 0;
  // The exit status when it exited, -1 otherwise. Both -1 and signal 0: the
  // status was lost (someone else reaped the child).
  int exitCode = -1;
  int signal = 0;          // the signal that ended it, 0 when it exited
  bool timedOut = false;   // killed because it ran past the timeout
  bool cancelled = false;  // killed through ProcessHandle::cancel()
  std::string stdoutText{};
  std::string stderrText{};
  bool stdoutTruncated = false;  // more came than the limit kept
  bool stderrTruncated = false;

  bool started() const { return !startError.has_value(); }
  bool succeeded() const { return started() && exitCode == 0 && signal == 0 && !timedOut && !cancelled; }
};

using ProcessCallback = std::function<void(ProcessOutcome)>;

namespace detail {
class ChildWatch;
}

// Refers to a child started by runProcess(); copyable; does not keep the
// child's watch alive. Every method may be called from any thread, also
// after the child ended (then they do nothing).
class ProcessHandle {
 public:
  ProcessHandle() = default;
  // 0 when no child was made.
  pid_t pid() const { return pid_; }
  // Sends `signal` to the child's process group.
  void signal(int signal) const;
  // Ends the child as a timeout would (SIGTERM to the group, SIGKILL after
  // the grace); its outcome says cancelled.
  void cancel() const;

 private:
  friend ProcessHandle runProcess(boost::asio::any_io_executor, ProcessSpec, ProcessCallback);
  ProcessHandle(pid_t pid, std::weak_ptr<detail::ChildWatch> watch) : pid_(pid), watch_(std::move(watch)) {}
  pid_t pid_ = 0;
  std::weak_ptr<detail::ChildWatch> watch_;
};

// Starts `spec`'s program and returns without waiting for it; `done` runs
// once on a strand of `executor` when the child is reaped, or when it could
// not be started (then startError says why; never an exception).
ProcessHandle runProcess(boost::asio::any_io_executor executor, ProcessSpec spec, ProcessCallback done);

// Runs `spec` to its end on a private io_context on the calling thread.
// For callers that have a thread of their own and must wait anyway.
ProcessOutcome runProcessAndWait(ProcessSpec spec);

// This process's environment as "NAME=value" entries.
std::vector<std::string> inheritedEnvironment();

// "exit 3", "signal 9", "timed out", "cancelled", or the start error.
std::string describeOutcome(const ProcessOutcome& outcome);

}  // namespace gantry
