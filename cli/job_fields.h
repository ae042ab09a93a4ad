// Values derived from a Job that squeue and scontrol both print: state
// names, run time, node and CPU counts, the per-node TRES text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "gantry/v1/types.pb.h"

namespace gantry::cli {

// "RUNNING", "PENDING", ...
std::string jobStateName(gantry::v1::JobState state);
// "R", "PD", "CG", ...
std::string jobStateCompact(gantry::v1::JobState state);
// The state a job is shown in: its state, or STOPPED / ST for a running
// job whose tasks were stopped with scancel -s STOP (Slurm's flag).
std::string jobStateName(const gantry::v1::Job& job);
std::string jobStateCompact(const gantry::v1::Job& job);
// Accepts either spelling, any case ("pd", "Running"); nullopt otherwise.
std::optional<gantry::v1::JobState> parseJobState(const std::string& text);

// Seconds the job has run at `now`, not counting suspended time.
int64_t jobRunSeconds(const gantry::v1::Job& job, int64_t now);

// Allocated nodes when it has an allocation, otherwise the requested minimum.
int32_t jobNodeCount(const gantry::v1::Job& job);
// Allocated CPUs, or the requested tasks * CPUs per task.
int32_t jobCpuCount(const gantry::v1::Job& job);

// The per-node TRES request as Slurm writes it: "gres/gpu:a100:2,gres/mps:100";
// empty when there is none.
std::string jobTresPerNode(const gantry::v1::Job& job);

// squeue's NODELIST(REASON): the node list for jobs that have nodes,
// "(Reason)" for the others.
std::string jobNodeListOrReason(const gantry::v1::Job& job);

// The reason, or "None".
std::string jobReason(const gantry::v1::Job& job);

}  // namespace gantry::cli
