// How the launcher starts gantrystepd: in a session of its own, a start
// failure fails the launch, and a gantrystepd that ended is reaped while the
// agent runs (a zombie per finished step used to stay until the agent exit).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "nodeagent/launch/step_launcher.h"

using namespace gantry;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("gantry-launcher-" + std::to_string(::getpid()) + "-" + std::to_string(n_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

  fs::path script(const std::string& name, const std::string& body) const {
    fs::path file = path_ / name;
    std::ofstream(file) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(file, fs::perms::owner_all);
    return file;
  }

 private:
  static inline int n_ = 0;
  fs::path path_;
};

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int zombieChildren() {
  int zombies = 0;
  const std::string self = std::to_string(::getpid());
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::string stat = readFile(entry.path() / "stat");
    auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string state, parent;
    fields >> state >> parent;
    if (state == "Z" && parent == self) ++zombies;
  }
  return zombies;
}

bool waitFor(const std::function<bool()>& condition, std::chrono::milliseconds limit = 10s) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

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
  options.stepdPath = dir.script("stepd", "echo '{\"exit_code\": 0}' > \"$2/result.json\"");
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
