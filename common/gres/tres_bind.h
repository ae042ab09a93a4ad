// --tres-bind (sbatch, srun, salloc, and scontrol update TresBind=): how a
// job's tasks are bound to its TRES. Slurm checks the value in its
// controller with the rules below, and Gantry does the same, so that a
// script sees the same verdicts:
//
//   <item>[+<item>...]     items joined by '+', empty items skipped
//   gres/<name>:<binding>  every item names a GRES and its binding
//   binding of a GPU-like GRES:  [verbose,]closest | none | map:<list> |
//     mask:<list> | map_gpu:<list> | mask_gpu:<list> | per_task:<N> | single:<N>
//   binding of a shared GRES (mps, shard): [verbose,]none | per_task:<N>
//
// A map list holds decimal numbers, a mask list hexadecimal ones (a "0x"
// before an item is dropped); an item may end in "*<count>"; an empty list
// is valid. Like Slurm, the words are matched as prefixes and without case
// ("closest" and "CLOSESTX" both read as closest), and N is read the way C's
// strtol reads it (anything not negative passes). An empty value is valid:
// it clears the binding.
//
// --gpu-bind=X is recorded as tres_bind "gres/gpu:X", as Slurm records it.
// Pure: text in, verdict out.
#pragma once

#include <cstdint>
#include <string>

#include "common/util/result.h"

namespace gantry::gres {

// Fails naming the item and what is wrong with it.
Status checkTresBind(const std::string& text);

// The --gpu-bind form of the gres/gpu item of a --tres-bind value
// ("gres/gpu:map:0,1" -> "map_gpu:0,1"), or "" when there is none or
// when common/gres/gpu_bind.h cannot bind by it (an empty list): then
// the tasks are not bound.
std::string gpuBindOfTresBind(const std::string& tresBind);

// The binding a step's tasks follow: the tres-bind's GPU item when a
// tres-bind is set (it is the later word: Slurm's launcher reads only
// tres_bind), else --gpu-bind.
std::string effectiveGpuBind(const std::string& tresBind, const std::string& gpuBind);

// The binding of tasks that ask GPUs each when no binding is named:
// "per_task:N", as Slurm's --gpus-per-task implies
// --tres-bind=gres/gpu:per_task:N; "" when gpusPerTask is 0.
std::string impliedGpuBind(int64_t gpusPerTask);

}  // namespace gantry::gres
