// Runs the built gantrystepd on a temporary step directory, as the node
// agent would: write spec.json, start it, wait for result.json. Shared by
// the tests that run the real launcher.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

namespace gantry::stepd::testing {

namespace fs = std::filesystem;
using nlohmann::json;

inline std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class StepDir {
 public:
  StepDir() {
    dir_ = fs::temp_directory_path() / ("gantry-step-" + std::to_string(::getpid()) + "-" + std::to_string(n_++));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "work");
  }
  ~StepDir() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    fs::remove_all(dir_);
  }
  fs::path path() const { return dir_; }
  fs::path work() const { return dir_ / "work"; }

  json baseSpec(const std::string& step_id) const {
    return {{"job_id", 77},       {"step_id", step_id},       {"job_name", "envtest"}, {"uid", ::getuid()},
            {"gid", ::getgid()},  {"user", "tester"},         {"work_dir", work().string()},
            {"env", {{"PATH", "/usr/bin:/bin"}, {"FROM_SUBMIT", "yes"}}},
            {"node_name", "n1"},  {"nodelist", "n[1-2]"},     {"num_nodes", 2},        {"ntasks", 4},
            {"cluster", "gantry"}, {"cpus_on_node", 2}};
  }

  void start(const json& spec) {
    std::ofstream(dir_ / "spec.json") << spec.dump();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execl(GANTRYSTEPD_PATH, GANTRYSTEPD_PATH, "--step-dir", dir_.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }

  // Waits for gantrystepd to exit and returns result.json.
  json finish() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = 0;
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    return json::parse(slurp(dir_ / "result.json"));
  }

  void signal(int sig) const { ::kill(pid_, sig); }
  pid_t pid() const { return pid_; }

 private:
  static inline int n_ = 0;
  fs::path dir_;
  pid_t pid_ = 0;
};

template <typename Predicate>
bool waitFor(Predicate done, int tenths = 100) {
  for (int i = 0; i < tenths * 10; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

inline char processState(pid_t pid) {
  std::string line = slurp("/proc/" + std::to_string(pid) + "/stat");
  auto close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() ? '?' : line[close + 2];
}

inline pid_t readPid(const fs::path& file) {
  pid_t pid = 0;
  std::ifstream(file) >> pid;
  return pid;
}

}  // namespace gantry::stepd::testing
