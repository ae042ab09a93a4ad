// Small helpers for unit tests that run real processes and files: a
// temporary folder removed at the end, reading a file whole, waiting for a
// condition with a bound, and counting this process's zombie children.
#pragma once

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>

namespace gantry::testing {

// A fresh folder under the temporary directory, removed with everything in
// it when the object goes.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "gantry-test") {
    path_ = std::filesystem::temp_directory_path() /
            (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(next_++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

  // An executable shell script with `body` after the #! line.
  std::filesystem::path script(const std::string& name, const std::string& body) const {
    std::filesystem::path file = path_ / name;
    std::ofstream(file) << "#!/bin/sh\n" << body << "\n";
    std::filesystem::permissions(file, std::filesystem::perms::owner_all);
    return file;
  }

 private:
  static inline int next_ = 0;
  std::filesystem::path path_;
};

// The whole file, or "" when it cannot be read.
inline std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Polls `condition` until it holds or `limit` has passed; for waiting on
// real child processes, never on simulated time.
inline bool waitFor(const std::function<bool()>& condition,
                    std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// Zombies among this test process's children.
inline int zombieChildren() {
  int zombies = 0;
  const std::string self = std::to_string(::getpid());
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::string stat = readFile(entry.path() / "stat");
    auto close = stat.rfind(')');
    if (close == std::string::npos || close + 2 >= stat.size()) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string state, parent;
    fields >> state >> parent;
    if (state == "Z" && parent == self) ++zombies;
  }
  return zombies;
}

}  // namespace gantry::testing
