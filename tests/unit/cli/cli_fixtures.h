// Hand-made controller answers for the CLI's format and render tests.
#pragma once

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

#include "gantry/v1/types.pb.h"

namespace cli_fixtures {

// 2026-11-30T10:00:00Z
constexpr int64_t kNow = 1796032800;

// Timestamps print in local time; the tests pin it to UTC.
inline void useUtc() {
  setenv("TZ", "UTC", 1);
  tzset();
}

inline gantry::v1::Job runningGpuJob() {
  gantry::v1::Job job;
  job.set_job_id(12);
  job.set_user("alice");
  job.set_uid(1000);
  job.set_gid(1000);
  job.set_state(gantry::v1::RUNNING);
  job.set_submit_time(kNow - 600);
  job.set_start_time(kNow - 125);
  job.set_node_list("gpu[1-2]");
  job.set_batch_host("gpu1");
  job.set_time_limit_minutes(90);
  auto* spec = job.mutable_spec();
  spec->set_name("train");
  spec->set_partition("gpu");
  spec->set_work_dir("/home/alice");
  job.set_batch_flag(true);  // listings carry the flag, never the script
  spec->set_min_nodes(2);
  spec->set_ntasks(4);
  spec->set_cpus_per_task(2);
  spec->set_mem_per_node_mb(8192);
  spec->set_gpus_per_node(2);
  spec->set_gpu_type("a100");
  spec->add_gres_flags("enforce-links");
  for (const char* name : {"gpu1", "gpu2"}) {
    auto* node = job.add_allocation();
    node->set_node(name);
    for (int core : {0, 1, 2, 3}) node->add_cores(core);
    node->set_memory_mb(8192);
    node->set_gres("gpu:a100:2(IDX:0-1)");
  }
  return job;
}

inline gantry::v1::JobStep step(uint32_t id, const std::string& name, const std::string& nodeList,
                                int ntasks, int64_t start) {
  gantry::v1::JobStep s;
  s.set_step_id(id);
  s.set_name(name);
  s.set_node_list(nodeList);
  s.set_ntasks(ntasks);
  s.set_start_time(start);
  s.set_running(true);
  return s;
}

// runningGpuJob() as the controller answers with include_steps: two
// running steps (12.0 over both nodes, 12.2 on gpu2) and two that ended
// (12.1 completed, 12.3 failed).
inline gantry::v1::Job runningGpuJobWithSteps() {
  gantry::v1::Job job = runningGpuJob();
  auto* train = job.add_steps();
  *train = step(0, "train.py", "gpu[1-2]", 4, kNow - 100);
  for (const char* name : {"gpu1", "gpu2"}) {
    auto* node = train->add_allocation();
    node->set_node(name);
    for (int core : {0, 1}) node->add_cores(core);
    node->set_memory_mb(8192);
    node->set_gres("gpu:a100:2(IDX:0-1)");
  }
  auto* hostname = job.add_steps();
  *hostname = step(1, "hostname", "gpu1", 1, kNow - 120);
  hostname->set_end_time(kNow - 119);
  hostname->set_running(false);
  auto* smi = job.add_steps();
  *smi = step(2, "nvidia-smi", "gpu2", 1, kNow - 75);
  auto* failed = job.add_steps();
  *failed = step(3, "false", "gpu1", 1, kNow - 90);
  failed->set_end_time(kNow - 89);
  failed->set_exit_code(1);
  failed->set_running(false);
  return job;
}

inline gantry::v1::Job pendingJob() {
  gantry::v1::Job job;
  job.set_job_id(13);
  job.set_user("bob");
  job.set_uid(1001);
  job.set_gid(100);
  job.set_state(gantry::v1::PENDING);
  job.set_reason("Resources");
  job.set_submit_time(kNow - 60);
  job.set_time_limit_minutes(-1);
  auto* spec = job.mutable_spec();
  spec->set_name("a-very-long-job-name");
  spec->set_partition("cpu");
  spec->set_work_dir("/home/bob");
  spec->set_stdout_pattern("logs/%x-%j.out");
  spec->set_ntasks(16);
  spec->set_mem_per_cpu_mb(1024);
  auto* gres = spec->add_gres();
  gres->set_name("gpu");
  gres->set_count(1);
  return job;
}

// `state` is the controller's display text; base and flags are what the
// CLI decides on, so a fixture sets both, as the controller does.
inline gantry::v1::Node node(const std::string& name, const std::string& state,
                             gantry::v1::NodeBaseState base, uint32_t flags, int allocCpus) {
  gantry::v1::Node n;
  n.set_name(name);
  n.set_addr(name);
  n.set_state(state);
  n.set_base_state(base);
  n.set_state_flags(flags);
  n.set_cpus(8);
  n.set_boards(1);
  n.set_sockets(2);
  n.set_cores_per_socket(4);
  n.set_threads_per_core(1);
  n.set_real_memory_mb(64000);
  n.set_alloc_cpus(allocCpus);
  n.set_weight(1);
  n.set_cfg_tres("cpu=8,mem=64000M,billing=8");
  n.set_agent_start_time(kNow - 86400);
  n.set_last_busy_time(kNow - 7200);
  return n;
}

inline std::vector<gantry::v1::Node> clusterNodes() {
  std::vector<gantry::v1::Node> nodes;
  for (const char* name : {"cpu1", "cpu2", "cpu3"}) {
    nodes.push_back(node(name, "IDLE", gantry::v1::NODE_IDLE, 0, 0));
  }
  nodes[2].set_state("IDLE+DRAIN");
  nodes[2].set_state_flags(gantry::v1::NODE_FLAG_DRAIN);
  nodes[2].set_reason("bad dimm");
  nodes[2].set_reason_user("root");
  nodes[2].set_reason_time(kNow - 3600);
  for (const char* name : {"gpu1", "gpu2"}) {
    auto n = node(name, "MIXED", gantry::v1::NODE_MIXED, 0, 4);
    n.set_gres("gpu:a100:4");
    n.set_gres_used("gpu:a100:2(IDX:0-1)");
    n.set_cfg_tres("cpu=8,mem=64000M,billing=8,gres/gpu=4,gres/gpu:a100=4");
    n.set_alloc_tres("cpu=4,mem=8G,gres/gpu=2,gres/gpu:a100=2");
    n.set_last_busy_time(kNow);
    n.add_partitions("gpu");
    n.add_features("a100");
    nodes.push_back(n);
  }
  nodes[0].add_partitions("cpu");
  nodes[1].add_partitions("cpu");
  nodes[2].add_partitions("cpu");
  return nodes;
}

inline std::vector<gantry::v1::Partition> clusterPartitions() {
  gantry::v1::Partition cpu;
  cpu.set_name("cpu");
  cpu.set_nodes("cpu[1-3]");
  cpu.set_is_default(true);
  cpu.set_max_nodes(-1);
  cpu.set_max_time_minutes(-1);
  cpu.set_state("UP");
  cpu.set_total_cpus(24);
  cpu.set_total_nodes(3);
  cpu.set_tres("cpu=24,mem=192000M,node=3,billing=24");
  cpu.set_priority_tier(1);
  gantry::v1::Partition gpu;
  gpu.set_name("gpu");
  gpu.set_nodes("gpu[1-2]");
  gpu.set_max_nodes(2);
  gpu.set_max_time_minutes(1440);
  gpu.set_default_time_minutes(60);
  gpu.set_state("UP");
  gpu.set_total_cpus(16);
  gpu.set_total_nodes(2);
  gpu.set_tres("cpu=16,mem=128000M,node=2,billing=16,gres/gpu=8,gres/gpu:a100=8");
  gpu.set_over_subscribe("FORCE:4");
  gpu.set_priority_tier(2);
  gpu.set_preempt_mode("GANG,SUSPEND");
  gantry::v1::Partition empty;
  empty.set_name("future");
  empty.set_max_time_minutes(30);
  empty.set_state("INACTIVE");
  return {cpu, gpu, empty};
}

// Compares with tests/golden/cli/<name>; GANTRY_UPDATE_GOLDEN=1 rewrites it.
inline std::string golden(const std::string& name, const std::string& actual) {
  std::string path = "tests/golden/cli/" + name;
  if (const char* update = std::getenv("GANTRY_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(path) << actual;
  }
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace cli_fixtures
