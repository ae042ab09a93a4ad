#include "stepd/core/output_pattern.h"

namespace gantry::stepd {

std::string expandOutputPattern(const std::string& pattern, const OutputPatternValues& values) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    const char code = pattern[++i];
    switch (code) {
      case 'j': out += std::to_string(values.job_id); break;
      case 'u': out += values.user; break;
      case 'x': out += values.job_name; break;
      case 'N': out += values.node_name; break;
      case 's': out += values.step_id; break;
      case 't': out += std::to_string(values.task_id); break;
      case '%': out += '%'; break;
      default:
        out += '%';
        out += code;
    }
  }
  if (!out.empty() && out.front() != '/' && !values.work_dir.empty()) {
    std::string dir = values.work_dir;
    if (dir.back() != '/') dir += '/';
    out = dir + out;
  }
  return out;
}

bool patternIsPerTask(const std::string& pattern) {
  for (size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] != '%') continue;
    if (pattern[i + 1] == 't') return true;
    ++i;  // skip the code, so "%%t" is a literal
  }
  return false;
}

}  // namespace gantry::stepd
