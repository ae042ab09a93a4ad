#include "controller/switch/runner/call_runner.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <cerrno>
#include <cstring>

#include "controller/switch/runner/call_protocol.h"

namespace gantry::interconnect {
namespace {

// Bounds on what one call may send, so that a runaway script costs the
// controller bounded memory: a result line (a dictionary of 32768 entries
// is a few MiB of JSON) and the lines it logs.
constexpr size_t kLongestLine = 64u << 20;
constexpr size_t kMostLogBytes = 4u << 20;

// What has come over one call's result channel so far. Touched only on
// the call's strand (runProcess's onOutput and completion callback).
class ChannelReader {
 public:
  void take(std::string_view chunk) {
    if (broken_) return;
    // Only the new bytes can hold a newline not seen yet: a long line is
    // not searched again with every chunk.
    const size_t unseen = pending_.size();
    pending_.append(chunk);
    size_t start = 0;
    for (size_t end; (end = pending_.find('\n', std::max(start, unseen))) != std::string::npos; start = end + 1) {
      handle(std::string_view(pending_).substr(start, end - start));
    }
    pending_.erase(0, start);
    if (pending_.size() > kLongestLine) brokenBy("a line of more than " + std::to_string(kLongestLine) + " bytes");
  }

  // Called once the process is gone: what it left in the channel.
  void fill(CallEnd& end, std::vector<ReportedLogLine>& log) {
    if (!pending_.empty() && !broken_) brokenBy("the channel ended in the middle of a line");
    if (dropped_ > 0) {
      log_.push_back({switchlua::ScriptLogLevel::Error,
                      "switch/lua: " + std::to_string(dropped_) + " more lines of this call were dropped (over " +
                          std::to_string(kMostLogBytes) + " bytes logged)"});
    }
    end.result = std::move(result_);
    end.orderRefused = std::move(orderRefused_);
    end.channelProblem = std::move(problem_);
    log = std::move(log_);
  }

 private:
  void handle(std::string_view text) {
    if (broken_ || result_ || orderRefused_) return;  // nothing counts after the closing line
    auto message = decodeChannelLine(text);
    if (!message) {
      brokenBy(message.error());
      return;
    }
    if (auto* line = std::get_if<channel::LogLine>(&*message)) {
      logBytes_ += line->line.size();
      if (logBytes_ > kMostLogBytes) {
        ++dropped_;
      } else {
        log_.push_back({line->level, std::move(line->line)});
      }
    } else if (auto* finished = std::get_if<channel::Finished>(&*message)) {
      result_ = std::move(finished->result);
    } else {
      orderRefused_ = std::get<channel::OrderRefused>(*message).why;
    }
  }

  void brokenBy(std::string why) {
    broken_ = true;
    problem_ = std::move(why);
    pending_.clear();
  }

  std::string pending_;
  bool broken_ = false;
  std::vector<ReportedLogLine> log_;
  size_t logBytes_ = 0;
  size_t dropped_ = 0;
  std::optional<switchlua::CallResult> result_;
  std::optional<std::string> orderRefused_;
  std::optional<std::string> problem_;
};

// The order, in a memory file the helper reads as its standard input
// (opened by path in the child before it execs, so it starts at offset 0).
// -1 with errno set when it cannot be made.
int orderFile(const CallRequest& request) {
  int fd = memfd_create("gantry-switch-call-order", MFD_CLOEXEC);
  if (fd < 0) return -1;
  CallOrder order{request.script, request.function, request.arguments, std::nullopt};
  if (geteuid() == 0) {
    order.runAs = CallIdentity{.uid = request.uid, .gid = request.gid,
                               .groups = std::vector<uint32_t>(request.groups.begin(), request.groups.end())};
  }
  std::string text = encodeOrder(order);
  for (size_t done = 0; done < text.size();) {
    ssize_t wrote = write(fd, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      int error = errno;
      close(fd);
      errno = error;
      return -1;
    }
    done += static_cast<size_t>(wrote);
  }
  return fd;
}

void raiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);  // best effort: at the old limit, calls past it fail to start
}

CallEnd endOf(const ProcessOutcome& outcome) {
  CallEnd end;
  if (outcome.startError) end.startError = outcome.startError->message;
  end.exitCode = outcome.exitCode;
  end.signal = outcome.signal;
  end.timedOut = outcome.timedOut;
  end.cancelled = outcome.cancelled;
  return end;
}

}  // namespace

std::filesystem::path helperBesideSelf() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (ec ? std::filesystem::path() : self.parent_path()) / "gantryswitchcall";
}

CallRunner::CallRunner(CallRunnerOptions options)
    : helper_(options.helper.empty() ? helperBesideSelf() : std::move(options.helper)) {
  raiseOpenFileLimit();
}

CallRunner::~CallRunner() {
  std::unique_lock lock(mutex_);
  stopping_ = true;
  for (auto& [id, call] : calls_) {
    if (call.launched) {
      call.handle.cancel();
    } else {
      call.killRequested = true;  // launch() drops it
    }
  }
  allEnded_.wait(lock, [this] { return calls_.empty(); });
}

RunnerCallId CallRunner::start(CallRequest request, CallDone done) {
  RunnerCallId id = 0;
  {
    std::lock_guard lock(mutex_);
    id = nextId_++;
    calls_.emplace(id, Call{});
  }
  boost::asio::post(io_.executor(), [this, id, request = std::move(request), done = std::move(done)]() mutable {
    launch(id, std::move(request), std::move(done));
  });
  return id;
}

// On the runner's thread, which is also where every completion callback
// runs: none can come for this call before its handle is stored.
void CallRunner::launch(RunnerCallId id, CallRequest request, CallDone done) {
  bool killedBeforeStart = false;
  {
    std::lock_guard lock(mutex_);
    killedBeforeStart = calls_.at(id).killRequested;
  }
  if (killedBeforeStart) {
    CallReport report;
    report.kind = CallReport::Kind::Cancelled;
    report.detail = "killed on request before it started";
    finished(id, std::move(report), done);
    return;
  }
  auto reader = std::make_shared<ChannelReader>();
  ProcessSpec spec;
  spec.argv = {helper_.string()};
  spec.environment = inheritedEnvironment();
  spec.stdoutTo = OutputTarget::capture(0);  // the result channel: read by `reader`, nothing kept
  spec.stderrTo = OutputTarget::discard();
  spec.timeout = request.timeout;
  spec.killGrace = std::chrono::milliseconds(0);  // a kill is SIGKILL at once
  // The helper starts as we are and switches to the request's ids itself
  // (CallOrder::runAs): it needs no permission on the folder it lives in.
  spec.onOutput = [reader](OutputStream stream, std::string_view chunk) {
    if (stream == OutputStream::Stdout) reader->take(chunk);
  };

  int order = orderFile(request);
  int orderError = errno;
  if (order >= 0) {
    spec.stdinFile = "/proc/self/fd/" + std::to_string(order);
  } else {
    // A helper with no order would refuse; say why it never ran instead.
    spec.argv = {};
  }

  auto whenReaped = [this, id, reader, order, orderError, done = std::move(done)](ProcessOutcome outcome) {
    CallEnd end = endOf(outcome);
    if (order < 0) end.startError = std::string("cannot write the call's order: ") + std::strerror(orderError);
    std::vector<ReportedLogLine> log;
    reader->fill(end, log);
    // The helper kills its own group once it has written its result. After
    // any other end (a signal, an exit, a timeout) what the script started
    // may still run, so the group gets SIGKILL now. While anything of it is
    // left its number cannot be reused; once it is empty, hitting another
    // group would need the pid numbers to come full circle in between.
    if (outcome.pid > 0 && !end.result) killpg(outcome.pid, SIGKILL);
    CallReport report = reportOf(std::move(end));
    report.log = std::move(log);
    report.pid = outcome.pid;
    finished(id, std::move(report), done);
  };
  ProcessHandle handle = runProcess(io_.executor(), std::move(spec), std::move(whenReaped));
  if (order >= 0) close(order);  // the child has its own copy now

  std::lock_guard lock(mutex_);
  Call& call = calls_.at(id);
  call.handle = handle;
  call.launched = true;
  if (call.killRequested) handle.cancel();
}

void CallRunner::kill(RunnerCallId id) {
  std::lock_guard lock(mutex_);
  auto call = calls_.find(id);
  if (call == calls_.end()) return;
  if (call->second.launched) {
    call->second.handle.cancel();
  } else {
    call->second.killRequested = true;
  }
}

size_t CallRunner::running() const {
  std::lock_guard lock(mutex_);
  return calls_.size();
}

void CallRunner::finished(RunnerCallId id, CallReport report, const CallDone& done) {
  {
    std::lock_guard lock(mutex_);
    calls_.erase(id);
    if (stopping_) {
      // Dropped: the owner is going away. Nothing of the runner is touched
      // after this notify, as the destructor may finish at once.
      allEnded_.notify_all();
      return;
    }
  }
  if (done) done(std::move(report));
}

}  // namespace gantry::interconnect
