// squeue's columns: the "-o" codes and "-O" names, and the table they make.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/format_fields.h"
#include "common/util/result.h"
#include "gantry/v1/types.pb.h"

namespace gantry::cli {

// Slurm's default: "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R".
LineFormat defaultSqueueFormat();

// "-o/--format" with codes %i %j %u %T %t %M %D %N %P %R %l %C %b.
Result<LineFormat> parseSqueueFormat(const std::string& format);

// "-O/--Format" with names JobID, Name, UserName, State, StateCompact,
// TimeUsed, NumNodes, NodeList, Partition, Reason, TimeLimit, NumCPUs,
// tres-per-node (alias Gres), SubmitTime, StartTime, EndTime, WorkDir,
// ReasonList, UserId, ExitCode, BatchHost.
Result<LineFormat> parseSqueueFieldList(const std::string& list);

struct SqueueRenderOptions {
  bool header = true;
  int64_t now = 0;  // unix seconds, for run times
};

std::string renderSqueue(const LineFormat& format, const std::vector<gantry::v1::Job>& jobs,
                         const SqueueRenderOptions& options);

}  // namespace gantry::cli
