// Sizes and counts whose products overflow, or that no node could ever
// give, are refused at submit through the real core, with Slurm's wording
// and the kind that says why: Invalid for a product that cannot even be
// computed, Never for a well-formed request larger than every node.
#include "tests/unit/controller/core/core_harness.h"

#include <cstdint>
#include <functional>

using namespace gantry;

namespace {

constexpr uint64_t kTwo62 = uint64_t{1} << 62;
constexpr uint64_t kTwo63 = uint64_t{1} << 63;
constexpr int kTwo30 = 1 << 30;

// Two four-core 4,000 MB nodes with two GPUs each, judged from Gres= (no
// agent needs to register for submit-time checks).
config::GantryConf gpuConf() {
  return testing::parseConf(
      "ClusterName=unit\nGresTypes=gpu\n"
      "NodeName=n[1-2] CPUs=4 CoresPerSocket=4 RealMemory=4000 Gres=gpu:2\n"
      "PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=60\n");
}

v1::JobSpec batchJob() {
  v1::JobSpec spec;
  spec.set_name("limits");
  spec.set_script("#!/bin/sh\ntrue\n");
  return spec;
}

struct Row {
  const char* name;
  std::function<void(v1::JobSpec&)> set;
  ErrorCode kind;
  const char* startsWith;
};

Result<v1::SubmitJobResponse> submit(testing::CoreHarness& h, const v1::JobSpec& spec) {
  v1::SubmitJobRequest request;
  *request.mutable_spec() = spec;
  return h.await<v1::SubmitJobResponse>([&](auto reply) {
    h.core->submitJob(request, auth::Identity{.uid = 1000, .gid = 1000, .user = "u1000"}, reply);
  });
}

size_t jobCount(testing::CoreHarness& h) {
  v1::ListJobsRequest request;
  request.set_include_finished(true);
  auto answer = h.await<v1::ListJobsResponse>([&](auto reply) { h.core->listJobs(request, reply); });
  REQUIRE(answer.ok());
  return static_cast<size_t>(answer->jobs_size());
}

}  // namespace

TEST_CASE("every size and count product is checked at submit") {
  const Row rows[] = {
      {"a time limit in minutes whose seconds overflow", [](auto& s) { s.set_time_limit_minutes(-(int64_t{1} << 61)); },
       ErrorCode::Invalid, "Requested time limit is invalid"},
      {"a time limit of more than a century", [](auto& s) { s.set_time_limit_minutes(int64_t{1} << 40); },
       ErrorCode::Invalid, "Requested time limit is invalid"},
      {"--mem-per-cpu=2^63 x 2 cpus", [](auto& s) { s.set_mem_per_cpu_mb(kTwo63); s.set_cpus_per_task(2); },
       ErrorCode::Invalid, "Memory specification can not be satisfied"},
      {"--mem-per-cpu=2^62 x 4 cpus", [](auto& s) { s.set_mem_per_cpu_mb(kTwo62); s.set_cpus_per_task(4); },
       ErrorCode::Invalid, "Memory specification can not be satisfied"},
      {"--mem-per-gpu=2^63 x 2 GPUs", [](auto& s) { s.set_mem_per_gpu_mb(kTwo63); s.set_gpus_per_node(2); },
       ErrorCode::Invalid, "Memory specification can not be satisfied"},
      {"--mem-per-gpu=2^63 x --gres=gpu:2",
       [](auto& s) {
         s.set_mem_per_gpu_mb(kTwo63);
         auto* gres = s.add_gres();
         gres->set_name("gpu");
         gres->set_count(2);
       },
       ErrorCode::Invalid, "Memory specification can not be satisfied"},
      {"--mem-per-cpu=2^63 x 1 cpu (fits the type, not a node)", [](auto& s) { s.set_mem_per_cpu_mb(kTwo63); },
       ErrorCode::Never, "Memory specification can not be satisfied"},
      {"--mem=2^63", [](auto& s) { s.set_mem_per_node_mb(kTwo63); },
       ErrorCode::Never, "Memory specification can not be satisfied"},
      {"--mem=5000 on 4000 MB nodes", [](auto& s) { s.set_mem_per_node_mb(5000); },
       ErrorCode::Never, "Memory specification can not be satisfied"},
      {"--mem-per-cpu=1500 x 4 cpus on 4000 MB nodes",
       [](auto& s) { s.set_mem_per_cpu_mb(1500); s.set_cpus_per_task(4); },
       ErrorCode::Never, "Memory specification can not be satisfied"},
      {"-n 2^31-1 x -c 4", [](auto& s) { s.set_ntasks(INT32_MAX); s.set_cpus_per_task(4); },
       ErrorCode::Invalid, "Requested node configuration is not available"},
      {"--ntasks-per-node 2^30 x -c 4", [](auto& s) { s.set_ntasks_per_node(kTwo30); s.set_cpus_per_task(4); },
       ErrorCode::Invalid, "Requested node configuration is not available"},
      {"-N 2^30 x --ntasks-per-node 4", [](auto& s) { s.set_min_nodes(kTwo30); s.set_ntasks_per_node(4); },
       ErrorCode::Invalid, "Requested node configuration is not available"},
      {"--gpus-per-task 2^30 x -n 4", [](auto& s) { s.set_gpus_per_task(kTwo30); s.set_ntasks(4); },
       ErrorCode::Invalid, "Requested node configuration is not available"},
      {"--gpus-per-node 2^30 x -N 4", [](auto& s) { s.set_gpus_per_node(kTwo30); s.set_min_nodes(4); },
       ErrorCode::Invalid, "Requested node configuration is not available"},
      {"--gpus-per-socket 2^30 x --sockets-per-node 4",
       [](auto& s) { s.set_gpus_per_socket(kTwo30); s.set_sockets_per_node(4); },
       ErrorCode::Invalid, "Requested node configuration is not available"},
      {"--cpus-per-gpu 2^30 x --gpus-per-node 4", [](auto& s) { s.set_cpus_per_gpu(kTwo30); s.set_gpus_per_node(4); },
       ErrorCode::Invalid, "Requested node configuration is not available"},
      // 2^64/60 + 1 minutes wrap to 44 seconds; 2^62 minutes to 0 (the default).
      {"--time minutes whose seconds wrap to 44", [](auto& s) { s.set_time_limit_minutes(307445734561825861); },
       ErrorCode::Invalid, "Requested time limit is invalid"},
      {"--time=2^62 minutes", [](auto& s) { s.set_time_limit_minutes(int64_t{1} << 62); },
       ErrorCode::Invalid, "Requested time limit is invalid"},
      {"--time=2^62 seconds", [](auto& s) { s.set_time_limit_seconds(int64_t{1} << 62); },
       ErrorCode::Invalid, "Requested time limit is invalid"},
      {"-n -3", [](auto& s) { s.set_ntasks(-3); }, ErrorCode::Invalid, "invalid --ntasks (spec.ntasks): must be 0 or more, got -3"},
      {"--sockets-per-node -1", [](auto& s) { s.set_sockets_per_node(-1); }, ErrorCode::Invalid, "invalid --sockets-per-node"},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.name) {
      testing::CoreHarness h(gpuConf());
      v1::JobSpec spec = batchJob();
      row.set(spec);
      auto answer = submit(h, spec);
      REQUIRE_FALSE(answer.ok());
      CHECK(answer.errorCode() == row.kind);
      CHECK_THAT(answer.error(), Catch::StartsWith(row.startsWith));
      CHECK(jobCount(h) == 0);  // refused: nothing stored, nothing listed
    }
  }
}

TEST_CASE("memory products that fit a node are accepted and granted in full") {
  // No Gres= here: a registration without GPUs would drain a GPU node.
  testing::CoreHarness h(testing::parseConf("ClusterName=unit\n"
                                            "NodeName=n1 CPUs=4 CoresPerSocket=4 RealMemory=4000\n"
                                            "PartitionName=debug Nodes=n1 Default=YES MaxTime=60\n"));
  v1::RegisterRequest node;
  node.set_node_name("n1");
  node.mutable_hardware()->set_cpus(4);
  node.mutable_hardware()->set_cores_per_socket(4);
  node.mutable_hardware()->set_real_memory_mb(4000);
  REQUIRE(h.await<v1::RegisterResponse>([&](auto reply) { h.core->registerNode(node, reply); }).ok());
  v1::JobSpec spec = batchJob();
  spec.set_mem_per_cpu_mb(1000);
  spec.set_cpus_per_task(2);
  auto answer = submit(h, spec);
  REQUIRE(answer.ok());
  h.settle();
  v1::Job job = h.job(answer->job_id());
  REQUIRE(job.state() == v1::RUNNING);
  REQUIRE(job.allocation_size() == 1);
  CHECK(job.allocation(0).memory_mb() == 2000);
}
