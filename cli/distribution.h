// -m/--distribution (sbatch, srun, salloc): how tasks are laid out on the
// nodes, then the sockets, then the cores. The forms are Slurm's:
//
//   <node>[:<socket>[:<core>]][,Pack|,NoPack]   node: block, cyclic, arbitrary
//                                               (hostfile), or * for block;
//                                               socket and core: block,
//                                               cyclic, fcyclic, or * (cyclic,
//                                               then the socket's)
//   Pack | NoPack                               alone: the default layout
//   plane=<N>                                   N tasks per node in turn
//
// Words are matched without case; arbitrary takes no socket part. Gantry
// checks the value, keeps it with the job and passes it to the job's steps
// as SLURM_DISTRIBUTION (and SLURM_DIST_PLANESIZE for plane) in Slurm's
// spelling; its selection places tasks in blocks whatever is asked.
// Pure: text in, value or error out.
#pragma once

#include <string>

#include "common/util/result.h"

namespace gantry::cli {

struct Distribution {
  std::string name;   // SLURM_DISTRIBUTION: "cyclic:block", "block,pack", "plane", "nopack"
  int planeSize = 0;  // plane=N: N (SLURM_DIST_PLANESIZE); 0 otherwise
};

// Fails quoting the value and naming what is expected.
Result<Distribution> parseDistribution(const std::string& text);

}  // namespace gantry::cli
