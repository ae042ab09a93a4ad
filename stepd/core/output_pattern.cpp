#include "stepd/core/output_pattern.h"

#include <algorithm>

namespace gantry::stepd {

namespace {

// What Slurm writes for %a outside an array (its NO_VAL).
constexpr int64_t kNotInArray = 4294967294;

// Slurm's "%4t": digits after the % pad a number with zeros.
std::string padded(const std::string& digits, size_t width) {
  return digits.size() >= width ? digits : std::string(width - digits.size(), '0') + digits;
}

}  // namespace

std::string expandOutputPattern(const std::string& pattern, const OutputPatternValues& values) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    size_t start = i;
    size_t width = 0;
    while (i + 1 < pattern.size() && pattern[i + 1] >= '0' && pattern[i + 1] <= '9') {
      width = std::min<size_t>(width * 10 + static_cast<size_t>(pattern[++i] - '0'), 64);
    }
    if (i + 1 == pattern.size()) {  // "%3" at the end: nothing to expand
      out += pattern.substr(start);
      break;
    }
    const char code = pattern[++i];
    const std::string job = std::to_string(values.job_id);
    switch (code) {
      case 'j': out += padded(job, width); break;
      // Outside an array, as in Slurm: the job's own id, and NO_VAL - 1.
      case 'A': out += padded(values.array_job_id != 0 ? std::to_string(values.array_job_id) : job, width); break;
      case 'a':
        out += padded(std::to_string(values.array_task_id >= 0 ? values.array_task_id : kNotInArray), width);
        break;
      case 'b':  // the task index modulo 10
        out += padded(std::to_string((values.array_task_id >= 0 ? values.array_task_id : kNotInArray) % 10), width);
        break;
      // job.step, except for the batch step, which is the job alone.
      case 'J':
        out += padded(job, width);
        if (values.step_id != "batch" && !values.step_id.empty()) out += "." + values.step_id;
        break;
      case 'u': out += values.user; break;
      case 'x': out += values.job_name; break;
      case 'N': out += values.node_name; break;
      case 's': out += values.step_id; break;
      case 't': out += padded(std::to_string(values.task_id), width); break;
      case 'n': out += padded(std::to_string(values.node_id), width); break;
      case '%': out += '%'; break;
      default: out += pattern.substr(start, i - start + 1);
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
    size_t code = i + 1;
    while (code < pattern.size() && pattern[code] >= '0' && pattern[code] <= '9') ++code;  // "%3t"
    if (code < pattern.size() && pattern[code] == 't') return true;
    i = code;  // skip the code, so "%%t" is a literal
  }
  return false;
}

}  // namespace gantry::stepd
