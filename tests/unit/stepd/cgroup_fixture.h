// A private copy of tests/fixtures/cgroup/v2root for one test, removed again
// at the end, so tests may write into it freely.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace gantry::stepd::testing {

class CgroupFixture {
 public:
  CgroupFixture() {
    namespace fs = std::filesystem;
    root_ = fs::temp_directory_path() / ("gantry-cgroup-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::remove_all(root_);
    fs::copy("tests/fixtures/cgroup/v2root", root_, fs::copy_options::recursive);
  }
  ~CgroupFixture() { std::filesystem::remove_all(root_); }
  std::string root() const { return root_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path root_;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace gantry::stepd::testing
