// The informational lines srun and salloc print about an allocation, in
// Slurm's words, because scripts and Slurm's own tests read them. Pure.
#pragma once

#include <string>

#include "gantry/v1/types.pb.h"

namespace gantry::cli {

// srun -v: "jobid 12: nodes(2):`gpu[1-2]', cpu counts: 8(x2)" (the job's
// nodes, and the CPUs it holds on each, runs of equal counts folded).
std::string jobNodesLine(const gantry::v1::Job& job);

// salloc: "Nodes gpu[1-2] are ready for job".
std::string nodesReadyLine(const gantry::v1::Job& job);

}  // namespace gantry::cli
