// The process runner: exits and signals, timeouts that kill a whole process
// group, captured output and its limit, start failures, the environment and
// working directory, detached children, and that every child is reaped.
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/util/process.h"
#include "tests/unit/support/scratch.h"

using namespace gantry;
namespace fs = std::filesystem;
using testing::TempDir;
using testing::readFile;
using testing::zombieChildren;
using testing::waitFor;
using namespace std::chrono_literals;

namespace {

ProcessSpec shell(const std::string& script) {
  return ProcessSpec{.argv = {"/bin/sh", "-c", script}, .environment = {"PATH=/usr/bin:/bin"}};
}

// The state letter of /proc/<pid>/stat, or 0 when the process is gone.
char stateOf(pid_t pid) {
  std::string stat = readFile("/proc/" + std::to_string(pid) + "/stat");
  auto close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? 0 : stat[close + 2];
}

}  // namespace

TEST_CASE("a child's exit code and terminating signal are reported") {
  auto watch = GENERATE(ExitWatch::Automatic, ExitWatch::Polling);
  ProcessSpec exits = shell("exit 3");
  exits.exitWatch = watch;
  auto outcome = runProcessAndWait(exits);
  CHECK(outcome.started());
  CHECK(outcome.pid > 0);
  CHECK(outcome.exitCode == 3);
  CHECK(outcome.signal == 0);
  CHECK_FALSE(outcome.succeeded());
  CHECK(describeOutcome(outcome) == "exit 3");

  ProcessSpec killed = shell("kill -USR2 $$");
  killed.exitWatch = watch;
  outcome = runProcessAndWait(killed);
  CHECK(outcome.signal == SIGUSR2);
  CHECK(outcome.exitCode == -1);
  CHECK_FALSE(outcome.timedOut);

  CHECK(runProcessAndWait(ProcessSpec{.argv = {"/bin/true"}, .exitWatch = watch}).succeeded());
}

TEST_CASE("a timeout kills the child's whole group, also a grandchild that ignores SIGTERM") {
  auto watch = GENERATE(ExitWatch::Automatic, ExitWatch::Polling);
  TempDir dir;
  fs::path grandchild = dir.path() / "grandchild.pid";
  // The grandchild ignores SIGTERM and has its own output elsewhere, so
  // only the SIGKILL after the grace ends it.
  ProcessSpec spec = shell("(trap '' TERM; exec sleep 30) </dev/null >/dev/null 2>&1 &\necho $! > " +
                           grandchild.string() + "\nwait");
  spec.timeout = 200ms;
  spec.killGrace = 100ms;
  spec.exitWatch = watch;
  auto started = std::chrono::steady_clock::now();
  auto outcome = runProcessAndWait(spec);
  auto took = std::chrono::steady_clock::now() - started;
  CHECK(outcome.timedOut);
  CHECK(outcome.signal == SIGTERM);
  CHECK(describeOutcome(outcome) == "timed out");
  CHECK(took >= 300ms);  // the timeout, then the grace for the grandchild
  CHECK(took < 3s);
  pid_t pid = std::stoi(readFile(grandchild));
  // Gone, or a zombie waiting for init (which /proc still lists).
  CHECK(waitFor([pid] { return stateOf(pid) == 0 || stateOf(pid) == 'Z'; }, 2s));
}

TEST_CASE("a timeout ends without waiting for the grace when the group is gone") {
  ProcessSpec spec = shell("sleep 30");
  spec.timeout = 100ms;
  spec.killGrace = 10s;
  auto started = std::chrono::steady_clock::now();
  auto outcome = runProcessAndWait(spec);
  CHECK(outcome.timedOut);
  CHECK(std::chrono::steady_clock::now() - started < 3s);
}

TEST_CASE("captured output is kept up to its limit, and streamed as it comes") {
  ProcessSpec spec = shell("printf 0123456789; printf oops >&2; exit 1");
  spec.stdoutTo = OutputTarget::capture(4);
  spec.stderrTo = OutputTarget::capture(100);
  std::string streamed;
  spec.onOutput = [&streamed](OutputStream stream, std::string_view chunk) {
    if (stream == OutputStream::Stdout) streamed += chunk;
  };
  auto outcome = runProcessAndWait(spec);
  CHECK(outcome.exitCode == 1);
  CHECK(outcome.stdoutText == "0123");
  CHECK(outcome.stdoutTruncated);
  CHECK(outcome.stderrText == "oops");
  CHECK_FALSE(outcome.stderrTruncated);
  CHECK(streamed == "0123456789");
}

TEST_CASE("much more output than a pipe holds does not stall the child") {
  ProcessSpec spec = shell("head -c 1000000 /dev/zero");
  spec.stdoutTo = OutputTarget::capture(10);
  spec.timeout = 5s;
  size_t streamed = 0;
  spec.onOutput = [&streamed](OutputStream, std::string_view chunk) { streamed += chunk.size(); };
  auto outcome = runProcessAndWait(spec);
  CHECK(outcome.succeeded());
  CHECK(outcome.stdoutText.size() == 10);
  CHECK(streamed == 1000000);
}

TEST_CASE("stderr can join stdout in one stream, and output can go to a file") {
  TempDir dir;
  ProcessSpec merged = shell("echo one; echo two >&2; echo three");
  merged.stdoutTo = OutputTarget::capture(100);
  merged.stderrTo = OutputTarget::sameAsStdout();
  CHECK(runProcessAndWait(merged).stdoutText == "one\ntwo\nthree\n");

  fs::path log = dir.path() / "out.log";
  ProcessSpec toFile = shell("echo first; echo second >&2");
  toFile.stdoutTo = OutputTarget::appendTo(log);
  toFile.stderrTo = OutputTarget::sameAsStdout();
  REQUIRE(runProcessAndWait(toFile).succeeded());
  REQUIRE(runProcessAndWait(toFile).succeeded());
  CHECK(readFile(log) == "first\nsecond\nfirst\nsecond\n");
  CHECK((fs::status(log).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write));
}

TEST_CASE("a program that cannot be executed is a start error, not an exit code") {
  int reported = 0;
  Status started = okStatus();
  ProcessSpec spec{.argv = {"/nonexistent/program"},
                   .onStarted = [&](const Status& status) {
                     ++reported;
                     started = status;
                   }};
  auto outcome = runProcessAndWait(spec);
  REQUIRE_FALSE(outcome.started());
  CHECK(outcome.startErrno == ENOENT);
  CHECK(outcome.startError->code == ErrorCode::NotFound);
  CHECK(outcome.startError->message == "cannot start /nonexistent/program: No such file or directory");
  CHECK(outcome.exitCode == -1);
  CHECK(reported == 1);
  CHECK_FALSE(started.ok());

  auto badDir = runProcessAndWait(ProcessSpec{.argv = {"/bin/true"}, .workDir = "/nonexistent/dir"});
  REQUIRE_FALSE(badDir.started());
  CHECK_THAT(badDir.startError->message, Catch::Contains("working directory"));

  auto refused = runProcessAndWait(ProcessSpec{.argv = {}});
  REQUIRE_FALSE(refused.started());
  CHECK(refused.pid == 0);
  CHECK(refused.startError->code == ErrorCode::Invalid);
}

TEST_CASE("the child gets exactly the given environment, working directory and stdin") {
  TempDir dir;
  fs::path input = dir.path() / "input";
  std::ofstream(input) << "from the file\n";
  ::setenv("GANTRY_TEST_PARENT_ONLY", "leak", 1);
  ProcessSpec spec{.argv = {"/bin/sh", "-c", "echo \"$GREETING ${GANTRY_TEST_PARENT_ONLY:-none}\"; pwd; read line; echo \"$line\""},
                   .environment = {"GREETING=hello", "PATH=/usr/bin:/bin"},
                   .workDir = dir.path(),
                   .stdinFile = input,
                   .stdoutTo = OutputTarget::capture(1000)};
  auto outcome = runProcessAndWait(spec);
  ::unsetenv("GANTRY_TEST_PARENT_ONLY");
  CHECK(outcome.succeeded());
  CHECK(outcome.stdoutText == "hello none\n" + fs::canonical(dir.path()).string() + "\nfrom the file\n");
}

TEST_CASE("a child runs in a process group of its own, a detached one in a session of its own") {
  TempDir dir;
  ProcessSpec grouped = shell("cut -d' ' -f5,6 /proc/$$/stat; echo $$");
  grouped.stdoutTo = OutputTarget::capture(100);
  auto outcome = runProcessAndWait(grouped);
  std::istringstream fields(outcome.stdoutText);
  pid_t group = 0, session = 0, pid = 0;
  fields >> group >> session >> pid;
  CHECK(group == pid);
  CHECK(session == ::getsid(0));

  fs::path out = dir.path() / "detached.out";
  ProcessSpec detached = shell("cut -d' ' -f5,6 /proc/$$/stat; echo $$");
  detached.stdoutTo = OutputTarget::appendTo(out);
  detached.detached = true;
  REQUIRE(runProcessAndWait(detached).succeeded());
  std::istringstream detachedFields(readFile(out));
  detachedFields >> group >> session >> pid;
  CHECK(group == pid);
  CHECK(session == pid);

  ProcessSpec capturedDetached = detached;
  capturedDetached.stdoutTo = OutputTarget::capture(10);
  CHECK_FALSE(runProcessAndWait(capturedDetached).started());
}

TEST_CASE("a handle signals and cancels its child; the callback runs on the executor's thread") {
  boost::asio::io_context io;
  std::optional<ProcessOutcome> first, second;
  std::thread::id callbackThread;
  ProcessSpec sleeper = shell("sleep 30");
  ProcessHandle signalled = runProcess(io.get_executor(), sleeper, [&](ProcessOutcome outcome) {
    callbackThread = std::this_thread::get_id();
    first = std::move(outcome);
  });
  ProcessHandle cancelled = runProcess(io.get_executor(), sleeper, [&](ProcessOutcome outcome) {
    second = std::move(outcome);
  });
  REQUIRE(signalled.pid() > 0);
  signalled.signal(SIGUSR1);
  cancelled.cancel();
  std::thread loop([&io] { io.run(); });
  const auto loopThread = loop.get_id();
  loop.join();
  REQUIRE(first.has_value());
  REQUIRE(second.has_value());
  CHECK(first->signal == SIGUSR1);
  CHECK_FALSE(first->cancelled);
  CHECK(second->cancelled);
  CHECK(second->signal == SIGTERM);
  CHECK(callbackThread == loopThread);
  signalled.cancel();  // after the end: nothing happens
}

TEST_CASE("200 quick children leave no zombie behind") {
  boost::asio::io_context io;
  std::atomic<int> done{0}, succeeded{0};
  for (int i = 0; i < 200; ++i) {
    ProcessSpec spec{.argv = {"/bin/true"}, .exitWatch = i % 4 == 0 ? ExitWatch::Polling : ExitWatch::Automatic};
    runProcess(io.get_executor(), spec, [&](ProcessOutcome outcome) {
      ++done;
      if (outcome.succeeded()) ++succeeded;
    });
  }
  std::thread helper([&io] { io.run(); });
  io.run();
  helper.join();
  CHECK(done == 200);
  CHECK(succeeded == 200);
  CHECK(zombieChildren() == 0);
}

TEST_CASE("a child can run as another user, without our supplementary groups") {
  if (::geteuid() != 0) {
    WARN("not root: running as another user is not tried");
    return;
  }
  ProcessSpec spec = shell("id -u; id -g; id -G");
  spec.runAs = RunAs{.uid = 65534, .gid = 65534};
  spec.stdoutTo = OutputTarget::capture(100);
  auto outcome = runProcessAndWait(spec);
  CHECK(outcome.succeeded());
  CHECK(outcome.stdoutText == "65534\n65534\n65534\n");
}
