// Helpers for the runner's tests: scripts in a scratch folder, reports
// collected from the runner's thread, and a look at what of a process
// group still runs.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "controller/switch/runner/call_runner.h"

namespace gantry::interconnect::test {

// A folder of its own, readable by everyone (a call may run as another
// user), removed with the object.
class ScriptFolder {
 public:
  ScriptFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "switch-runner-test-XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
    ::chmod(dir_.c_str(), 0755);
  }
  ~ScriptFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  ScriptFolder(const ScriptFolder&) = delete;
  ScriptFolder& operator=(const ScriptFolder&) = delete;

  std::filesystem::path write(const std::string& name, const std::string& text) const {
    auto path = dir_ / name;
    std::ofstream(path) << text;
    ::chmod(path.c_str(), 0644);
    return path;
  }
  std::filesystem::path path(const std::string& name) const { return dir_ / name; }

 private:
  std::filesystem::path dir_;
};

// Collects the reports `done` delivers, by a key the test chooses.
class Reports {
 public:
  CallDone collect(int key) {
    return [this, key](CallReport report) {
      std::lock_guard lock(mutex_);
      reports_.emplace(key, std::move(report));
      arrived_.notify_all();
    };
  }
  // False when `count` reports have not come within `limit`.
  bool waitFor(size_t count, std::chrono::milliseconds limit = std::chrono::seconds(20)) {
    std::unique_lock lock(mutex_);
    return arrived_.wait_for(lock, limit, [&] { return reports_.size() >= count; });
  }
  CallReport at(int key) {
    std::lock_guard lock(mutex_);
    return reports_.at(key);
  }
  size_t size() {
    std::lock_guard lock(mutex_);
    return reports_.size();
  }

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<int, CallReport> reports_;
};

// How many processes of group `pgid` run (zombies, which are dead, aside).
// /proc/PID/stat, or "" when the process is gone. Read with read(2): the
// process may end while it is read, and a stream then throws (ESRCH).
inline std::string procStat(const std::string& pid) {
  int fd = ::open(("/proc/" + pid + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buffer[1024];
  ssize_t got = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  return got > 0 ? std::string(buffer, static_cast<size_t>(got)) : std::string();
}

inline int runningInGroup(pid_t pgid) {
  int count = 0;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return -1;
  while (dirent* entry = readdir(proc)) {
    if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
    std::string text = procStat(entry->d_name);
    auto close = text.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int parent = 0, group = 0;
    if (std::sscanf(text.c_str() + close + 1, " %c %d %d", &state, &parent, &group) != 3) continue;
    if (group == pgid && state != 'Z' && state != 'X') ++count;
  }
  closedir(proc);
  return count;
}

// Whether process `pid` runs (a zombie does not).
inline bool processRuns(pid_t pid) {
  std::string text = procStat(std::to_string(pid));
  auto close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return false;
  char state = text[close + 2];
  return state != 'Z' && state != 'X';
}

// A process killed with SIGKILL is gone a moment later, not at the instant
// the signal is sent: the kernel still has to tear it down, which on a
// loaded machine takes a few milliseconds. These wait for that (up to 2 s)
// so that only a process that was never killed fails the check.
inline bool endsSoon(pid_t pid) {
  for (int i = 0; i < 200; ++i) {
    if (!processRuns(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

inline bool groupEndsSoon(pid_t pgid) {
  for (int i = 0; i < 200; ++i) {
    if (runningInGroup(pgid) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// The first number in a file, or 0 (not there yet).
inline pid_t pidIn(const std::filesystem::path& file) {
  std::ifstream in(file);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

inline CallRunner makeRunner() { return CallRunner({.helper = GANTRY_SWITCH_CALL_HELPER}); }

}  // namespace gantry::interconnect::test
