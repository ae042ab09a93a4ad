// --gpu-bind (srun, sbatch, salloc): how the tasks of a step are bound to
// the step's GPUs on each node. The forms follow Slurm's:
//
//   [verbose,]none            no binding: every task sees all of the step's GPUs
//   [verbose,]closest         the step's GPUs on the sockets of the task's CPUs
//   [verbose,]map_gpu:<list>  one GPU id per local task, reused round robin
//   [verbose,]mask_gpu:<list> one hex GPU mask per local task, round robin
//   [verbose,]single:<N>      one GPU of the closest ones, N tasks per GPU
//   [verbose,]per_task:<N>    N GPUs per task, in order
//
// A list item may repeat itself as <item>*<count> ("0*2,1*2"). Ids and mask
// bits are positions among the step's GPUs when the node confines devices,
// the node's GPU indexes otherwise. verbose makes every task report its
// binding on its standard error. Pure: text in, value or error out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::gres {

enum class GpuBindMode { None, Closest, MapGpu, MaskGpu, Single, PerTask };

struct GpuBind {
  GpuBindMode mode = GpuBindMode::None;
  bool verbose = false;
  std::vector<int> gpuIds;      // map_gpu: one per local task, repeats expanded
  std::vector<uint64_t> masks;  // mask_gpu: one per local task, repeats expanded
  int count = 0;                // single: tasks per GPU; per_task: GPUs per task
};

// Fails with a message that quotes the bad part and says what is expected.
Result<GpuBind> parseGpuBind(const std::string& text);

}  // namespace gantry::gres
