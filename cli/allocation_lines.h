// The informational lines srun and salloc print about an allocation, in
// Slurm's words, because scripts and Slurm's own tests read them. Pure.
#pragma once

#include <cstdint>
#include <string>

#include "gantry/v1/types.pb.h"

namespace gantry::cli {

// srun -v: "jobid 12: nodes(2):`gpu[1-2]', cpu counts: 8(x2)" (the job's
// nodes, and the CPUs it holds on each, runs of equal counts folded).
std::string jobNodesLine(const gantry::v1::Job& job);

// srun -v once its step exists: "launching StepId=12.0 on host gpu1, 2
// tasks: 0-1" (Slurm prints one such line per node; Gantry's answer names
// the step's nodes together, so one line names them all: "on hosts").
std::string stepLaunchLine(uint64_t jobId, const std::string& stepId, const std::string& nodeList, int nodes,
                           int tasks);

// salloc: "Nodes gpu[1-2] are ready for job".
std::string nodesReadyLine(const gantry::v1::Job& job);

}  // namespace gantry::cli
