// squeue -s columns: the "-o" codes and "-O" names Slurm's squeue has for
// job steps, and the table they make.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/format_fields.h"
#include "cli/job_steps.h"
#include "common/util/result.h"

namespace gantry::cli {

// Slurm's default for steps: "%.15i %.8j %.9P %.8u %.9M %N".
LineFormat defaultStepFormat();

// "-o/--format" with Slurm's step codes: %i (jobid.stepid), %j (step name),
// %P, %u, %U (the job's partition and user), %M (elapsed), %N (nodes),
// %A (tasks), %S (start time), %l (time limit).
Result<LineFormat> parseStepFormat(const std::string& format);

// "-O/--Format" with names StepId, JobId, StepName, Partition, UserName,
// UserId, TimeUsed, Nodes, NumTasks, NumCPUs, StartTime, TimeLimit,
// StepState.
Result<LineFormat> parseStepFieldList(const std::string& list);

// Every step column (squeue -s), in the order of the table.
std::vector<ColumnName> stepColumns();

struct StepRenderOptions {
  bool header = true;
  int64_t now = 0;  // unix seconds, for elapsed times
};

std::string renderSteps(const LineFormat& format, const std::vector<StepRow>& steps,
                        const StepRenderOptions& options);

}  // namespace gantry::cli
