// Expansion of the file-name patterns of --output/--error/--input:
// %j job id, %u user name, %x job name, %N node name, %s step id, %t task id
// (relative to the job), %A the array's job id, %a the array task index and
// %b that index modulo 10 (a job outside an array: its job id and
// 4294967294, as in Slurm), %% a percent sign. Other sequences stay as written.
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
  uint64_t array_job_id = 0;    // 0: not in an array
  int64_t array_task_id = -1;   // -1: not in an array
};

// Pure: expands the sequences and makes the path absolute against work_dir.
std::string expandOutputPattern(const std::string& pattern, const OutputPatternValues& values);

// True when the pattern names one file per task (contains %t).
bool patternIsPerTask(const std::string& pattern);

}  // namespace gantry::stepd
