// How the launcher starts gantrystepd: in a session of its own, a start
// failure fails the launch, and a gantrystepd that ended is reaped while the
// agent runs (a zombie per finished step used to stay until the agent exit).
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "nodeagent/launch/step_launcher.h"
#include "tests/unit/support/scratch.h"

using namespace gantry;
namespace fs = std::filesystem;
using testing::TempDir;
using testing::readFile;
using testing::zombieChildren;
using testing::waitFor;
using namespace std::chrono_literals;

namespace {

v1::LaunchStepRequest step(uint64_t jobId, const std::string& stepId) {
  v1::LaunchStepRequest request;
  request.set_job_id(jobId);
  request.set_step_id(stepId);
  request.set_script("#!/bin/sh\ntrue\n");
  request.set_num_nodes(1);
  request.set_ntasks(1);
  request.set_tasks_on_node(1);
  return request;
}

}  // namespace

TEST_CASE("gantrystepd children that finished with a result are reaped while the agent runs") {
  TempDir dir;
  agent::LauncherOptions options;
  options.spoolDir = dir.path() / "spool";
  // A stand-in for gantrystepd that writes its result and ends: the agent
  // never waits for such a step itself.
  options.stepdPath = dir.script("stepd", "echo '{\"exit_code\": 0}' > \"$2/result.tmp\" && mv \"$2/result.tmp\" \"$2/result.json\"");
  agent::StepLauncher launcher(options);
  const size_t steps = 20;
  for (size_t i = 0; i < steps; ++i) REQUIRE(launcher.launch(step(100 + i, "batch")).ok());
  REQUIRE(waitFor([&] { return launcher.finished().size() == steps; }));
  CHECK(waitFor([] { return zombieChildren() == 0; }, 5s));
  CHECK(launcher.running().empty());
}

TEST_CASE("gantrystepd runs in a session of its own with its output in stepd.log") {
  TempDir dir;
  agent::LauncherOptions options;
  options.spoolDir = dir.path() / "spool";
  options.stepdPath = dir.script("stepd", "cut -d' ' -f6 /proc/$$/stat; echo $$; echo oops >&2");
  agent::StepLauncher launcher(options);
  REQUIRE(launcher.launch(step(7, "batch")).ok());
  fs::path log = options.spoolDir / "steps" / "7.batch" / "stepd.log";
  REQUIRE(waitFor([&] { return readFile(log).find("oops") != std::string::npos; }));
  std::istringstream fields(readFile(log));
  pid_t session = 0, pid = 0;
  fields >> session >> pid;
  CHECK(session == pid);
  CHECK(session != ::getsid(0));
  CHECK(std::stoi(readFile(options.spoolDir / "steps" / "7.batch" / "launcher.pid")) == pid);
  // It ended without a result: reported as such.
  REQUIRE(waitFor([&] { return launcher.finished().size() == 1; }));
  CHECK(launcher.finished()[0].message == "gantrystepd exited without a result");
}

TEST_CASE("a gantrystepd that cannot start fails the launch and leaves no step") {
  TempDir dir;
  agent::LauncherOptions options;
  options.spoolDir = dir.path() / "spool";
  options.stepdPath = dir.path() / "no-such-stepd";
  agent::StepLauncher launcher(options);
  auto launched = launcher.launch(step(8, "batch"));
  REQUIRE_FALSE(launched.ok());
  CHECK_THAT(launched.error(), Catch::Contains("cannot start " + options.stepdPath.string()));
  CHECK(launcher.known().empty());
}

namespace {

fs::perms modeOf(const fs::path& path) { return fs::symlink_status(path).permissions() & fs::perms::mask; }

bool processGone(pid_t pid) {
  std::string stat = readFile("/proc/" + std::to_string(pid) + "/stat");
  auto close = stat.rfind(')');
  return close == std::string::npos || stat[close + 2] == 'Z';
}

}  // namespace

TEST_CASE("step and job records are root's alone; the script directory only lets users through") {
  TempDir dir;
  agent::LauncherOptions options;
  options.spoolDir = dir.path() / "spool";
  options.stepdPath = dir.script("stepd", "sleep 0.2; echo '{\"exit_code\": 0}' > \"$2/result.tmp\" && mv \"$2/result.tmp\" \"$2/result.json\"");
  agent::StepLauncher launcher(options);
  auto request = step(9, "0");
  request.set_io_addr("127.0.0.1");
  request.set_io_port(1234);
  request.set_io_token("secret");
  REQUIRE(launcher.launch(request).ok());
  const fs::path steps = options.spoolDir / "steps", jobs = options.spoolDir / "jobs";
  CHECK(modeOf(steps) == fs::perms::owner_all);
  CHECK(modeOf(jobs) == fs::perms::owner_all);
  CHECK(modeOf(options.spoolDir / "scripts") == (fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec));
  for (const fs::path& d : {steps / "9.0", jobs / "9"}) CHECK(modeOf(d) == fs::perms::owner_all);
  const auto rw = fs::perms::owner_read | fs::perms::owner_write;
  for (const fs::path& f : {steps / "9.0" / "spec.json", steps / "9.0" / "launcher.pid", steps / "9.0" / "stepd.log",
                            jobs / "9" / "spec.json"}) {
    CHECK(modeOf(f) == rw);
  }
  CHECK(readFile(steps / "9.0" / "spec.json").find("secret") != std::string::npos);
  REQUIRE(waitFor([&] { return launcher.finished().size() == 1; }));
}

TEST_CASE("a dead gantrystepd's step is reported only once what it left is gone") {
  TempDir dir;
  agent::LauncherOptions options;
  options.spoolDir = dir.path() / "spool";
  // A stand-in that starts a task in a process group of its own, records
  // it as gantrystepd does (once the task leads its group, as gantrystepd
  // records only after setsid), and dies without a result.
  options.stepdPath = dir.script(
      "stepd",
      "setsid sleep 30 &\ntask=$!\n"
      "while [ \"$(awk '{print $5}' /proc/$task/stat)\" != \"$task\" ]; do sleep 0.01; done\n"
      "echo $task > \"$2/task_groups\"\necho $task > \"$2/left.pid\"");
  agent::StepLauncher launcher(options);
  auto request = step(11, "batch");
  request.set_uid(::getuid());
  REQUIRE(launcher.launch(request).ok());
  const fs::path left = options.spoolDir / "steps" / "11.batch" / "left.pid";
  REQUIRE(waitFor([&] { return !readFile(left).empty(); }));
  const pid_t task = std::stoi(readFile(left));
  std::vector<agent::FinishedStep> finished;
  REQUIRE(waitFor([&] {
    finished = launcher.finished();
    // Whenever the step is reported, its task is gone already.
    if (!finished.empty()) CHECK(processGone(task));
    return !finished.empty();
  }));
  CHECK(finished[0].message == "gantrystepd exited without a result");
}

TEST_CASE("a user's signal reaches the steps scancel would signal") {
  using Reach = stepd::TaskSignalReach;
  using Expected = std::optional<Reach>;
  struct Case {
    v1::SignalScope scope;
    std::string step;
    int signal;
    Expected reach;
  };
  const std::vector<Case> cases = {
      {v1::SIGNAL_SCOPE_STEPS, "0", SIGUSR1, Reach::AllProcesses},
      {v1::SIGNAL_SCOPE_STEPS, "batch", SIGUSR1, std::nullopt},
      {v1::SIGNAL_SCOPE_STEPS, "batch", SIGKILL, Reach::AllProcesses},
      {v1::SIGNAL_SCOPE_STEPS, "extern", SIGKILL, std::nullopt},
      {v1::SIGNAL_SCOPE_BATCH, "batch", SIGUSR1, Reach::TaskLeaderOnly},
      {v1::SIGNAL_SCOPE_BATCH, "0", SIGUSR1, std::nullopt},
      {v1::SIGNAL_SCOPE_FULL, "batch", SIGUSR1, Reach::AllProcesses},
      {v1::SIGNAL_SCOPE_FULL, "3", SIGSTOP, Reach::AllProcesses},
  };
  for (const auto& c : cases) {
    INFO("scope " << c.scope << " step " << c.step << " signal " << c.signal);
    CHECK(agent::taskSignalReach(c.scope, c.step, c.signal) == c.reach);
  }
}

TEST_CASE("the job's switch/lua state goes into spec.json for gantrystepd") {
  TempDir dir;
  agent::LauncherOptions options;
  options.spoolDir = dir.path() / "spool";
  options.stepdPath = dir.script("stepd", "sleep 0.2; echo '{\"exit_code\": 0}' > \"$2/result.tmp\" && mv \"$2/result.tmp\" \"$2/result.json\"");
  options.switchScript = dir.path() / "switch.lua";
  agent::StepLauncher launcher(options);
  auto request = step(21, "4");
  request.add_argv("true");
  request.set_switch_managed(true);
  request.set_switch_stepinfo(R"({"lanes": 12})");
  request.set_switch_sluid("sRUNTHREE");
  auto missing = step(22, "4");
  missing.add_argv("true");
  missing.set_switch_managed(true);
  missing.set_switch_stepinfo(R"({"lanes": 12})");  // not to be passed: the controller says it is missing
  missing.set_switch_stepinfo_missing(true);
  auto unmanaged = step(23, "4");
  unmanaged.add_argv("true");
  for (const auto& r : {request, missing, unmanaged}) REQUIRE(launcher.launch(r).ok());
  auto specOf = [&](const char* name) {
    return nlohmann::json::parse(readFile(options.spoolDir / "steps" / name / "spec.json"));
  };
  auto managed = specOf("21.4");
  CHECK(managed["switch_script"] == options.switchScript.string());
  CHECK(managed["switch_managed"] == true);
  CHECK(managed["switch_stepinfo"] == R"({"lanes": 12})");
  CHECK(managed["switch_sluid"] == "sRUNTHREE");
  auto nil = specOf("22.4");
  CHECK(nil["switch_managed"] == true);
  CHECK_FALSE(nil.contains("switch_stepinfo"));
  auto plain = specOf("23.4");
  CHECK_FALSE(plain.contains("switch_managed"));
  REQUIRE(waitFor([&] { return launcher.finished().size() == 3; }));
}

TEST_CASE("a step's drain_reason is queued once for the heartbeat") {
  TempDir dir;
  agent::LauncherOptions options;
  options.spoolDir = dir.path() / "spool";
  // Written whole and renamed into place, as gantrystepd does: a reader
  // must never see a half-written result.
  options.stepdPath =
      dir.script("stepd", "echo '{\"exit_code\": 0, \"drain_reason\": \"switch_g_job_postfini failed\"}' > \"$2/result.tmp\" && mv \"$2/result.tmp\" \"$2/result.json\"");
  agent::StepLauncher launcher(options);
  auto request = step(31, "2");
  request.add_argv("true");
  REQUIRE(launcher.launch(request).ok());
  REQUIRE(waitFor([&] { return launcher.finished().size() == 1; }));
  // Read again until acknowledged: still one reason.
  auto finished = launcher.finished();
  REQUIRE(finished.size() == 1);
  CHECK(finished[0].drainReason == "switch_g_job_postfini failed");
  CHECK(finished[0].exitCode == 0);
  CHECK(launcher.drainReasons() == std::vector<std::string>{"switch_g_job_postfini failed"});
  launcher.acknowledge(finished[0].key);
  CHECK(launcher.finished().empty());
  CHECK(launcher.drainReasons().size() == 1);
  launcher.forgetDrainReasons(1);
  CHECK(launcher.drainReasons().empty());
}
