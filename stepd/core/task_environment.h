// The environment of a task, of the GPU part of it, and of the Prolog and
// Epilog. Pure functions: a StepSpec in, a name -> value map out.
//
// GPU variables. The variables set depend on gres_flags when one of
// nvidia_gpu_env, amd_gpu_env, intel_gpu_env or opencl_env is present;
// otherwise on the vendor of the allocated devices: nvidia sets
// CUDA_VISIBLE_DEVICES, amd sets ROCR_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL,
// intel sets ZE_AFFINITY_MASK, and an unknown vendor sets
// CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL.
// CUDA_DEVICE_ORDER=PCI_BUS_ID accompanies CUDA_VISIBLE_DEVICES.
// Values are positions among the allocated devices when the task's devices
// are constrained (the task sees only those), node indexes otherwise and
// always in the Prolog/Epilog; with the env_uuid flag the UUIDs, unless one
// of the devices has none. An MPS step always sees device 0 (the device of
// its MPS server) and gets CUDA_MPS_ACTIVE_THREAD_PERCENTAGE =
// shares x 100 / configured count, rounded down.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stepd/core/step_spec.h"

namespace gantry::stepd {

using Environment = std::map<std::string, std::string>;

struct GpuEnvironmentOptions {
  bool devices_constrained = false;        // the task only sees its devices
  bool device_memory_constrained = false;  // ConstrainDeviceMemory=yes
  bool for_prolog = false;                 // node indexes, no per-step variables
  // --gpu-bind: the task's GPUs as positions among the step's distinct
  // devices in node-index order (see gpu_binding.h); null = all of them.
  const std::vector<size_t>* bound_gpus = nullptr;
};

Environment gpuEnvironment(const StepSpec& spec, const GpuEnvironmentOptions& options);

struct TaskEnvironmentOptions {
  int local_task_id = 0;  // 0 .. tasks_on_node-1
  // True only when the device filter really confines the task; the caller
  // decides, since a requested but unapplied filter leaves every device visible.
  bool devices_constrained = false;
  // --gpu-bind: the task's GPUs among the step's (see GpuEnvironmentOptions).
  std::optional<std::vector<size_t>> bound_gpus;
};

// The submitted environment, then the SLURM_* variables and the GPU
// variables on top (ours win over submitted ones of the same name). A step
// with no GPU on a node that has GPUs loses the submitted visible-device
// variables (CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL,
// ZE_AFFINITY_MASK).
Environment taskEnvironment(const StepSpec& spec, const TaskEnvironmentOptions& options);

// For the Prolog and Epilog: node-index CUDA_VISIBLE_DEVICES,
// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE for MPS jobs, SLURM_JOB_ID, SLURM_JOB_UID,
// SLURM_JOB_USER.
Environment prologEnvironment(const StepSpec& spec);

}  // namespace gantry::stepd
