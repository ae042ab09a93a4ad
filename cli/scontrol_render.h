// scontrol's "show" records in Slurm's Key=Value layout: the first line
// starts at column 0, continuation lines are indented three spaces, and
// records are separated by a blank line. Only fields Gantry has data for
// are printed. Pure: names of users/groups and "now" are passed in.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli/job_steps.h"
#include "gantry/v1/controller.pb.h"
#include "gantry/v1/types.pb.h"

namespace gantry::cli {

struct RenderOptions {
  bool details = false;  // -d
  int64_t now = 0;       // unix seconds, for run times and the config header
  // Group name for a gid; the default prints the number.
  std::function<std::string(uint32_t)> groupName;
};

std::string renderJob(const gantry::v1::Job& job, const RenderOptions& options);
std::string renderNode(const gantry::v1::Node& node, const RenderOptions& options);
std::string renderPartition(const gantry::v1::Partition& partition, const RenderOptions& options);

// `scontrol show step`: Slurm's step record (StepId, UserId, StartTime,
// TimeLimit / State, Partition, NodeList / Nodes, CPUs, Tasks, Name /
// TRES), then EndTime and ExitCode once the step ended; -d adds one line
// per node of the step's allocation as renderJob does.
std::string renderStep(const StepRow& row, const RenderOptions& options);

// "Configuration data as of <time>" then "Key = Value" lines, keys padded.
std::string renderConfig(const std::vector<gantry::v1::ConfigEntry>& entries,
                         const RenderOptions& options);

// -o/--oneliner: a record's lines on one, each line's indentation (three
// spaces, or a detail line's own) turned into a single space between it
// and the line before.
std::string oneLineRecord(const std::string& record);

// Records as scontrol prints several at once: joined by blank lines, or
// with `oneLiner` each on one line of its own (oneLineRecord).
std::string joinRecords(const std::vector<std::string>& records, bool oneLiner = false);

}  // namespace gantry::cli
