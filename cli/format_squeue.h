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
// -l/--long: "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R".
LineFormat longSqueueFormat();
// --start: "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R".
LineFormat startSqueueFormat();

// Whether the columns show what the job asked and holds (tres-alloc), so
// that the listing must carry it (ListJobsRequest.include_tres).
bool squeueFormatNeedsTres(const LineFormat& format);

// "-o/--format" with codes %i %j %u %T %t %M %D %N %n %x %P %R %l %C %b %V
// %S %e %Z %U %B %a %k %p %Q %Y.
Result<LineFormat> parseSqueueFormat(const std::string& format);

// "-O/--Format" with names JobID, Name, UserName, State, StateCompact,
// TimeUsed, NumNodes, NodeList, Partition, Reason, TimeLimit, NumCPUs,
// tres-per-node (alias Gres), SubmitTime, StartTime, EndTime, WorkDir,
// ReasonList, UserId, ExitCode, BatchHost, Account, Comment, Priority,
// PriorityLong, SchedNodes, tres-alloc, JobArrayID ("12_4"), ArrayJobID
// and ArrayTaskID.
Result<LineFormat> parseSqueueFieldList(const std::string& list);

// Every job column, in the order of the table; the older name squeue
// also takes (gres) comes last, with its column's header.
std::vector<ColumnName> squeueColumns();

struct SqueueRenderOptions {
  bool header = true;
  int64_t now = 0;  // unix seconds, for run times
};

std::string renderSqueue(const LineFormat& format, const std::vector<gantry::v1::Job>& jobs,
                         const SqueueRenderOptions& options);

}  // namespace gantry::cli
