// Job arrays through the core: the pending tasks are one record, each task
// that starts (or is acted on alone) becomes a record of its own, the
// throttle holds tasks back, and cancel, hold, update and dependencies
// take the whole array or single tasks. Simulated time.
#include "tests/unit/controller/core/core_harness.h"

#include <functional>

using namespace gantry;
using testing::tempDb;

namespace {

const auth::Identity kOwner{.uid = 1100, .gid = 1100, .user = "u1100"};
const auth::Identity kOther{.uid = 2200, .gid = 2200, .user = "u2200"};

// Three nodes of 6 CPUs: nine 2-CPU tasks fit at once.
config::GantryConf arrayConf(const std::string& extra = "") {
  return testing::parseConf("ClusterName=unit\nSlurmdTimeout=3600\n" + extra +
                            "NodeName=a[1-3] CPUs=6 CoresPerSocket=6 RealMemory=3000\n"
                            "PartitionName=main Nodes=a[1-3] Default=YES MaxTime=60\n");
}

v1::JobSpec arrayJob(const std::string& indexes, int cpus = 2) {
  v1::JobSpec spec;
  spec.set_name("sweep");
  spec.set_script("#!/bin/sh\nsleep 100\n");
  spec.set_cpus_per_task(cpus);
  spec.set_array(indexes);
  return spec;
}

struct Harness : testing::CoreHarness {
  explicit Harness(config::GantryConf conf = arrayConf(), std::string db = tempDb())
      : CoreHarness(std::move(conf), std::move(db)) {}

  void up() { registerNodes({"a1", "a2", "a3"}); }

  Result<uint64_t> submit(v1::JobSpec spec, const auth::Identity& caller = kOwner) {
    return CoreHarness::submit(std::move(spec), caller);
  }
  // Every record listed for an id (an array's id lists all of its records).
  std::vector<v1::Job> records(uint64_t id) {
    v1::ListJobsRequest request;
    request.add_job_ids(id);
    auto answer = await<v1::ListJobsResponse>([&](auto reply) { core->listJobs(request, reply); });
    REQUIRE(answer.ok());
    return {answer->jobs().begin(), answer->jobs().end()};
  }
  // The array's record of pending tasks (id == the array's id).
  v1::Job holder(uint64_t array) {
    for (const auto& job : records(array)) {
      if (job.job_id() == array) return job;
    }
    FAIL("the array's own record is not listed");
    return {};
  }
  std::map<uint32_t, v1::Job> running(uint64_t array) {
    std::map<uint32_t, v1::Job> tasks;
    for (const auto& job : records(array)) {
      if (job.has_array_task_id() && job.state() == v1::RUNNING) tasks[job.array_task_id()] = job;
    }
    return tasks;
  }
  void complete(const v1::Job& task, int exitCode = 0) {
    stepEnded(task.job_id(), "batch", task.batch_host(), exitCode);
    advance(std::chrono::milliseconds(10));
  }
  v1::CancelJobResponse cancel(uint64_t array, const std::string& tasks, const auth::Identity& caller = kOwner) {
    v1::CancelJobRequest request;
    if (tasks.empty()) {
      request.add_job_ids(array);
    } else {
      auto* ref = request.add_array_tasks();
      ref->set_array_job_id(array);
      ref->set_tasks(tasks);
    }
    auto answer = await<v1::CancelJobResponse>([&](auto reply) { core->cancelJob(request, caller, reply); });
    REQUIRE(answer.ok());
    settle();
    return *answer;
  }
  Status act(core::ControllerCore::JobAction action, uint64_t id, const std::string& tasks,
             const auth::Identity& caller = kOwner) {
    auto answer = await<Ok>([&](auto reply) { core->jobAction(action, id, tasks, caller, reply); });
    settle();
    return answer ? okStatus() : Status(Error{answer.failure()});
  }
};

std::vector<uint32_t> indexesOf(const std::map<uint32_t, v1::Job>& tasks) {
  std::vector<uint32_t> out;
  for (const auto& [index, job] : tasks) out.push_back(index);
  return out;
}

}  // namespace

TEST_CASE("array: pending tasks stay one record; each task that starts gets a record and a job id of its own") {
  Harness h;
  h.up();
  auto array = h.submit(arrayJob("3-14"));
  REQUIRE(array.ok());
  h.settle();
  auto tasks = h.running(*array);
  CHECK(indexesOf(tasks) == std::vector<uint32_t>{3, 4, 5, 6, 7, 8, 9, 10, 11});
  std::set<uint64_t> ids;
  for (const auto& [index, task] : tasks) {
    CHECK(task.array_job_id() == *array);
    CHECK(task.job_id() != *array);
    ids.insert(task.job_id());
  }
  CHECK(ids.size() == 9);
  v1::Job rest = h.holder(*array);
  CHECK(rest.state() == v1::PENDING);
  CHECK_FALSE(rest.has_array_task_id());
  CHECK(rest.array_pending() == "12-14");
  CHECK(rest.reason() == "Resources");
  // A task's end lets the next index start.
  h.complete(tasks.at(5));
  CHECK(h.running(*array).count(12) == 1);
  CHECK(h.holder(*array).array_pending() == "13-14");
}

TEST_CASE("array: the array's own record becomes its last task") {
  Harness h;
  h.up();
  uint64_t array = *h.submit(arrayJob("20,40", 1));
  h.settle();
  auto tasks = h.running(array);
  REQUIRE(indexesOf(tasks) == std::vector<uint32_t>{20, 40});
  CHECK(tasks.at(40).job_id() == array);
  CHECK(tasks.at(20).job_id() != array);
  CHECK(h.records(array).size() == 2);
}

TEST_CASE("array: a one-task array is that task from the start") {
  Harness h;
  h.up();
  uint64_t array = *h.submit(arrayJob("7"));
  h.settle();
  auto records = h.records(array);
  REQUIRE(records.size() == 1);
  CHECK(records[0].array_task_id() == 7);
  CHECK(records[0].state() == v1::RUNNING);
}

TEST_CASE("array: the throttle runs at most %N tasks; ArrayTaskThrottle= changes it") {
  Harness h;
  h.up();
  uint64_t array = *h.submit(arrayJob("0-9%2", 1));
  h.settle();
  auto tasks = h.running(array);
  CHECK(indexesOf(tasks) == std::vector<uint32_t>{0, 1});
  CHECK(h.holder(array).reason() == "JobArrayTaskLimit");
  CHECK(h.holder(array).array_throttle() == 2);
  h.complete(tasks.at(0));
  CHECK(indexesOf(h.running(array)) == std::vector<uint32_t>{1, 2});
  v1::UpdateJobRequest request;
  request.set_job_id(array);
  request.set_array_throttle(4);
  REQUIRE(h.await<Ok>([&](auto reply) { h.core->updateJob(request, kOwner, reply); }).ok());
  h.advance(std::chrono::milliseconds(10));
  CHECK(indexesOf(h.running(array)) == std::vector<uint32_t>{1, 2, 3, 4});
}

TEST_CASE("array: each task's batch step sees the array in its environment and output names") {
  Harness h;
  h.up();
  uint64_t array = *h.submit(arrayJob("4-16:6"));
  h.settle();
  auto launches = h.agents.launchesOf("batch");
  REQUIRE(launches.size() == 3);
  std::set<std::string> seen;
  for (const auto& launch : launches) {
    const auto& env = launch.environment();
    CHECK(env.at("SLURM_ARRAY_JOB_ID") == std::to_string(array));
    CHECK(env.at("SLURM_ARRAY_TASK_COUNT") == "3");
    CHECK(env.at("SLURM_ARRAY_TASK_MIN") == "4");
    CHECK(env.at("SLURM_ARRAY_TASK_MAX") == "16");
    CHECK(env.at("SLURM_ARRAY_TASK_STEP") == "6");
    CHECK(launch.array_job_id() == array);
    CHECK(std::to_string(launch.array_task_id()) == env.at("SLURM_ARRAY_TASK_ID"));
    seen.insert(env.at("SLURM_ARRAY_TASK_ID"));
  }
  CHECK(seen == std::set<std::string>{"4", "10", "16"});
}

TEST_CASE("array: a job outside an array never keeps array variables from the submitting shell") {
  Harness h;
  h.up();
  v1::JobSpec plain = arrayJob("");
  plain.clear_array();
  (*plain.mutable_environment())["SLURM_ARRAY_TASK_ID"] = "3";
  REQUIRE(h.submit(plain).ok());
  h.settle();
  auto launches = h.agents.launchesOf("batch");
  REQUIRE(launches.size() == 1);
  CHECK(launches[0].environment().count("SLURM_ARRAY_TASK_ID") == 0);
  CHECK_FALSE(launches[0].has_array_task_id());
}

TEST_CASE("array: cancelling some tasks takes them out, pending or running; the array's id cancels all") {
  Harness h;
  h.up();
  uint64_t array = *h.submit(arrayJob("0-11", 3));  // six run, six wait
  h.settle();
  REQUIRE(indexesOf(h.running(array)) == std::vector<uint32_t>{0, 1, 2, 3, 4, 5});
  auto answer = h.cancel(array, "4,8-9");
  CHECK(answer.errors().empty());
  // Task 4's CPUs went at once to the lowest index still pending.
  CHECK(h.holder(array).array_pending() == "7,10-11");
  CHECK(h.running(array).count(6) == 1);
  std::map<uint32_t, v1::JobState> states;
  for (const auto& job : h.records(array)) {
    if (job.has_array_task_id()) states[job.array_task_id()] = job.state();
  }
  CHECK(states.at(8) == v1::CANCELLED);
  CHECK(states.at(9) == v1::CANCELLED);
  CHECK(states.at(4) == v1::CANCELLED);
  h.cancel(array, "");
  for (const auto& job : h.records(array)) {
    INFO(job.job_id());
    CHECK((job.state() == v1::CANCELLED || job.state() == v1::COMPLETING));
  }
  auto again = h.cancel(array, "");
  REQUIRE(again.errors_size() == 1);
  CHECK(again.errors(0).find("already completing or completed") != std::string::npos);
}

TEST_CASE("array: another user's cancel, hold or update of tasks is refused and splits nothing") {
  Harness h;
  h.up();
  uint64_t array = *h.submit(arrayJob("0-29", 6));  // three run
  h.settle();
  size_t before = h.records(array).size();
  auto refused = h.cancel(array, "20-25", kOther);
  REQUIRE(refused.errors_size() == 1);
  CHECK(refused.errors(0).find("Access/permission denied") != std::string::npos);
  CHECK_FALSE(h.act(core::ControllerCore::JobAction::Hold, array, "20", kOther));
  v1::UpdateJobRequest update;
  update.set_job_id(array);
  update.set_array_tasks("21");
  update.set_time_limit_minutes(5);
  CHECK_FALSE(h.await<Ok>([&](auto reply) { h.core->updateJob(update, kOther, reply); }).ok());
  CHECK(h.records(array).size() == before);
  CHECK(h.holder(array).array_pending() == "3-29");
}

TEST_CASE("array: a held task waits while the others run; release lets it start") {
  Harness h;
  h.up();
  uint64_t array = *h.submit(arrayJob("0-3", 6));  // three run, 3 waits
  h.settle();
  REQUIRE(h.act(core::ControllerCore::JobAction::Hold, array, "3"));
  v1::Job held = h.holder(array);  // the last pending task is the array's own record
  CHECK(held.array_task_id() == 3);
  CHECK(held.reason() == "JobHeldUser");
  h.complete(h.running(array).at(0));
  CHECK(h.running(array).count(3) == 0);
  REQUIRE(h.act(core::ControllerCore::JobAction::Release, array, "3"));
  h.advance(std::chrono::milliseconds(10));
  CHECK(h.running(array).count(3) == 1);
}

TEST_CASE("array: a task index the array does not have is an invalid job id") {
  Harness h;
  h.up();
  uint64_t array = *h.submit(arrayJob("0-2", 6));
  h.settle();
  auto answer = h.cancel(array, "7");
  REQUIRE(answer.errors_size() == 1);
  CHECK(answer.errors(0) == "Kill job error on job id " + std::to_string(array) + "_7: Invalid job id specified");
  auto status = h.act(core::ControllerCore::JobAction::Hold, array + 50, "1");
  CHECK_FALSE(status);
}

TEST_CASE("array: afterok on an array waits for every task and fails with any") {
  Harness h;
  h.up();
  uint64_t array = *h.submit(arrayJob("0-1", 1));
  h.settle();
  v1::JobSpec after = arrayJob("");
  after.clear_array();
  after.set_dependency("afterok:" + std::to_string(array));
  uint64_t waiting = *h.submit(after);
  h.settle();
  auto tasks = h.running(array);
  REQUIRE(tasks.size() == 2);
  h.complete(tasks.at(0));
  CHECK(h.records(waiting).at(0).reason() == "Dependency");
  h.complete(tasks.at(1), 1);
  CHECK(h.records(waiting).at(0).reason() == "DependencyNeverSatisfied");
}

TEST_CASE("array: afterok on one task (ID_TASK) waits for that task alone; a task the array lacks is refused") {
  Harness h;
  h.up();
  uint64_t array = *h.submit(arrayJob("3-5", 1));
  h.settle();
  v1::JobSpec after = arrayJob("");
  after.clear_array();
  after.set_dependency("afterok:" + std::to_string(array) + "_4");
  uint64_t waiting = *h.submit(after);
  h.settle();
  auto tasks = h.running(array);
  REQUIRE(tasks.size() == 3);
  h.complete(tasks.at(3), 1);  // another task's failure changes nothing
  h.complete(tasks.at(5));
  CHECK(h.records(waiting).at(0).state() == v1::PENDING);
  CHECK(h.records(waiting).at(0).reason() == "Dependency");
  h.complete(tasks.at(4));
  CHECK(h.records(waiting).at(0).state() == v1::RUNNING);

  after.set_dependency("afterok:" + std::to_string(array) + "_9");
  auto refused = h.submit(after);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error(), Catch::Contains("job " + std::to_string(array) + "_9 is not known"));
}

TEST_CASE("array: aftercorr starts each task once the task of the same index completed well") {
  // Room for every task at once: only the dependency holds them back.
  Harness h;
  h.up();
  uint64_t first = *h.submit(arrayJob("0-2", 1));
  h.settle();
  v1::JobSpec second = arrayJob("0-2", 1);
  second.set_dependency("aftercorr:" + std::to_string(first));
  uint64_t next = *h.submit(second);
  h.settle();
  auto tasks = h.running(first);
  REQUIRE(tasks.size() == 3);
  CHECK(h.running(next).empty());
  h.complete(tasks.at(0));
  CHECK(h.running(next).count(0) == 1);
  CHECK(h.running(next).size() == 1);
  // Task 1 of the first array still runs: task 1 of the second waits,
  // and task 2 behind it (tasks start in index order).
  h.complete(tasks.at(2));
  CHECK(h.running(next).size() == 1);
  CHECK(h.holder(next).reason() == "Dependency");
  h.complete(tasks.at(1));
  CHECK(h.running(next).size() == 3);
}

TEST_CASE("array: submissions outside the rules are refused and store nothing") {
  Harness h(arrayConf("MaxArraySize=50\n"));
  h.up();
  struct Row {
    const char* rule;
    const char* indexes;
    const char* message;
  };
  const Row rows[] = {
      {"an index at MaxArraySize", "0-50", "index 50 is not below MaxArraySize (50)"},
      {"a range that ends before it starts", "9-3", "\"9-3\" ends before it starts"},
      {"a throttle that is no number", "1-3%z", "throttle \"%z\""},
      {"an empty item", "1,,2", "empty item"},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    auto refused = h.submit(arrayJob(row.indexes));
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().find(row.message) != std::string::npos);
  }
  v1::JobSpec interactive = arrayJob("0-3");
  interactive.clear_script();
  auto refused = h.submit(interactive);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error() == "Job arrays are for batch jobs (sbatch) only");
  v1::ListJobsRequest all;
  all.set_include_finished(true);
  CHECK(h.await<v1::ListJobsResponse>([&](auto reply) { h.core->listJobs(all, reply); })->jobs_size() == 0);
}

TEST_CASE("array: 100,000 pending tasks are one record") {
  Harness h(arrayConf("MaxArraySize=100001\n"));
  uint64_t array = *h.submit(arrayJob("0-99999"));  // no node registered: all wait
  h.settle();
  auto records = h.records(array);
  REQUIRE(records.size() == 1);
  CHECK(records[0].array_pending() == "0-99999");
}

TEST_CASE("array: a restarted controller keeps the pending tasks and the started ones, each once") {
  std::string db = tempDb();
  uint64_t array = 0;
  std::map<std::string, std::vector<uint64_t>> runningOn;  // node -> task job ids
  {
    Harness h(arrayConf(), db);
    h.up();
    array = *h.submit(arrayJob("0-19%4", 1));
    h.settle();
    auto tasks = h.running(array);
    REQUIRE(tasks.size() == 4);
    for (const auto& [index, task] : tasks) runningOn[task.batch_host()].push_back(task.job_id());
  }
  Harness again(arrayConf(), db);
  for (const char* node : {"a1", "a2", "a3"}) {
    v1::RegisterRequest registration;
    registration.set_node_name(node);
    for (uint64_t id : runningOn[node]) {
      v1::RunningStep* batch = registration.add_running();
      batch->set_job_id(id);
      batch->set_step_id("batch");
    }
    REQUIRE(again.await<v1::RegisterResponse>([&](auto reply) { again.core->registerNode(registration, reply); }).ok());
  }
  again.settle();
  CHECK(again.holder(array).array_pending() == "4-19");
  CHECK(again.holder(array).array_throttle() == 4);
  CHECK(indexesOf(again.running(array)) == std::vector<uint32_t>{0, 1, 2, 3});
}
