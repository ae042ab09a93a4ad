#include "controller/core/launch_request.h"

#include <limits>

#include "common/gres/tres_bind.h"
#include "common/util/sluid.h"

#include <algorithm>

#include "controller/core/core_helpers.h"

namespace gantry::core {

namespace {

// The registered record of a device (for its PCI address and dmem region),
// found by its first device file.
const v1::GresDevice* registeredRecord(const NodeRecord& node, const select::DeviceInfo& device) {
  for (const auto& record : node.hardware.gres()) {
    if (!device.files.empty() && record.files_size() > 0 && record.files(0) == device.files.front()) {
      return &record;
    }
  }
  return nullptr;
}

void addGpu(const NodeRecord& node, const select::NodeInfo& info, int index, const std::string& name,
            uint64_t shares, uint64_t shareCount, v1::LaunchStepRequest& request) {
  if (index < 0 || index >= static_cast<int>(info.devices.size())) return;
  const select::DeviceInfo& device = info.devices[index];
  v1::StepGpu* gpu = request.add_gpus();
  gpu->set_index(index);
  gpu->set_name(name);
  gpu->set_type(device.type);
  for (const auto& file : device.files) gpu->add_files(file);
  gpu->set_uuid(device.uuid);
  gpu->set_shares(shares);
  gpu->set_share_count(shareCount);
  if (const v1::GresDevice* record = registeredRecord(node, device)) {
    gpu->set_pci_bus_id(record->pci_bus_id());
    gpu->set_dmem_region(record->dmem_region());
    gpu->set_dmem_slice_bytes(record->dmem_slice_bytes());
    for (const auto& flag : record->flags()) {
      if (flag == "amd_gpu_env" || record->files(0).find("/dri/") != std::string::npos) gpu->set_vendor("amd");
    }
  }
  if (gpu->vendor().empty()) gpu->set_vendor("nvidia");
}

// The GPUs (whole, or shares of one) the step gets from its grant.
void addStepGpus(const NodeRecord& node, const select::NodeInfo& info, const select::NodeGrant& grant,
                 v1::LaunchStepRequest& request) {
  for (int index : grant.devices) {
    if (index >= 0 && index < static_cast<int>(info.devices.size())) {
      addGpu(node, info, index, info.devices[index].name, 0, 0, request);
    }
  }
  for (const auto& share : grant.shares) {
    uint64_t count = 0;
    if (share.device >= 0 && share.device < static_cast<int>(info.devices.size())) {
      for (const auto& offered : info.devices[share.device].shared) {
        if (offered.name == share.name) count = offered.count;
      }
    }
    addGpu(node, info, share.device, share.name, share.count, count, request);
  }
}

// What every step on a node carries about the whole job there (for the
// per-job resctrl group): whole-node ownership and the job's GPUs.
void describeJobOnNode(const JobRecord& job, int selectIndex, v1::LaunchStepRequest& request) {
  for (const auto& grant : job.allocation.nodes) {
    if (grant.node != selectIndex) continue;
    request.set_job_whole_node(grant.wholeNode);
    for (int device : grant.devices) request.add_job_gpu_indexes(device);
    for (const auto& share : grant.shares) request.add_job_gpu_indexes(share.device);
  }
}

// The job's memory on the node: a step divides it, it is not measured apart.
uint64_t jobMemoryOn(const JobRecord& job, int selectIndex) {
  for (const auto& grant : job.allocation.nodes) {
    if (grant.node == selectIndex) return grant.memoryMb;
  }
  return 0;
}

// A task of a job array sees the array as Slurm shows it: its job id, its
// own index, and the array's count, lowest and highest index and step.
// Outside an array, what the submitting shell had (sbatch from inside an
// array task) is dropped.
void addArrayEnvironment(const JobRecord& job, google::protobuf::Map<std::string, std::string>& environment) {
  for (const char* name : {"SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT",
                           "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP"}) {
    environment.erase(name);
  }
  if (job.arrayJobId == 0 || !job.arrayTaskId) return;
  // The option was accepted at submission, so any bound reads it back.
  ArrayShape shape = arrayShape(job.spec.array(), std::numeric_limits<uint32_t>::max());
  environment["SLURM_ARRAY_JOB_ID"] = std::to_string(job.arrayJobId);
  environment["SLURM_ARRAY_TASK_ID"] = std::to_string(*job.arrayTaskId);
  environment["SLURM_ARRAY_TASK_COUNT"] = std::to_string(shape.count);
  environment["SLURM_ARRAY_TASK_MIN"] = std::to_string(shape.min);
  environment["SLURM_ARRAY_TASK_MAX"] = std::to_string(shape.max);
  environment["SLURM_ARRAY_TASK_STEP"] = std::to_string(shape.step);
}

}  // namespace

v1::LaunchStepRequest buildLaunchRequest(const JobRecord& job, const NodeRecord& node,
                                         const select::NodeInfo& info, const StepPlacement& step) {
  const v1::JobSpec& spec = job.spec;
  const select::NodeGrant& grant = *step.grant;
  v1::LaunchStepRequest request;
  request.set_job_id(job.id);
  request.set_step_id(step.stepId);
  request.set_job_name(spec.name());
  request.set_uid(job.uid);
  request.set_gid(job.gid);
  request.set_user(job.user);
  request.set_node_list(step.nodeList);
  request.set_node_id(step.nodeId);
  request.set_num_nodes(step.numNodes);
  request.set_ntasks(step.ntasks);
  request.set_tasks_on_node(step.tasksOnNode);
  request.set_first_task_id(step.firstTaskId);
  request.set_cpus_on_node(detail::cpusOf(grant, info));
  for (int core : grant.cores) request.add_cores(core);
  request.set_memory_mb(jobMemoryOn(job, node.selectIndex));
  request.set_partition(spec.partition());
  request.set_time_limit_seconds(std::max<int64_t>(job.timeLimitSeconds, 0));
  describeJobOnNode(job, node.selectIndex, request);
  if (job.arrayJobId != 0) {
    request.set_array_job_id(job.arrayJobId);
    if (job.arrayTaskId) request.set_array_task_id(*job.arrayTaskId);
  }

  if (step.stepId == "extern") {
    // It runs nothing: it only holds the job's confinement on the node.
    request.set_work_dir("/");
    request.set_stdin_path("/dev/null");
    request.set_stdout_pattern("/dev/null");
    return request;
  }
  addStepGpus(node, info, grant, request);
  if (step.interactive != nullptr) {
    const v1::JobSpec& stepSpec = step.interactive->spec();
    request.set_work_dir(stepSpec.work_dir().empty() ? spec.work_dir() : stepSpec.work_dir());
    *request.mutable_argv() = step.interactive->argv();
    // srun -o/-e/-i: files on the node instead of srun's streams; Slurm's
    // "none" is /dev/null. Unset, the streams go to srun.
    auto fileOrNull = [](const std::string& name) { return name == "none" ? std::string("/dev/null") : name; };
    request.set_stdout_pattern(fileOrNull(stepSpec.stdout_pattern()));
    request.set_stderr_pattern(fileOrNull(stepSpec.stderr_pattern()));
    request.set_stdin_path(fileOrNull(stepSpec.stdin_path()));
    *request.mutable_environment() = stepSpec.environment();
    addArrayEnvironment(job, *request.mutable_environment());
    request.set_submit_host(stepSpec.submit_host());
    request.set_submit_dir(stepSpec.work_dir());
    request.set_io_addr(step.interactive->io().addr());
    request.set_io_port(step.interactive->io().port());
    request.set_io_token(step.interactive->io().token());
    request.set_io_pty(step.interactive->io().pty());
    // A step that names no binding follows its job's (sbatch/salloc); a
    // tres-bind's GPU item wins over --gpu-bind (common/gres/tres_bind.h).
    std::string gpuBind = gres::effectiveGpuBind(stepSpec.tres_bind(), stepSpec.gpu_bind());
    if (gpuBind.empty()) gpuBind = gres::effectiveGpuBind(spec.tres_bind(), spec.gpu_bind());
    if (gpuBind.empty()) {
      gpuBind = gres::impliedGpuBind(stepSpec.gpus_per_task() > 0 ? stepSpec.gpus_per_task() : spec.gpus_per_task());
    }
    request.set_gpu_bind(gpuBind);
    // Likewise --gpu-freq: the step's own wins over the job's.
    request.set_gpu_freq(stepSpec.gpu_freq().empty() ? spec.gpu_freq() : stepSpec.gpu_freq());
    request.set_cpus_per_task(stepSpec.cpus_per_task());
    return request;
  }
  request.set_work_dir(spec.work_dir());
  request.set_script(spec.script());
  // The script's own arguments ($1 $2 ...): argv of the batch step.
  *request.mutable_argv() = spec.script_args();
  request.set_stdout_pattern(spec.stdout_pattern());
  request.set_stderr_pattern(spec.stderr_pattern());
  request.set_open_append(spec.open_mode() == "append");
  request.set_stdin_path(spec.stdin_path().empty() ? "/dev/null" : spec.stdin_path());
  *request.mutable_environment() = spec.environment();
  addArrayEnvironment(job, *request.mutable_environment());
  request.set_submit_host(spec.submit_host());
  request.set_submit_dir(spec.work_dir());
  request.set_gpu_freq(spec.gpu_freq());  // the batch step runs on the job's GPUs
  request.set_cpus_per_task(spec.cpus_per_task());
  return request;
}

void describeSwitchForStep(const JobRecord& job, const std::string& cluster, v1::LaunchStepRequest& request) {
  if (!job.network || !interconnect::managesSteps(*job.network)) return;
  request.set_switch_managed(true);
  request.set_switch_stepinfo(*job.network->stepinfo);
  request.set_switch_sluid(runSluid(cluster, job.id, job.restartCount));
}

}  // namespace gantry::core
