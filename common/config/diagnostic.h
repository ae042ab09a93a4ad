// Problems found while reading configuration, each tied to the file and line
// that caused it, so an administrator can go straight to the fix.
#pragma once

#include <string>
#include <vector>

namespace gantry::config {

struct Diagnostic {
  std::string file;
  int line = 0;  // 0 when the problem is about the file as a whole
  std::string message;

  // "file:line: message", or "file: message" when there is no line.
  std::string toString() const {
    if (line > 0) return file + ":" + std::to_string(line) + ": " + message;
    return file + ": " + message;
  }
};

// Collects every problem of a load so all of them are reported at once.
// Notes are not problems: they say that a value was accepted but changes
// nothing yet (common/config/inert_keys.h).
struct Diagnostics {
  std::vector<Diagnostic> errors;
  std::vector<Diagnostic> warnings;
  std::vector<Diagnostic> notes;

  void error(const std::string& file, int line, std::string message) {
    errors.push_back(Diagnostic{file, line, std::move(message)});
  }
  void warn(const std::string& file, int line, std::string message) {
    warnings.push_back(Diagnostic{file, line, std::move(message)});
  }
  void note(const std::string& file, int line, std::string message) {
    notes.push_back(Diagnostic{file, line, std::move(message)});
  }
  bool ok() const { return errors.empty(); }
  void append(const Diagnostics& other) {
    errors.insert(errors.end(), other.errors.begin(), other.errors.end());
    warnings.insert(warnings.end(), other.warnings.begin(), other.warnings.end());
    notes.insert(notes.end(), other.notes.begin(), other.notes.end());
  }
  // Every error, one "file:line: message" per line.
  std::string errorText() const {
    std::string text;
    for (const auto& d : errors) {
      if (!text.empty()) text += "\n";
      text += d.toString();
    }
    return text;
  }
};

}  // namespace gantry::config
