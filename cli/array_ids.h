// Job ids as users write them now that jobs come in arrays: "123" (a job,
// or every record of array 123), "123_4" (one task) and "123_[1-3,7]" or
// "123_1-3" (some tasks). And the ways squeue and scontrol show an
// array's records: "123_4" for a task of its own, "123_[5-99%10]" for the
// tasks still pending in the array's record. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/result.h"
#include "gantry/v1/types.pb.h"

namespace gantry::cli {

struct JobTarget {
  uint64_t id = 0;
  std::string tasks;  // --array's form without a throttle; "" for the whole job or array
};

// Refused with Slurm's "Invalid job id: <text>" for anything else.
Result<JobTarget> parseJobTarget(std::string_view text);

// A comma list of ids, never splitting inside brackets ("1,2_[3,5]").
std::vector<std::string> splitJobList(std::string_view text);

// squeue's %i and scontrol's JobId= display: "123", "123_4", or
// "123_[5-99%10]" (long task lists cut to 64 characters with "...", as
// Slurm does unless SLURM_BITSTR_LEN says otherwise).
std::string arrayJobIdText(const gantry::v1::Job& job);
// squeue's %K: the task index, the pending list, or "N/A" outside an array.
std::string arrayTaskText(const gantry::v1::Job& job);
// squeue's %F: the array's job id, or the job's own outside an array.
uint64_t arrayJobIdOf(const gantry::v1::Job& job);

// Whether a listed record is (or, for the array's record, holds) a task
// the target names.
bool jobMatches(const gantry::v1::Job& job, const JobTarget& target);

// squeue -r: each array record's pending tasks as one entry each (a copy
// with the task's index), in index order; other records as they are.
std::vector<gantry::v1::Job> expandArrayRecords(const std::vector<gantry::v1::Job>& jobs);

}  // namespace gantry::cli
