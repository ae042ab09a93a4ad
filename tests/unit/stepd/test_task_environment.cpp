#include <catch2/catch.hpp>

#include "stepd/core/task_environment.h"

using namespace gantry::stepd;

namespace {

GpuAllocation gpu(int index, std::string vendor = "nvidia") {
  return {.index = index, .name = "gpu", .files = {"/dev/nvidia" + std::to_string(index)},
          .uuid = "GPU-" + std::to_string(index), .vendor = std::move(vendor)};
}

StepSpec stepWith(std::vector<GpuAllocation> gpus, std::string step_id = "0") {
  StepSpec spec;
  spec.job_id = 1234;
  spec.step_id = std::move(step_id);
  spec.uid = 1000;
  spec.user = "alice";
  spec.cluster = "gantry";
  spec.gpus = std::move(gpus);
  return spec;
}

}  // namespace

TEST_CASE("concurrent steps of gres_test.bash see their own GPUs", "[stepd][env]") {
  // sbatch --gres=gpu:4 with three srun --exclusive steps: 2, 1 and 1 GPUs.
  const auto step0 = stepWith({gpu(0), gpu(1)}, "0");
  const auto step1 = stepWith({gpu(2)}, "1");
  const auto step2 = stepWith({gpu(3)}, "2");
  SECTION("devices not constrained: node indexes") {
    CHECK(taskEnvironment(step0, {}).at("CUDA_VISIBLE_DEVICES") == "0,1");
    CHECK(taskEnvironment(step1, {}).at("CUDA_VISIBLE_DEVICES") == "2");
    CHECK(taskEnvironment(step2, {}).at("CUDA_VISIBLE_DEVICES") == "3");
  }
  SECTION("devices constrained: positions among the visible devices") {
    CHECK(taskEnvironment(step0, {.devices_constrained = true}).at("CUDA_VISIBLE_DEVICES") == "0,1");
    CHECK(taskEnvironment(step1, {.devices_constrained = true}).at("CUDA_VISIBLE_DEVICES") == "0");
    CHECK(taskEnvironment(step2, {.devices_constrained = true}).at("CUDA_VISIBLE_DEVICES") == "0");
  }
  CHECK(taskEnvironment(step1, {}).at("CUDA_DEVICE_ORDER") == "PCI_BUS_ID");
  CHECK(taskEnvironment(step1, {}).at("SLURM_STEP_GPUS") == "2");
  CHECK(taskEnvironment(stepWith({gpu(0), gpu(1)}, "batch"), {}).at("SLURM_JOB_GPUS") == "0,1");
}

TEST_CASE("Prolog sees node indexes while the constrained job sees 0", "[stepd][env]") {
  const auto spec = stepWith({gpu(1)});
  CHECK(prologEnvironment(spec).at("CUDA_VISIBLE_DEVICES") == "1");
  CHECK(prologEnvironment(spec).at("SLURM_JOB_UID") == "1000");
  CHECK(prologEnvironment(spec).count("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE") == 0);
  CHECK(taskEnvironment(spec, {.devices_constrained = true}).at("CUDA_VISIBLE_DEVICES") == "0");
}

TEST_CASE("MPS percentage is shares x 100 / configured count, rounded down", "[stepd][env][mps]") {
  auto mps = [](int64_t count) {
    auto g = gpu(2);
    g.name = "mps";
    g.shares = 200;
    g.share_count = count;
    return stepWith({g});
  };
  CHECK(taskEnvironment(mps(1300), {}).at("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE") == "15");
  CHECK(taskEnvironment(mps(1200), {}).at("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE") == "16");
  CHECK(taskEnvironment(mps(1100), {}).at("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE") == "18");
  CHECK(taskEnvironment(mps(1000), {}).at("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE") == "20");
  CHECK(taskEnvironment(mps(1000), {}).at("CUDA_VISIBLE_DEVICES") == "0");
  CHECK(prologEnvironment(mps(1000)).at("CUDA_VISIBLE_DEVICES") == "2");
  CHECK(prologEnvironment(mps(1000)).at("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE") == "20");
}

TEST_CASE("shards set the shard count and, when enforced, the memory per GPU", "[stepd][env][shard]") {
  auto shard = gpu(0);
  shard.name = "shard";
  shard.shares = 3;
  shard.share_count = 16;
  shard.pci_bus_id = "0000:01:00.0";
  shard.dmem_region = "nvidia/0000:01:00/vidmem";
  shard.dmem_slice_bytes = 1049429504ULL;
  auto spec = stepWith({shard});
  spec.cgroup = CgroupSpec{.root = "/sys/fs/cgroup", .constrain_devices = true, .constrain_device_memory = true};
  auto env = taskEnvironment(spec, {});
  CHECK(env.at("SLURM_SHARDS_ON_NODE") == "3");
  CHECK(env.at("SLURM_SHARD_MEM_PER_GPU") == "0000:01:00.0=3002M");
  CHECK(env.at("CUDA_VISIBLE_DEVICES") == "0");
  CHECK(env.count("SLURM_STEP_GPUS") == 0);

  spec.gpus[0].dmem_region = "off";
  CHECK(taskEnvironment(spec, {}).count("SLURM_SHARD_MEM_PER_GPU") == 0);
  spec.gpus[0].dmem_region = "nvidia/0000:01:00/vidmem";
  spec.cgroup->constrain_device_memory = false;
  CHECK(taskEnvironment(spec, {}).count("SLURM_SHARD_MEM_PER_GPU") == 0);
}

TEST_CASE("UUIDs replace indexes with env_uuid unless a device has none", "[stepd][env]") {
  auto spec = stepWith({gpu(0), gpu(3)});
  spec.gres_flags = {"env_uuid"};
  CHECK(taskEnvironment(spec, {}).at("CUDA_VISIBLE_DEVICES") == "GPU-0,GPU-3");
  spec.gpus[1].uuid.clear();
  CHECK(taskEnvironment(spec, {}).at("CUDA_VISIBLE_DEVICES") == "0,3");
}

TEST_CASE("the vendor or the flags choose the variables", "[stepd][env]") {
  auto amd = stepWith({gpu(1, "amd")});
  auto env = taskEnvironment(amd, {});
  CHECK(env.at("ROCR_VISIBLE_DEVICES") == "1");
  CHECK(env.at("GPU_DEVICE_ORDINAL") == "1");
  CHECK(env.count("CUDA_VISIBLE_DEVICES") == 0);
  CHECK(env.count("CUDA_DEVICE_ORDER") == 0);

  amd.gres_flags = {"nvidia_gpu_env"};
  env = taskEnvironment(amd, {});
  CHECK(env.at("CUDA_VISIBLE_DEVICES") == "1");
  CHECK(env.count("ROCR_VISIBLE_DEVICES") == 0);

  auto unknown = stepWith({gpu(0, "")});
  env = taskEnvironment(unknown, {});
  CHECK(env.count("CUDA_VISIBLE_DEVICES") == 1);
  CHECK(env.count("ROCR_VISIBLE_DEVICES") == 1);
}

TEST_CASE("the SLURM_* variables describe the task", "[stepd][env]") {
  auto spec = stepWith({});
  spec.env = {{"PATH", "/bin"}, {"SLURM_JOB_ID", "stale"}};
  spec.nodelist = "n[1-2]";
  spec.num_nodes = 2;
  spec.ntasks = 8;
  spec.first_task_id = 4;
  spec.node_id = 1;
  spec.cpus_on_node = 4;
  spec.node_name = "n2";
  auto env = taskEnvironment(spec, {.local_task_id = 2});
  CHECK(env.at("PATH") == "/bin");
  CHECK(env.at("SLURM_JOB_ID") == "1234");
  CHECK(env.at("SLURM_JOBID") == "1234");
  CHECK(env.at("SLURM_STEP_ID") == "0");
  CHECK(env.at("SLURM_PROCID") == "6");
  CHECK(env.at("SLURM_LOCALID") == "2");
  CHECK(env.at("SLURM_NODEID") == "1");
  CHECK(env.at("SLURM_NTASKS") == "8");
  CHECK(env.at("SLURM_NNODES") == "2");
  CHECK(env.at("SLURM_JOB_NODELIST") == "n[1-2]");
  CHECK(env.at("SLURM_CPUS_ON_NODE") == "4");
  CHECK(env.at("SLURMD_NODENAME") == "n2");
  CHECK(env.at("SLURM_JOB_UID") == "1000");
  CHECK(env.at("SLURM_JOB_USER") == "alice");
  CHECK(env.at("SLURM_JOB_SLUID").front() == 's');
  CHECK(env.count("CUDA_VISIBLE_DEVICES") == 0);
}
