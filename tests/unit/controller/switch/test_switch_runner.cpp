// The runner with real processes: each way a call can end, what the call's
// process looks like from inside, and that nothing of a call outlives it.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/switchlua/messages.h"
#include "runner_fixtures.h"

using namespace gantry::interconnect;
using namespace gantry::interconnect::test;
using gantry::switchlua::CallOutcome;
using gantry::switchlua::DictionaryStatus;
using gantry::switchlua::ScriptLogLevel;
using Kind = CallReport::Kind;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

const std::string kStart = "slurm_switch_job_start";

CallRequest requestFor(const std::filesystem::path& script, gantry::switchlua::CallArguments arguments = {},
                       std::chrono::milliseconds timeout = 20s, const std::string& function = kStart) {
  return {.script = script, .function = function, .arguments = std::move(arguments), .uid = getuid(),
          .gid = getgid(), .timeout = timeout};
}

// Runs one call to its end on a runner of its own.
CallReport runOne(const CallRequest& request) {
  Reports reports;
  auto runner = makeRunner();
  runner.start(request, reports.collect(0));
  REQUIRE(reports.waitFor(1));
  return reports.at(0);
}

CallReport runScript(const std::string& text, gantry::switchlua::CallArguments arguments = {},
                     std::chrono::milliseconds timeout = 20s) {
  ScriptFolder folder;
  return runOne(requestFor(folder.write("switch.lua", text), std::move(arguments), timeout));
}

// Waits until a script has written the pid it records, or gives up.
pid_t awaitPid(const std::filesystem::path& file) {
  for (auto until = Clock::now() + 10s; Clock::now() < until; std::this_thread::sleep_for(5ms)) {
    if (pid_t pid = pidIn(file)) return pid;
  }
  return 0;
}

// Lua that records this process's pid in `file`.
std::string recordOwnPid(const std::filesystem::path& file) {
  return "local stat = io.open('/proc/self/stat'):read('l')\n"
         "local out = io.open('" + file.string() + "', 'w') out:write(stat:match('^(%d+)')) out:close()\n";
}

}  // namespace

TEST_CASE("a call that returns SUCCESS and a table reports the dictionary", "[switch][runner]") {
  auto report = runScript(
      "function slurm_switch_job_start(job) return slurm.SUCCESS, {fabric = 'hsn2', job = job.job_id} end",
      {R"({"job_id": 9137})"});
  REQUIRE(report.kind == Kind::Reported);
  CHECK(report.result.outcome == CallOutcome::Returned);
  CHECK(report.result.number == 0.0);
  REQUIRE(report.result.dictionary == DictionaryStatus::Present);
  CHECK(nlohmann::json::parse(report.result.dictionaryJson) == nlohmann::json{{"fabric", "hsn2"}, {"job", 9137}});
  CHECK(report.pid > 0);
  CHECK(groupEndsSoon(report.pid));
}

TEST_CASE("a call that returns SUCCESS and nil reports no dictionary", "[switch][runner]") {
  auto report = runScript("function slurm_switch_job_start(job) return slurm.SUCCESS, nil end");
  REQUIRE(report.kind == Kind::Reported);
  CHECK(report.result.number == 0.0);
  CHECK(report.result.dictionary == DictionaryStatus::Absent);
}

TEST_CASE("a call that returns an error number reports that number", "[switch][runner]") {
  auto report = runScript("function slurm_switch_job_start(job) return -23, {ignored = true} end");
  REQUIRE(report.kind == Kind::Reported);
  CHECK(report.result.number == -23.0);
}

TEST_CASE("a call that raises reports the Lua error", "[switch][runner]") {
  auto report = runScript("function slurm_switch_job_start(job) error('fabric manager at port 7734 refused') end");
  REQUIRE(report.kind == Kind::Reported);
  CHECK(report.result.outcome == CallOutcome::LuaError);
  CHECK_THAT(report.result.message, Catch::Contains("fabric manager at port 7734 refused"));
}

TEST_CASE("a script that no longer loads reports its load line", "[switch][runner]") {
  auto report = runScript("function slurm_switch_job_start(job) return 0");
  REQUIRE(report.kind == Kind::Reported);
  CHECK(report.result.outcome == CallOutcome::LoadFailed);
  CHECK_THAT(report.result.message, Catch::StartsWith("switch/lua: syntax error"));
}

TEST_CASE("a call in a busy loop is killed at its timeout", "[switch][runner]") {
  const auto timeout = 700ms;
  auto began = Clock::now();
  auto report = runScript("function slurm_switch_job_start(job) while true do end end", {}, timeout);
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began);
  CHECK(report.kind == Kind::TimedOut);
  CHECK(took >= timeout * 9 / 10);
  CHECK(took <= timeout * 11 / 10);
  CHECK(groupEndsSoon(report.pid));
}

TEST_CASE("a timed-out call's child that ignores SIGTERM is killed with it", "[switch][runner]") {
  ScriptFolder folder;
  auto pidFile = folder.path("stubborn.pid");
  auto script = folder.write(
      "switch.lua",
      "function slurm_switch_job_start(job)\n"
      "  os.execute([[sh -c 'trap \"\" TERM; echo $$ > " + pidFile.string() + "; exec sleep 97' &]])\n"
      "  while true do end\n"
      "end\n");
  const auto timeout = 900ms;
  auto began = Clock::now();
  auto report = runOne(requestFor(script, {}, timeout));
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began);
  CHECK(report.kind == Kind::TimedOut);
  CHECK(took <= timeout * 11 / 10);
  pid_t stubborn = pidIn(pidFile);
  REQUIRE(stubborn > 0);
  CHECK(endsSoon(stubborn));
  CHECK(groupEndsSoon(report.pid));
}

TEST_CASE("what a call started is killed when the call returns", "[switch][runner]") {
  ScriptFolder folder;
  auto pidFile = folder.path("background.pid");
  auto script = folder.write(
      "switch.lua",
      "function slurm_switch_job_start(job)\n"
      "  os.execute([[sh -c 'trap \"\" TERM; echo $$ > " + pidFile.string() + "; exec sleep 95' &]])\n"
      "  repeat local f = io.open('" + pidFile.string() + "') local pid = f and f:read('n') if f then f:close() end\n"
      "  until pid\n"
      "  return slurm.SUCCESS, nil\n"
      "end\n");
  auto report = runOne(requestFor(script));
  REQUIRE(report.kind == Kind::Reported);
  pid_t background = pidIn(pidFile);
  REQUIRE(background > 0);
  CHECK(endsSoon(background));
  CHECK(groupEndsSoon(report.pid));
}

TEST_CASE("a call whose process dies on a signal is reported as Killed with the signal", "[switch][runner]") {
  // SIGKILL is what the example script's start_crash sends; the runner did
  // not send it, so it is Killed, not TimedOut or Cancelled.
  auto [name, number] = GENERATE(std::make_pair(std::string("USR1"), SIGUSR1), std::make_pair(std::string("KILL"), SIGKILL));
  auto report = runScript("function slurm_switch_job_start(job) os.execute('kill -" + name +
                          " $PPID') while true do end end");
  REQUIRE(report.kind == Kind::Killed);
  CHECK(report.signal == number);
  CHECK_THAT(report.detail, Catch::Contains("SIG" + name));
  CHECK(groupEndsSoon(report.pid));
}

TEST_CASE("a call that calls os.exit() gives no result", "[switch][runner]") {
  auto report = runScript("function slurm_switch_job_start(job) slurm.log_info('leaving') os.exit(6) end");
  REQUIRE(report.kind == Kind::NoResult);
  CHECK(report.detail == std::string(gantry::switchlua::kScriptCalledExit));
  REQUIRE(report.log.size() == 1);
  CHECK(report.log[0].line == "switch/lua: slurm_switch_job_start: leaving");
}

TEST_CASE("a call's standard input, output and error are /dev/null", "[switch][runner]") {
  auto report = runScript(
      "function slurm_switch_job_start(job)\n"
      "  io.write('to stdout') io.stderr:write('to stderr')\n"
      "  local links = io.popen('readlink /proc/$PPID/fd/0 /proc/$PPID/fd/1 /proc/$PPID/fd/2'):read('a')\n"
      "  return slurm.SUCCESS, {links = links, input = io.read('a')}\n"
      "end\n");
  REQUIRE(report.kind == Kind::Reported);
  REQUIRE(report.result.dictionary == DictionaryStatus::Present);
  auto seen = nlohmann::json::parse(report.result.dictionaryJson);
  CHECK(seen["links"] == "/dev/null\n/dev/null\n/dev/null\n");
  CHECK(seen["input"] == "");
}

TEST_CASE("a call holds no descriptor of ours but its channel", "[switch][runner]") {
  auto report = runScript(
      "function slurm_switch_job_start(job)\n"
      "  return slurm.SUCCESS, {fds = io.popen('readlink /proc/$PPID/fd/*'):read('a')}\n"
      "end\n");
  REQUIRE(report.kind == Kind::Reported);
  auto seen = nlohmann::json::parse(report.result.dictionaryJson);
  // 0, 1 and 2 on /dev/null, the channel, and the pipe io.popen reads from.
  // While popen starts the shell the helper may still hold that pipe's
  // write end too (the script's own race, not ours): the same pipe, so
  // what is counted is the distinct targets.
  std::istringstream targets(seen["fds"].get<std::string>());
  std::set<std::string> others;
  int devNull = 0;
  for (std::string target; std::getline(targets, target);) {
    if (target == "/dev/null") ++devNull;
    else others.insert(target);
  }
  CHECK(devNull == 3);
  CHECK(others.size() == 2);
}

TEST_CASE("a call runs as the uid and gid it is given", "[switch][runner]") {
  if (geteuid() != 0) {
    std::cout << "skipped: switching to another uid needs root\n";
    return;
  }
  const std::string user = "gsrun" + std::to_string(getpid() % 100000);
  REQUIRE(std::system(("useradd -M -r -s /usr/sbin/nologin " + user + " 2>/dev/null").c_str()) == 0);
  struct Cleanup {
    std::string user;
    ~Cleanup() { (void)!std::system(("userdel " + user + " 2>/dev/null").c_str()); }
  } cleanup{user};
  passwd* entry = getpwnam(user.c_str());
  REQUIRE(entry != nullptr);

  ScriptFolder folder;
  auto script = folder.write("switch.lua",
                             "function slurm_switch_job_start(job)\n"
                             "  local ids = {}\n"
                             "  for line in io.lines('/proc/self/status') do\n"
                             "    local key, real, eff = line:match('^(%a+):%s+(%d+)%s+(%d+)')\n"
                             "    if key == 'Uid' or key == 'Gid' then ids[key] = real .. ' ' .. eff end\n"
                             "    if line:match('^Groups:') then ids.groups = line:gsub('^Groups:%s*', '') end\n"
                             "  end\n"
                             "  return slurm.SUCCESS, ids\n"
                             "end\n");
  CallRequest request = requestFor(script);
  request.uid = entry->pw_uid;
  request.gid = entry->pw_gid;
  auto report = runOne(request);
  REQUIRE(report.kind == Kind::Reported);
  auto seen = nlohmann::json::parse(report.result.dictionaryJson);
  std::string uid = std::to_string(entry->pw_uid), gid = std::to_string(entry->pw_gid);
  CHECK(seen["Uid"] == uid + " " + uid);
  CHECK(seen["Gid"] == gid + " " + gid);
  CHECK(seen["groups"] == "");
}

TEST_CASE("a call's log lines come back in order, with their levels", "[switch][runner]") {
  auto report = runScript(
      "function slurm_switch_job_start(job)\n"
      "  slurm.log_info('ports %d to %d', 14, 17)\n"
      "  slurm.log_debug3('vlan %s', 'v88')\n"
      "  slurm.error('link 3 down')\n"
      "  print('done', 3)\n"
      "  return slurm.SUCCESS, nil\n"
      "end\n");
  REQUIRE(report.kind == Kind::Reported);
  REQUIRE(report.log.size() == 4);
  const std::string prefix = "switch/lua: slurm_switch_job_start: ";
  CHECK(report.log[0].level == ScriptLogLevel::Info);
  CHECK(report.log[0].line == prefix + "ports 14 to 17");
  CHECK(report.log[1].level == ScriptLogLevel::Debug3);
  CHECK(report.log[1].line == prefix + "vlan v88");
  CHECK(report.log[2].level == ScriptLogLevel::Error);
  CHECK(report.log[2].line == prefix + "link 3 down");
  CHECK(report.log[3].level == ScriptLogLevel::Info);
  CHECK(report.log[3].line == prefix + "done\t3");
}

TEST_CASE("a large dictionary comes back whole, over many reads of the channel", "[switch][runner]") {
  auto report = runScript(
      "function slurm_switch_job_start(job)\n"
      "  local ports = {}\n"
      "  for i = 1, 21000 do ports[i] = string.format('port-%05d-of-switch-17', i) end\n"
      "  return slurm.SUCCESS, {ports = ports}\n"
      "end\n");
  REQUIRE(report.kind == Kind::Reported);
  REQUIRE(report.result.dictionary == DictionaryStatus::Present);
  auto ports = nlohmann::json::parse(report.result.dictionaryJson)["ports"];
  REQUIRE(ports.size() == 21000);
  CHECK(ports[20999] == "port-21000-of-switch-17");
}

TEST_CASE("a call that logs past its share has the rest counted, not kept", "[switch][runner]") {
  auto report = runScript(
      "function slurm_switch_job_start(job)\n"
      "  local filler = string.rep('x', 1000)\n"
      "  for i = 1, 5000 do slurm.log_debug('%d %s', i, filler) end\n"
      "  return slurm.SUCCESS, nil\n"
      "end\n");
  REQUIRE(report.kind == Kind::Reported);
  REQUIRE(report.log.size() > 1000);
  CHECK(report.log.size() < 5000);
  CHECK(report.log.back().level == ScriptLogLevel::Error);
  CHECK_THAT(report.log.back().line, Catch::Contains("more lines of this call were dropped"));
}

TEST_CASE("lines logged before a timeout still come back", "[switch][runner]") {
  auto report = runScript("function slurm_switch_job_start(job) slurm.log_verbose('waiting on fm-4') while true do end end",
                          {}, 300ms);
  REQUIRE(report.kind == Kind::TimedOut);
  REQUIRE(report.log.size() == 1);
  CHECK(report.log[0].level == ScriptLogLevel::Verbose);
}

TEST_CASE("kill() ends a running call and leaves nothing of it", "[switch][runner]") {
  ScriptFolder folder;
  auto pidFile = folder.path("call.pid");
  auto script = folder.write("switch.lua", "function slurm_switch_job_start(job)\n" + recordOwnPid(pidFile) +
                                               "  while true do end\nend\n");
  Reports reports;
  auto runner = makeRunner();
  auto id = runner.start(requestFor(script), reports.collect(0));
  pid_t pid = awaitPid(pidFile);
  REQUIRE(pid > 0);
  CHECK(runner.running() == 1);
  runner.kill(id);
  REQUIRE(reports.waitFor(1, 5s));
  auto report = reports.at(0);
  CHECK(report.kind == Kind::Cancelled);
  CHECK(report.pid == pid);
  CHECK(groupEndsSoon(pid));
  CHECK(runner.running() == 0);
  runner.kill(id);  // already over: nothing happens
}

TEST_CASE("kill() right after start() ends the call, started or not", "[switch][runner]") {
  ScriptFolder folder;
  auto script = folder.write("switch.lua", "function slurm_switch_job_start(job) os.execute('sleep 91 &') while true do end end");
  Reports reports;
  auto runner = makeRunner();
  for (int i = 0; i < 6; ++i) runner.kill(runner.start(requestFor(script), reports.collect(i)));
  REQUIRE(reports.waitFor(6, 10s));
  for (int i = 0; i < 6; ++i) {
    auto report = reports.at(i);
    CHECK(report.kind == Kind::Cancelled);
    if (report.pid > 0) CHECK(groupEndsSoon(report.pid));
  }
}

TEST_CASE("200 calls in flight at once all report, each its own answer", "[switch][runner]") {
  ScriptFolder folder;
  auto gate = folder.path("gate");
  REQUIRE(mkfifo(gate.c_str(), 0666) == 0);
  // Each call opens the gate (read-write: it does not wait for a writer),
  // marks that it runs, and waits for a byte, so that every call is in
  // flight before any ends.
  auto script = folder.write("switch.lua",
                             "function slurm_switch_job_start(job)\n"
                             "  local gate = io.open('" + gate.string() + "', 'r+') gate:setvbuf('no')\n"
                             "  io.open('" + folder.path("running-").string() + "' .. job.job_id, 'w'):close()\n"
                             "  gate:read(1)\n"
                             "  return slurm.SUCCESS, {id = job.job_id}\n"
                             "end\n");
  Reports reports;
  auto runner = makeRunner();
  const int calls = 200;
  auto began = Clock::now();
  for (int i = 0; i < calls; ++i) {
    runner.start(requestFor(script, {R"({"job_id": )" + std::to_string(5000 + i) + "}"}), reports.collect(i));
  }
  // start() only queues: the forks happen on the runner's thread.
  CHECK(Clock::now() - began < 250ms);

  auto inFlight = [&] {
    int marks = 0;
    for (int i = 0; i < calls; ++i) marks += std::filesystem::exists(folder.path("running-" + std::to_string(5000 + i)));
    return marks;
  };
  for (auto until = Clock::now() + 60s; inFlight() < calls && Clock::now() < until;) std::this_thread::sleep_for(20ms);
  REQUIRE(inFlight() == calls);
  CHECK(reports.size() == 0);
  CHECK(runner.running() == static_cast<size_t>(calls));

  int opened = ::open(gate.c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(opened >= 0);
  std::string bytes(calls, 'g');
  REQUIRE(::write(opened, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  bool all = reports.waitFor(calls, 60s);
  ::close(opened);
  REQUIRE(all);
  for (int i = 0; i < calls; ++i) {
    auto report = reports.at(i);
    REQUIRE(report.kind == Kind::Reported);
    CHECK(nlohmann::json::parse(report.result.dictionaryJson)["id"] == 5000 + i);
  }
  CHECK(runner.running() == 0);
}

TEST_CASE("destroying the runner kills every call still running and drops their reports", "[switch][runner]") {
  ScriptFolder folder;
  std::vector<std::filesystem::path> pidFiles;
  Reports reports;
  {
    auto runner = makeRunner();
    for (int i = 0; i < 4; ++i) {
      pidFiles.push_back(folder.path("call" + std::to_string(i) + ".pid"));
      auto script = folder.write("switch" + std::to_string(i) + ".lua",
                                 "function slurm_switch_job_start(job)\n" + recordOwnPid(pidFiles.back()) +
                                     "  os.execute('sleep 93 &')\n  while true do end\nend\n");
      runner.start(requestFor(script), reports.collect(i));
    }
    for (const auto& file : pidFiles) REQUIRE(awaitPid(file) > 0);
  }
  CHECK(reports.size() == 0);
  for (const auto& file : pidFiles) CHECK(groupEndsSoon(pidIn(file)));
}

TEST_CASE("a runner without its helper reports each call as not started", "[switch][runner]") {
  ScriptFolder folder;
  Reports reports;
  CallRunner runner({.helper = folder.path("no-such-helper")});
  runner.start(requestFor(folder.write("switch.lua", "")), reports.collect(0));
  REQUIRE(reports.waitFor(1));
  auto report = reports.at(0);
  CHECK(report.kind == Kind::StartFailed);
  CHECK_THAT(report.detail, Catch::Contains("no-such-helper"));
}

TEST_CASE("calls past the open-file limit fail to start with a clear reason, the others run", "[switch][runner]") {
  ScriptFolder folder;
  auto script = folder.write("switch.lua", "function slurm_switch_job_start(job) while true do end end");
  Reports reports;
  auto runner = makeRunner();
  rlimit saved{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &saved) == 0);
  int openNow = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    (void)entry;
    ++openNow;
  }
  rlimit tight = saved;
  tight.rlim_cur = static_cast<rlim_t>(openNow + 8);
  REQUIRE(setrlimit(RLIMIT_NOFILE, &tight) == 0);
  const int calls = 12;
  for (int i = 0; i < calls; ++i) runner.start(requestFor(script, {}, 600ms), reports.collect(i));
  // The runner's thread makes the processes later: keep the limit until all have reported.
  bool all = reports.waitFor(calls, 30s);
  REQUIRE(setrlimit(RLIMIT_NOFILE, &saved) == 0);
  REQUIRE(all);
  int refused = 0, ran = 0;
  for (int i = 0; i < calls; ++i) {
    auto report = reports.at(i);
    if (report.kind == Kind::StartFailed) {
      ++refused;
      CHECK_THAT(report.detail, Catch::Contains("Too many open files"));
    } else {
      ++ran;
      CHECK(report.kind == Kind::TimedOut);
    }
  }
  CHECK(refused > 0);
  CHECK(ran > 0);
}
