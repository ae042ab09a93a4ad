// Helpers for the switch.lua tests: a sink that keeps the lines, and a
// script written to a fresh temporary directory.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <stdlib.h>

#include "common/switchlua/script_log.h"

namespace gantry::switchlua::test {

class CapturedLog {
 public:
  LogSink sink() {
    return [this](ScriptLogLevel level, std::string line) { lines_.emplace_back(level, std::move(line)); };
  }
  const std::vector<std::pair<ScriptLogLevel, std::string>>& lines() const { return lines_; }
  bool has(ScriptLogLevel level, const std::string& line) const {
    for (const auto& [l, text] : lines_) {
      if (l == level && text == line) return true;
    }
    return false;
  }
  bool mentions(const std::string& part) const {
    for (const auto& entry : lines_) {
      if (entry.second.find(part) != std::string::npos) return true;
    }
    return false;
  }

 private:
  std::vector<std::pair<ScriptLogLevel, std::string>> lines_;
};

// A directory of its own under the system's temporary directory, removed
// with the object.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "switchlua-test-XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

// switch.lua with the given text, rewritable between calls.
class ScriptFile {
 public:
  explicit ScriptFile(const std::string& text) { write(text); }
  void write(const std::string& text) const { std::ofstream(path()) << text; }
  std::filesystem::path path() const { return dir_.path() / "switch.lua"; }
  const std::filesystem::path& dir() const { return dir_.path(); }

 private:
  ScratchDir dir_;
};

}  // namespace gantry::switchlua::test
