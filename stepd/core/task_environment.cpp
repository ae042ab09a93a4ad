#include "stepd/core/task_environment.h"

#include <algorithm>
#include <set>
#include <vector>

#include "stepd/core/dmem_limits.h"
#include "stepd/core/sluid.h"

namespace gantry::stepd {
namespace {

bool hasFlag(const std::vector<std::string>& flags, const std::string& flag) {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ',';
    out += item;
  }
  return out;
}

// Each physical device once, in node-index order; shards and MPS slices of
// one device collapse into it.
std::vector<GpuAllocation> distinctDevices(const std::vector<GpuAllocation>& gpus) {
  std::vector<GpuAllocation> devices;
  for (const auto& gpu : gpus) {
    bool seen = std::any_of(devices.begin(), devices.end(), [&](const GpuAllocation& d) { return d.index == gpu.index; });
    if (!seen) devices.push_back(gpu);
  }
  std::sort(devices.begin(), devices.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  return devices;
}

std::set<std::string> visibleDeviceVariables(const std::vector<GpuAllocation>& devices,
                                             const std::vector<std::string>& flags) {
  std::set<std::string> names;
  if (hasFlag(flags, "nvidia_gpu_env")) names.insert("CUDA_VISIBLE_DEVICES");
  if (hasFlag(flags, "amd_gpu_env")) names.insert("ROCR_VISIBLE_DEVICES");
  if (hasFlag(flags, "intel_gpu_env")) names.insert("ZE_AFFINITY_MASK");
  if (hasFlag(flags, "opencl_env")) names.insert("GPU_DEVICE_ORDINAL");
  if (!names.empty()) return names;
  for (const auto& device : devices) {
    if (device.vendor == "nvidia") {
      names.insert("CUDA_VISIBLE_DEVICES");
    } else if (device.vendor == "amd") {
      names.insert({"ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"});
    } else if (device.vendor == "intel") {
      names.insert("ZE_AFFINITY_MASK");
    } else {
      names.insert({"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"});
    }
  }
  return names;
}

std::vector<std::string> deviceIds(const std::vector<GpuAllocation>& devices, const std::vector<std::string>& flags,
                                   bool relative) {
  const bool all_have_uuid =
      std::all_of(devices.begin(), devices.end(), [](const GpuAllocation& d) { return !d.uuid.empty(); });
  std::vector<std::string> ids;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (hasFlag(flags, "env_uuid") && all_have_uuid) {
      ids.push_back(devices[i].uuid);
    } else {
      ids.push_back(std::to_string(relative ? static_cast<int>(i) : devices[i].index));
    }
  }
  return ids;
}

std::string mpsPercentage(const std::vector<GpuAllocation>& gpus) {
  for (const auto& gpu : gpus) {
    if (gpu.name == "mps" && gpu.share_count > 0) return std::to_string(gpu.shares * 100 / gpu.share_count);
  }
  return "";
}

bool hasName(const std::vector<GpuAllocation>& gpus, const std::string& name) {
  return std::any_of(gpus.begin(), gpus.end(), [&](const GpuAllocation& g) { return g.name == name; });
}

}  // namespace

Environment gpuEnvironment(const StepSpec& spec, const GpuEnvironmentOptions& options) {
  Environment env;
  const auto devices = distinctDevices(spec.gpus);
  if (devices.empty()) return env;
  const bool mps = hasName(spec.gpus, "mps");
  std::string visible;
  if (mps && !options.for_prolog) {
    visible = "0";
  } else {
    auto ids = deviceIds(devices, spec.gres_flags, options.devices_constrained && !options.for_prolog);
    if (options.bound_gpus != nullptr && !options.for_prolog) {
      // A bound task names only its own devices, with the ids it would
      // have among all of the step's (what the confined task sees).
      std::vector<std::string> bound;
      for (size_t position : *options.bound_gpus) {
        if (position < ids.size()) bound.push_back(ids[position]);
      }
      ids = std::move(bound);
    }
    visible = join(ids);
  }
  for (const auto& name : visibleDeviceVariables(devices, spec.gres_flags)) env[name] = visible;
  if (env.count("CUDA_VISIBLE_DEVICES") && !options.for_prolog) env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID";
  if (mps) {
    if (auto pct = mpsPercentage(spec.gpus); !pct.empty()) env["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] = pct;
  }
  if (options.for_prolog) return env;

  std::vector<std::string> whole_gpus;
  int64_t shards = 0;
  for (const auto& gpu : spec.gpus) {
    if (gpu.name == "gpu") whole_gpus.push_back(std::to_string(gpu.index));
    if (gpu.name == "shard") shards += gpu.shares;
  }
  if (!whole_gpus.empty()) {
    const bool job_wide_step = spec.step_id == "batch" || spec.step_id == "extern";
    env[job_wide_step ? "SLURM_JOB_GPUS" : "SLURM_STEP_GPUS"] = join(whole_gpus);
  }
  if (hasName(spec.gpus, "shard")) env["SLURM_SHARDS_ON_NODE"] = std::to_string(shards);
  const auto limits = dmemLimits(spec.gpus, options.device_memory_constrained);
  if (!limits.empty()) env["SLURM_SHARD_MEM_PER_GPU"] = shardMemPerGpuValue(limits);
  return env;
}

Environment taskEnvironment(const StepSpec& spec, const TaskEnvironmentOptions& options) {
  Environment env = spec.env;
  const std::string job_id = std::to_string(spec.job_id);
  const std::string ntasks = std::to_string(spec.ntasks);
  const std::string num_nodes = std::to_string(spec.num_nodes);
  env["SLURM_JOB_ID"] = job_id;
  env["SLURM_JOBID"] = job_id;
  env["SLURM_STEP_ID"] = spec.step_id;
  env["SLURM_STEPID"] = spec.step_id;
  env["SLURM_JOB_NAME"] = spec.job_name;
  env["SLURM_JOB_NODELIST"] = spec.nodelist;
  env["SLURM_NODELIST"] = spec.nodelist;
  env["SLURM_JOB_NUM_NODES"] = num_nodes;
  env["SLURM_NNODES"] = num_nodes;
  env["SLURM_NTASKS"] = ntasks;
  env["SLURM_NPROCS"] = ntasks;
  env["SLURM_PROCID"] = std::to_string(spec.first_task_id + options.local_task_id);
  env["SLURM_LOCALID"] = std::to_string(options.local_task_id);
  env["SLURM_NODEID"] = std::to_string(spec.node_id);
  env["SLURM_CPUS_ON_NODE"] = std::to_string(spec.cpus_on_node);
  env["SLURM_JOB_PARTITION"] = spec.partition;
  env["SLURM_CLUSTER_NAME"] = spec.cluster;
  env["SLURM_SUBMIT_DIR"] = spec.submit_dir;
  env["SLURM_SUBMIT_HOST"] = spec.submit_host;
  env["SLURMD_NODENAME"] = spec.node_name;
  env["SLURM_JOB_UID"] = std::to_string(spec.uid);
  env["SLURM_JOB_GID"] = std::to_string(spec.gid);
  env["SLURM_JOB_USER"] = spec.user;
  env["SLURM_JOB_SLUID"] = jobSluid(spec.cluster, spec.job_id);
  if (spec.gpus.empty() && spec.node_has_gpus) {
    // A step without GPUs on a GPU node sees none, whatever it inherited
    // (srun in a batch script passes the script's variables on).
    for (const char* name : {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ZE_AFFINITY_MASK"})
      env.erase(name);
  }
  const bool dmem = spec.cgroup && spec.cgroup->constrain_device_memory;
  for (auto& [name, value] : gpuEnvironment(spec, {.devices_constrained = options.devices_constrained,
                                                   .device_memory_constrained = dmem,
                                                   .bound_gpus = options.bound_gpus ? &*options.bound_gpus : nullptr}))
    env[name] = value;
  return env;
}

Environment prologEnvironment(const StepSpec& spec) {
  Environment env = gpuEnvironment(spec, {.for_prolog = true});
  env["SLURM_JOB_ID"] = std::to_string(spec.job_id);
  env["SLURM_JOB_UID"] = std::to_string(spec.uid);
  env["SLURM_JOB_USER"] = spec.user;
  return env;
}

}  // namespace gantry::stepd
