// controller/core/launch_request.cpp: the one builder of LaunchStepRequest.
// The three kinds of step describe the node's share of the job alike.
#include <catch2/catch.hpp>

#include "controller/core/launch_request.h"

using namespace gantry;
using namespace gantry::core;

namespace {

struct Fixture {
  Fixture() {
    info.name = "g1";
    info.sockets = 1;
    info.coresPerSocket = 8;
    info.threadsPerCore = 2;
    for (int i = 0; i < 2; ++i) {
      select::DeviceInfo device;
      device.type = "a100";
      device.files = {"/dev/nvidia" + std::to_string(i)};
      info.devices.push_back(device);
    }
    node.conf.name = "g1";
    node.selectIndex = 0;
    grant.node = 0;
    grant.cores = {2, 3, 4};
    grant.memoryMb = 6000;
    grant.devices = {1};
    grant.tasks = 3;
    job.id = 77;
    job.uid = 1000;
    job.user = "alice";
    job.spec.set_script("#!/bin/sh\ntrue\n");
    job.spec.set_partition("gpus");
    job.spec.set_work_dir("/home/alice");
    job.allocation.nodes = {grant};
    job.nodeNames = {"g1"};
    job.timeLimitSeconds = 600;
    interactive.add_argv("nvidia-smi");
    interactive.mutable_io()->set_addr("login1");
    interactive.mutable_io()->set_port(4100);
  }

  v1::LaunchStepRequest build(const std::string& stepId, const v1::CreateStepRequest* srun = nullptr) {
    StepPlacement placement{.stepId = stepId, .grant = &grant, .nodeList = "g1", .interactive = srun};
    return buildLaunchRequest(job, node, info, placement);
  }

  select::NodeInfo info;
  NodeRecord node;
  select::NodeGrant grant;
  JobRecord job;
  v1::CreateStepRequest interactive;
};

}  // namespace

TEST_CASE("batch, extern and interactive steps give the node's CPUs, cores and memory alike") {
  Fixture f;
  auto batch = f.build("batch");
  auto contain = f.build("extern");
  auto srun = f.build("3", &f.interactive);
  for (const auto* request : {&batch, &contain, &srun}) {
    CAPTURE(request->step_id());
    CHECK(request->cpus_on_node() == 6);  // three cores, two threads each
    CHECK(std::vector<int>(request->cores().begin(), request->cores().end()) == std::vector<int>{2, 3, 4});
    CHECK(request->memory_mb() == 6000);
    CHECK(std::vector<int>(request->job_gpu_indexes().begin(), request->job_gpu_indexes().end()) ==
          std::vector<int>{1});
    CHECK(request->time_limit_seconds() == 600);
    CHECK(request->partition() == "gpus");
  }
}

TEST_CASE("each kind of step carries what it runs and only that") {
  Fixture f;
  auto batch = f.build("batch");
  CHECK(batch.script() == f.job.spec.script());
  REQUIRE(batch.gpus_size() == 1);
  CHECK(batch.gpus(0).index() == 1);
  CHECK(batch.stdin_path() == "/dev/null");

  auto contain = f.build("extern");
  CHECK(contain.script().empty());
  CHECK(contain.gpus_size() == 0);
  CHECK(contain.stdout_pattern() == "/dev/null");

  auto srun = f.build("3", &f.interactive);
  CHECK(srun.script().empty());
  CHECK(srun.argv_size() == 1);
  CHECK(srun.io_addr() == "login1");
  CHECK(srun.io_port() == 4100);
  CHECK(srun.work_dir() == "/home/alice");
  REQUIRE(srun.gpus_size() == 1);
}

TEST_CASE("an interactive step names files only where srun was given them; none is /dev/null") {
  Fixture f;
  f.job.spec.set_stdout_pattern("job-%j.out");  // the job's own file is not the step's
  auto toSrun = f.build("3", &f.interactive);
  CHECK(toSrun.stdout_pattern().empty());
  CHECK(toSrun.stderr_pattern().empty());
  CHECK(toSrun.stdin_path().empty());
  f.interactive.mutable_spec()->set_stdout_pattern("step-%t.out");
  f.interactive.mutable_spec()->set_stderr_pattern("none");
  f.interactive.mutable_spec()->set_stdin_path("input.txt");
  auto toFiles = f.build("3", &f.interactive);
  CHECK(toFiles.stdout_pattern() == "step-%t.out");
  CHECK(toFiles.stderr_pattern() == "/dev/null");
  CHECK(toFiles.stdin_path() == "input.txt");
}

TEST_CASE("an interactive step carries its --gpu-bind, else its job's") {
  Fixture f;
  CHECK(f.build("0", &f.interactive).gpu_bind().empty());
  f.job.spec.set_gpu_bind("closest");
  CHECK(f.build("0", &f.interactive).gpu_bind() == "closest");
  f.interactive.mutable_spec()->set_gpu_bind("map_gpu:1,0");
  CHECK(f.build("0", &f.interactive).gpu_bind() == "map_gpu:1,0");
  CHECK(f.build("batch").gpu_bind().empty());  // the batch script is not bound
}

TEST_CASE("tasks asking GPUs each are bound per task unless a binding is named") {
  Fixture f;
  f.job.spec.set_gpus_per_task(2);
  CHECK(f.build("0", &f.interactive).gpu_bind() == "per_task:2");
  f.interactive.mutable_spec()->set_gpus_per_task(3);
  CHECK(f.build("0", &f.interactive).gpu_bind() == "per_task:3");
  f.job.spec.set_gpu_bind("none");
  CHECK(f.build("0", &f.interactive).gpu_bind() == "none");
  CHECK(f.build("batch").gpu_bind().empty());
}

TEST_CASE("a step carries its --gpu-freq, else its job's; the batch step the job's") {
  Fixture f;
  CHECK(f.build("0", &f.interactive).gpu_freq().empty());
  CHECK(f.build("batch").gpu_freq().empty());
  f.job.spec.set_gpu_freq("medium,memory=low");
  CHECK(f.build("0", &f.interactive).gpu_freq() == "medium,memory=low");
  CHECK(f.build("batch").gpu_freq() == "medium,memory=low");
  f.interactive.mutable_spec()->set_gpu_freq("1215");
  CHECK(f.build("0", &f.interactive).gpu_freq() == "1215");
  CHECK(f.build("extern").gpu_freq().empty());  // the extern step runs nothing
}
