// Freezes and kills a real task on the machine's cgroup v2 hierarchy, when
// one is mounted and writable at /sys/fs/cgroup/unified (or
// $GANTRY_TEST_CGROUP_ROOT); skipped with a WARN otherwise.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "stepd/cgroup/step_cgroup.h"

using namespace gantry::stepd;

namespace {

std::string realCgroupRoot() {
  const char* env = std::getenv("GANTRY_TEST_CGROUP_ROOT");
  return env ? env : "/sys/fs/cgroup/unified";
}

// Writable cgroup v2: the root has cgroup.controllers and we may create a child.
bool cgroupV2Writable(const std::string& root) {
  namespace fs = std::filesystem;
  if (!fs::exists(root + "/cgroup.controllers")) return false;
  const std::string probe = root + "/gantry-probe-" + std::to_string(::getpid());
  std::error_code ec;
  if (!fs::create_directory(probe, ec)) return false;
  const bool has_freeze = fs::exists(probe + "/cgroup.freeze") && fs::exists(probe + "/cgroup.kill");
  fs::remove(probe, ec);
  return has_freeze;
}

template <typename Predicate>
bool waitFor(Predicate done) {
  for (int i = 0; i < 200; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

char processState(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  auto close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() ? '?' : line[close + 2];
}

}  // namespace

TEST_CASE("a real task is frozen, thawed and killed through cgroup v2", "[stepd][cgroup][real]") {
  const std::string root = realCgroupRoot();
  if (!cgroupV2Writable(root)) {
    WARN("skipped: no cgroup v2 (" << root << " missing or not writable)");
    return;
  }
  const std::string base = "gantry-test-" + std::to_string(::getpid());
  auto cgroup = StepCgroup::create({.root = root, .base = base, .job_dir_name = "job_1", .step_dir_name = "step_0"}, {});
  REQUIRE(cgroup.ok());

  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::execlp("sleep", "sleep", "60", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  REQUIRE(cgroup->addProcess(child).ok());

  REQUIRE(cgroup->setFrozen(true).ok());
  CHECK(waitFor([&] { return cgroup->isFrozen(); }));
  REQUIRE(cgroup->setFrozen(false).ok());
  CHECK(waitFor([&] { return !cgroup->isFrozen(); }));
  CHECK(processState(child) != 'T');  // running again, not stopped

  REQUIRE(cgroup->killAll().ok());
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);

  CHECK(cgroup->remove().ok());
  std::filesystem::remove(root + "/" + base);
  CHECK_FALSE(std::filesystem::exists(root + "/" + base));
}
