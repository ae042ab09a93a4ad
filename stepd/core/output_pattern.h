// Expansion of the file-name patterns of --output/--error/--input:
// %j job id, %u user name, %x job name, %N node name, %s step id, %t task id
// (relative to the job), %% a percent sign. Other sequences stay as written.
// A relative result is taken relative to the work directory.
#pragma once

#include <cstdint>
#include <string>

namespace gantry::stepd {

struct OutputPatternValues {
  uint64_t job_id = 0;
  std::string user;
  std::string job_name;
  std::string node_name;
  std::string step_id;
  int task_id = 0;
  int node_id = 0;  // the node's index in the step (%n)
  std::string work_dir;
};

// Pure: expands the sequences and makes the path absolute against work_dir.
std::string expandOutputPattern(const std::string& pattern, const OutputPatternValues& values);

// True when the pattern names one file per task (contains %t).
bool patternIsPerTask(const std::string& pattern);

}  // namespace gantry::stepd
