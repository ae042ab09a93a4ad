// Interactive steps in ControllerCore (step_manager.cpp): placement inside
// the job, step ids, --exclusive waiting, the suspended-job refusal srun
// retries on, step ends reported per node, and allocations without a script.
#include "tests/unit/controller/core/core_harness.h"

#include <set>

using namespace gantry;

namespace {

const auth::Identity kOwner{.uid = 1000, .gid = 1000, .user = "alice"};
const auth::Identity kOther{.uid = 1001, .gid = 1001, .user = "bob"};
const auth::Identity kRoot{.uid = 0, .gid = 0, .user = "root"};

// Both nodes registered; jobs belong to kOwner.
struct Harness : testing::CoreHarness {
  explicit Harness(const std::string& extraConf = "") : CoreHarness(testing::twoNodeConf(extraConf)) {
    registerNodes();
  }

  uint64_t runningJob(v1::JobSpec spec) {
    auto id = submit(std::move(spec), kOwner);
    REQUIRE(id.ok());
    settle();
    REQUIRE(job(*id).state() == v1::RUNNING);
    return *id;
  }

  Result<v1::CreateStepResponse> step(uint64_t jobId, int ntasks, bool exclusive,
                                      const auth::Identity& caller = kOwner, bool overlap = false) {
    v1::CreateStepRequest request;
    request.set_job_id(jobId);
    request.set_overlap(overlap);
    request.mutable_spec()->set_ntasks(ntasks);
    request.mutable_spec()->set_exclusive(exclusive);
    request.add_argv("show_device.sh");
    request.mutable_io()->set_addr("login1");
    request.mutable_io()->set_port(4567);
    request.mutable_io()->set_token("secret");
    return await<v1::CreateStepResponse>([&](auto reply) { core->createStep(request, caller, reply); });
  }

  v1::GetStepResponse stepState(uint64_t jobId, const std::string& stepId) {
    v1::GetStepRequest request;
    request.set_job_id(jobId);
    request.set_step_id(stepId);
    auto answer = await<v1::GetStepResponse>([&](auto reply) { core->getStep(request, reply); });
    REQUIRE(answer.ok());
    return *answer;
  }

  Result<Ok> jobAction(core::ControllerCore::JobAction action, uint64_t jobId) {
    return await<Ok>([&](auto reply) { core->jobAction(action, jobId, "", kRoot, reply); });
  }

  Result<v1::CompleteAllocationResponse> release(uint64_t jobId, int exitCode, const auth::Identity& caller) {
    v1::CompleteAllocationRequest request;
    request.set_job_id(jobId);
    request.set_exit_code(exitCode);
    return await<v1::CompleteAllocationResponse>(
        [&](auto reply) { core->completeAllocation(request, caller, reply); });
  }

};

v1::JobSpec allocationSpec(int ntasks, int nodes = 1) {
  v1::JobSpec spec;
  spec.set_name("interactive");
  spec.set_ntasks(ntasks);
  spec.set_min_nodes(nodes);
  spec.set_max_nodes(nodes);
  return spec;
}

std::set<int> coresOf(const v1::LaunchStepRequest& launch) {
  return {launch.cores().begin(), launch.cores().end()};
}

}  // namespace

TEST_CASE("an allocation without a script starts no batch step and ends when released", "[core][steps]") {
  Harness h;
  uint64_t id = h.runningJob(allocationSpec(2));
  CHECK(h.agents.launchesOf("batch").empty());
  CHECK_FALSE(h.release(id, 0, kOther).ok());
  REQUIRE(h.release(id, 3, kOwner).ok());
  v1::Job job = h.job(id);
  CHECK(job.state() == v1::FAILED);
  CHECK(job.exit_code() == 3);
  CHECK(h.release(id, 3, kOwner).ok());  // repeated: harmless
}

TEST_CASE("a batch job is not ended through CompleteAllocation", "[core][steps]") {
  Harness h;
  v1::JobSpec spec = allocationSpec(1);
  spec.set_script("#!/bin/sh\nsleep 100\n");
  uint64_t id = h.runningJob(spec);
  auto refused = h.release(id, 0, kOwner);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().find("batch job") != std::string::npos);
}

TEST_CASE("steps are numbered from 0 and launched with their tasks and srun's endpoint", "[core][steps]") {
  Harness h;
  uint64_t id = h.runningJob(allocationSpec(4, 2));
  auto first = h.step(id, 4, false);
  REQUIRE(first.ok());
  CHECK(first->step_id() == "0");
  CHECK(first->ntasks() == 4);
  CHECK(first->num_nodes() == 2);
  CHECK(first->node_list() == "n[1-2]");
  auto launches = h.agents.launchesOf("0");
  REQUIRE(launches.size() == 2);
  int tasks = 0;
  std::set<int> firstIds;
  for (const auto& launch : launches) {
    CHECK(launch.argv(0) == "show_device.sh");
    CHECK(launch.io_addr() == "login1");
    CHECK(launch.io_port() == 4567);
    CHECK(launch.io_token() == "secret");
    CHECK(launch.ntasks() == 4);
    CHECK(launch.num_nodes() == 2);
    firstIds.insert(launch.first_task_id());
    tasks += launch.tasks_on_node();
  }
  CHECK(tasks == 4);
  CHECK(firstIds.count(0) == 1);
  auto second = h.step(id, 1, false);
  REQUIRE(second.ok());
  CHECK(second->step_id() == "1");
}

TEST_CASE("concurrent --exclusive steps get disjoint cores and a further one waits", "[core][steps]") {
  // The gres_test.bash pattern on cores: a 4-task job runs steps of 2, 1 and
  // 1 tasks side by side; a fourth has to wait until one of them ends.
  Harness h;
  uint64_t id = h.runningJob(allocationSpec(4));
  REQUIRE(h.step(id, 2, true).ok());
  REQUIRE(h.step(id, 1, true).ok());
  REQUIRE(h.step(id, 1, true).ok());
  std::set<int> seen;
  size_t total = 0;
  for (const char* stepId : {"0", "1", "2"}) {
    auto launches = h.agents.launchesOf(stepId);
    REQUIRE(launches.size() == 1);
    auto cores = coresOf(launches[0]);
    total += cores.size();
    seen.insert(cores.begin(), cores.end());
  }
  CHECK(total == 4);
  CHECK(seen.size() == 4);
  auto busy = h.step(id, 1, true);
  REQUIRE_FALSE(busy.ok());
  CHECK(busy.error() == "Requested nodes are busy");

  std::string node = h.agents.launchesOf("1")[0].node_list();
  h.stepEnded(id, "1", node, 0);
  auto later = h.step(id, 1, true);
  REQUIRE(later.ok());
  CHECK(later->step_id() == "3");
}

TEST_CASE("an --overlap step shares what the other steps hold and holds nothing against them", "[core][steps]") {
  Harness h;
  uint64_t id = h.runningJob(allocationSpec(3));
  REQUIRE(h.step(id, 3, true).ok());                                // step 0 takes every core
  REQUIRE_FALSE(h.step(id, 1, true).ok());                          // an ordinary step waits
  auto overlapping = h.step(id, 2, true, kOwner, /*overlap=*/true);  // step 1 does not
  REQUIRE(overlapping.ok());
  CHECK(overlapping->step_id() == "1");
  v1::ListJobsRequest listing;
  listing.add_job_ids(id);
  listing.set_include_steps(true);
  auto jobs = h.await<v1::ListJobsResponse>([&](auto reply) { h.core->listJobs(listing, reply); });
  REQUIRE(jobs.ok());
  REQUIRE(jobs->jobs_size() == 1);
  bool shown = false;
  for (const auto& step : jobs->jobs(0).steps()) {
    if (step.step_id() == 1) shown = step.overlap();
  }
  CHECK(shown);

  std::string node = h.agents.launchesOf("0")[0].node_list();
  h.stepEnded(id, "0", node, 0);
  // Step 1 still runs, yet an ordinary step gets every core again.
  auto whole = h.step(id, 3, true);
  REQUIRE(whole.ok());
  CHECK(coresOf(h.agents.launchesOf(whole->step_id())[0]).size() == 3);
}

TEST_CASE("scancel of one step signals only that step's nodes and leaves the job running", "[core][steps]") {
  Harness h;
  uint64_t id = h.runningJob(allocationSpec(2));
  REQUIRE(h.step(id, 1, true).ok());  // step 0
  REQUIRE(h.step(id, 1, true).ok());  // step 1
  auto cancel = [&](uint32_t step, int signal, const auth::Identity& caller) {
    v1::CancelJobRequest request;
    auto* ref = request.add_steps();
    ref->set_job_id(id);
    ref->set_step_id(step);
    request.set_signal(signal);
    auto answer = h.await<v1::CancelJobResponse>([&](auto reply) { h.core->cancelJob(request, caller, reply); });
    REQUIRE(answer.ok());
    return *answer;
  };
  CHECK(cancel(1, 0, kOwner).errors().empty());
  REQUIRE(h.agents.signals.size() == 1);
  CHECK(h.agents.signals[0].job == id);
  CHECK(h.agents.signals[0].step == "1");
  CHECK(h.agents.signals[0].signal == SIGKILL);  // cancelling a step kills its tasks
  CHECK(h.agents.signals[0].node == h.agents.launchesOf("1")[0].node_list());
  CHECK(h.job(id).state() == v1::RUNNING);
  CHECK(cancel(0, SIGUSR1, kOwner).errors().empty());
  CHECK(h.agents.signals.back().signal == SIGUSR1);

  auto other = cancel(0, 0, kOther);
  REQUIRE(other.errors_size() == 1);
  CHECK(other.errors(0) == "Kill job error on job step id " + std::to_string(id) + ".0: Access/permission denied");
  auto missing = cancel(9, 0, kOwner);
  REQUIRE(missing.errors_size() == 1);
  CHECK(missing.errors(0) == "Kill job error on job step id " + std::to_string(id) + ".9: Invalid job id specified");
  h.stepEnded(id, "0", h.agents.launchesOf("0")[0].node_list(), 0);
  auto ended = cancel(0, 0, kOwner);
  REQUIRE(ended.errors_size() == 1);
  CHECK_THAT(ended.errors(0), Catch::Contains("Job/step already completing or completed"));
  CHECK(h.agents.signals.size() == 2);  // refusals send nothing
}

TEST_CASE("a suspended job refuses new steps with the message srun retries on", "[core][steps]") {
  Harness h;
  uint64_t id = h.runningJob(allocationSpec(1));
  REQUIRE(h.jobAction(core::ControllerCore::JobAction::Suspend, id).ok());
  auto refused = h.step(id, 1, false);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error() == "Job step creation temporarily disabled, retrying");
  REQUIRE(h.jobAction(core::ControllerCore::JobAction::Resume, id).ok());
  CHECK(h.step(id, 1, false).ok());
}

TEST_CASE("only the job's owner or an administrator creates steps in it", "[core][steps]") {
  Harness h;
  uint64_t id = h.runningJob(allocationSpec(1));
  auto refused = h.step(id, 1, false, kOther);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error() == "Access/permission denied");
  CHECK(h.step(id, 1, false, kRoot).ok());
}

TEST_CASE("a step ends when every node reported, with the highest exit code", "[core][steps]") {
  Harness h;
  uint64_t id = h.runningJob(allocationSpec(2, 2));
  REQUIRE(h.step(id, 2, false).ok());
  CHECK(h.stepState(id, "0").running());
  h.stepEnded(id, "0", "n1", 3);
  h.stepEnded(id, "0", "n1", 3);  // a repeated report counts once
  CHECK(h.stepState(id, "0").running());
  h.stepEnded(id, "0", "n2", 1);
  auto ended = h.stepState(id, "0");
  CHECK_FALSE(ended.running());
  CHECK(ended.exit_code() == 3);
  CHECK(h.job(id).state() == v1::RUNNING);  // steps do not end their job

  REQUIRE(h.release(id, 0, kOwner).ok());
  auto forgotten = h.stepState(id, "0");
  CHECK_FALSE(forgotten.running());
  CHECK(forgotten.job_state() == v1::COMPLETED);
}

TEST_CASE("PrologFlags=Contain starts an extern step on every node of the job", "[core][steps]") {
  Harness contained("PrologFlags=Alloc,Contain\n");
  contained.runningJob(allocationSpec(2, 2));
  auto externs = contained.agents.launchesOf("extern");
  REQUIRE(externs.size() == 2);
  CHECK(externs[0].argv_size() == 0);
  CHECK(externs[0].node_id() != externs[1].node_id());

  Harness plain;
  plain.runningJob(allocationSpec(2, 2));
  CHECK(plain.agents.launchesOf("extern").empty());
}

namespace {

// One six-core node with three GPUs, registered with its devices.
struct GpuHarness : testing::CoreHarness {
  GpuHarness()
      : CoreHarness(testing::parseConf("ClusterName=unit\nGresTypes=gpu\n"
                                       "NodeName=g1 CPUs=6 CoresPerSocket=6 RealMemory=1000 Gres=gpu:3\n"
                                       "PartitionName=debug Nodes=g1 Default=YES MaxTime=60\n")) {
    v1::RegisterRequest request;
    request.set_node_name("g1");
    for (int i = 0; i < 3; ++i) {
      v1::GresDevice* gpu = request.mutable_hardware()->add_gres();
      gpu->set_name("gpu");
      gpu->set_index(i);
      gpu->add_files("/dev/nvidia" + std::to_string(i));
      gpu->set_count(1);
    }
    REQUIRE(await<v1::RegisterResponse>([&](auto reply) { core->registerNode(request, reply); }).ok());
  }

  uint64_t runningJob(bool exclusive, int gpus) {
    v1::JobSpec spec = allocationSpec(1);
    spec.set_exclusive(exclusive);
    if (gpus > 0) spec.set_gpus_per_node(gpus);
    auto id = submit(spec, kOwner);
    REQUIRE(id.ok());
    settle();
    REQUIRE(job(*id).state() == v1::RUNNING);
    return *id;
  }

  // The GPUs the step's launch hands to the node; gpus == 0: no GRES option.
  int stepGpus(uint64_t jobId, int gpus) {
    v1::CreateStepRequest request;
    request.set_job_id(jobId);
    request.mutable_spec()->set_ntasks(1);
    if (gpus > 0) {
      v1::GresRequest* gres = request.mutable_spec()->add_gres();
      gres->set_name("gpu");
      gres->set_count(gpus);
    }
    request.add_argv("nvidia-smi");
    auto created = await<v1::CreateStepResponse>([&](auto reply) { core->createStep(request, kOwner, reply); });
    REQUIRE(created.ok());
    auto launches = agents.launchesOf(created->step_id());
    REQUIRE(launches.size() == 1);
    return launches[0].gpus_size();
  }
};

}  // namespace

TEST_CASE("steps get the GRES their job asked for, not those an exclusive job holds implicitly", "[core][steps]") {
  struct Row {
    const char* rule;
    bool exclusiveJob;
    int jobGpus;   // 0: the job asks for no GRES
    int stepGpus;  // 0: the step names no GRES
    int expected;
  };
  const Row rows[] = {
      {"a plain step of an exclusive job without GRES gets no GPU", true, 0, 0, 0},
      {"a step asking for GPUs of an exclusive job without GRES gets them", true, 0, 2, 2},
      {"a plain step of an exclusive job gets the job's requested count", true, 1, 0, 1},
      {"a plain step of a shared job gets every GPU the job holds", false, 2, 0, 2},
      {"a step of a job without GRES on a shared node gets none", false, 0, 0, 0},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      GpuHarness h;
      uint64_t id = h.runningJob(row.exclusiveJob, row.jobGpus);
      CHECK(h.stepGpus(id, row.stepGpus) == row.expected);
    }
  }
}

TEST_CASE("a step whose --gpu-bind is malformed is refused and not started", "[core][steps]") {
  GpuHarness h;
  uint64_t id = h.runningJob(false, 2);
  v1::CreateStepRequest request;
  request.set_job_id(id);
  request.mutable_spec()->set_gpu_bind("single:none");
  request.add_argv("true");
  auto refused = h.await<v1::CreateStepResponse>([&](auto reply) { h.core->createStep(request, kOwner, reply); });
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error() == "--gpu-bind: single: 'none' is not a positive number (tasks per GPU)");
  CHECK(h.agents.launchesOf("0").empty());
  request.mutable_spec()->set_gpu_bind("verbose,mask_gpu:0x3");
  CHECK(h.await<v1::CreateStepResponse>([&](auto reply) { h.core->createStep(request, kOwner, reply); }).ok());
}

TEST_CASE("a step's task count defaults like srun's inside an allocation", "[core][steps]") {
  // A job of 6 tasks on both nodes.
  struct Row {
    const char* rule;
    int ntasks, minNodes;
    int wantTasks, wantNodes;
  };
  for (const Row& row : {Row{"no -n and no -N: the job's tasks over the job's nodes", 0, 0, 6, 2},
                         Row{"-N1 without -n: one task on one node", 0, 1, 1, 1},
                         Row{"-N2 without -n: one task on each node", 0, 2, 2, 2},
                         Row{"-n3 -N1: three tasks on one node", 3, 1, 3, 1},
                         Row{"-n2 without -N: one task on each of two nodes", 2, 0, 2, 2},
                         Row{"-n1 without -N: one node", 1, 0, 1, 1},
                         Row{"-n5 without -N: every node of the job", 5, 0, 5, 2}}) {
    SECTION(row.rule) {
      Harness h;
      uint64_t id = h.runningJob(allocationSpec(6, 2));
      v1::CreateStepRequest request;
      request.set_job_id(id);
      request.mutable_spec()->set_ntasks(row.ntasks);
      request.mutable_spec()->set_min_nodes(row.minNodes);
      request.add_argv("hostname");
      auto step = h.await<v1::CreateStepResponse>([&](auto reply) { h.core->createStep(request, kOwner, reply); });
      REQUIRE(step.ok());
      CHECK(step->ntasks() == row.wantTasks);
      CHECK(step->num_nodes() == row.wantNodes);
    }
  }
}

TEST_CASE("a whole step (srun --exclusive=allocation) gets every CPU of the job on its node", "[core][steps]") {
  Harness h;
  uint64_t id = h.runningJob(allocationSpec(4));
  // A (non-exclusive) exact step of one task runs on one core.
  auto exact = h.step(id, 1, false);
  REQUIRE(exact.ok());
  auto exactLaunch = h.agents.launchesOf(exact->step_id())[0];
  REQUIRE(coresOf(exactLaunch).size() == 1);
  v1::CreateStepRequest request;
  request.set_job_id(id);
  request.set_whole(true);
  request.mutable_spec()->set_ntasks(2);
  request.add_argv("true");
  request.mutable_io()->set_addr("login1");
  request.mutable_io()->set_port(4567);
  request.mutable_io()->set_token("secret");
  auto whole = h.await<v1::CreateStepResponse>([&](auto reply) { h.core->createStep(request, kOwner, reply); });
  REQUIRE(whole.ok());
  auto launch = h.agents.launchesOf(whole->step_id())[0];
  CHECK(launch.tasks_on_node() == 2);
  std::set<int> cores = coresOf(launch);
  CHECK(cores.size() == 4);  // shared with the exact step, as steps that are not --exclusive are
  CHECK(launch.cpus_on_node() == 4);
  // Without whole the same request is exact.
  request.set_whole(false);
  h.stepEnded(id, whole->step_id(), launch.node_list(), 0);
  auto plain = h.await<v1::CreateStepResponse>([&](auto reply) { h.core->createStep(request, kOwner, reply); });
  REQUIRE(plain.ok());
  CHECK(coresOf(h.agents.launchesOf(plain->step_id())[0]).size() == 2);
}

TEST_CASE("a step's launch carries its CPUs per task, the batch step its job's", "[core][steps]") {
  Harness h;
  v1::JobSpec spec = allocationSpec(1);
  spec.set_cpus_per_task(2);
  uint64_t id = h.runningJob(spec);
  v1::CreateStepRequest request;
  request.set_job_id(id);
  request.mutable_spec()->set_ntasks(1);
  request.mutable_spec()->set_cpus_per_task(2);
  request.add_argv("true");
  request.mutable_io()->set_addr("login1");
  request.mutable_io()->set_port(4567);
  request.mutable_io()->set_token("secret");
  auto step = h.await<v1::CreateStepResponse>([&](auto reply) { h.core->createStep(request, kOwner, reply); });
  REQUIRE(step.ok());
  CHECK(h.agents.launchesOf(step->step_id())[0].cpus_per_task() == 2);
  v1::JobSpec batch = allocationSpec(1);
  batch.set_cpus_per_task(3);
  batch.set_script("#!/bin/sh\nsleep 100\n");
  h.runningJob(batch);
  REQUIRE(h.agents.launchesOf("batch").size() == 1);
  CHECK(h.agents.launchesOf("batch")[0].cpus_per_task() == 3);
}
