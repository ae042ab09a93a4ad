// What the controller core must keep across a restart of itself and of its
// agents: the devices running jobs hold (never handed out twice), queued
// submissions before the agents are back, steps and their numbering, and
// node commands that an agent did not acknowledge. All in simulated time.
#include "tests/unit/controller/core/core_harness.h"

#include <map>
#include <set>

using namespace gantry;
using testing::CoreHarness;
using testing::tempDb;

namespace {

const auth::Identity kAlice{.uid = 1000, .gid = 1000, .user = "alice"};

// One node with six GPUs, none linked.
config::GantryConf gpuConf(const std::string& extra = "") {
  return testing::parseConf("ClusterName=unit\nSlurmdTimeout=30\nGresTypes=gpu\n" + extra +
                            "NodeName=g1 CPUs=12 CoresPerSocket=12 RealMemory=64000 Gres=gpu:6\n"
                            "PartitionName=gpus Nodes=g1 Default=YES MaxTime=600\n");
}

v1::RegisterRequest gpuRegistration(int gpus) {
  v1::RegisterRequest request;
  request.set_node_name("g1");
  for (int i = 0; i < gpus; ++i) {
    v1::GresDevice* gpu = request.mutable_hardware()->add_gres();
    gpu->set_name("gpu");
    gpu->add_files("/dev/nvidia" + std::to_string(i));
    gpu->set_count(1);
  }
  return request;
}

void registerGpus(CoreHarness& h, int gpus = 6) {
  auto request = gpuRegistration(gpus);
  REQUIRE(h.await<v1::RegisterResponse>([&](auto reply) { h.core->registerNode(request, reply); }).ok());
  h.settle();
}

v1::JobSpec oneGpuJob() {
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\nsleep 600\n");
  spec.set_ntasks(1);
  v1::GresRequest* gres = spec.add_gres();
  gres->set_name("gpu");
  gres->set_count(1);
  return spec;
}

// Device index -> how many running jobs hold it.
std::map<int, int> devicesInUse(CoreHarness& h) {
  v1::ListJobsRequest request;
  auto answer = h.await<v1::ListJobsResponse>([&](auto reply) { h.core->listJobs(request, reply); });
  REQUIRE(answer.ok());
  std::map<int, int> holders;
  for (const auto& job : answer->jobs()) {
    if (job.state() != v1::RUNNING) continue;
    for (const auto& alloc : job.allocation()) {
      for (int device : alloc.devices()) ++holders[device];
    }
  }
  return holders;
}

size_t countInState(CoreHarness& h, v1::JobState state) {
  v1::ListJobsRequest request;
  auto answer = h.await<v1::ListJobsResponse>([&](auto reply) { h.core->listJobs(request, reply); });
  REQUIRE(answer.ok());
  size_t n = 0;
  for (const auto& job : answer->jobs()) n += job.state() == state ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("after a controller restart running jobs keep their GPUs and none is handed out twice") {
  std::string db = tempDb();
  std::map<uint64_t, std::vector<int>> before;
  {
    CoreHarness h(gpuConf(), db);
    registerGpus(h);
    for (int i = 0; i < 6; ++i) REQUIRE(h.submit(oneGpuJob(), kAlice).ok());
    h.settle();
    REQUIRE(devicesInUse(h).size() == 6);
    for (uint64_t id = 1; id <= 6; ++id) {
      auto job = h.job(id);
      before[id] = {job.allocation(0).devices().begin(), job.allocation(0).devices().end()};
    }
  }
  CoreHarness again(gpuConf(), db);
  // Before the agent is back: GPU submissions are queued, not refused.
  std::vector<uint64_t> later;
  for (int i = 0; i < 3; ++i) {
    auto id = again.submit(oneGpuJob(), kAlice);
    REQUIRE(id.ok());
    later.push_back(*id);
  }
  registerGpus(again);
  again.advance(std::chrono::seconds(2));
  for (uint64_t id : later) CHECK(again.job(id).state() == v1::PENDING);
  for (const auto& [device, holders] : devicesInUse(again)) CHECK(holders == 1);
  for (const auto& [id, devices] : before) {
    auto job = again.job(id);
    REQUIRE(job.state() == v1::RUNNING);
    CHECK(std::vector<int>(job.allocation(0).devices().begin(), job.allocation(0).devices().end()) == devices);
  }
  // The device a finished job frees goes to exactly one waiting job.
  again.stepEnded(1, "batch", "g1", 0);
  again.settle();
  CHECK(countInState(again, v1::RUNNING) == 6);
  for (const auto& [device, holders] : devicesInUse(again)) CHECK(holders == 1);
}

TEST_CASE("a re-registration keeps the devices held even when the old view knew none of them") {
  // A store written before node hardware was kept: the restarted core
  // knows the node's GPUs only from gantry.conf until it registers.
  std::string db = tempDb();
  {
    CoreHarness h(gpuConf(), db);
    registerGpus(h);
    for (int i = 0; i < 4; ++i) REQUIRE(h.submit(oneGpuJob(), kAlice).ok());
    h.settle();
  }
  {
    // Forget the stored hardware.
    store::JobStore raw;
    REQUIRE(raw.open(db).ok());
    raw.saveNodeHardware("g1", v1::NodeHardware().SerializeAsString());
    raw.flush();
    raw.close();
  }
  CoreHarness again(gpuConf(), db);
  registerGpus(again);
  for (int i = 0; i < 4; ++i) REQUIRE(again.submit(oneGpuJob(), kAlice).ok());
  again.settle();
  CHECK(countInState(again, v1::RUNNING) == 6);
  CHECK(countInState(again, v1::PENDING) == 2);
  for (const auto& [device, holders] : devicesInUse(again)) CHECK(holders == 1);
}

TEST_CASE("GPU requests are judged from gantry.conf before the node first registers") {
  CoreHarness h(gpuConf());
  auto fits = h.submit(oneGpuJob(), kAlice);
  REQUIRE(fits.ok());
  CHECK(h.job(*fits).state() == v1::PENDING);
  v1::JobSpec tooMany = oneGpuJob();
  tooMany.mutable_gres(0)->set_count(7);
  auto refused = h.submit(tooMany, kAlice);
  REQUIRE_FALSE(refused.ok());
  registerGpus(h);
  CHECK(h.job(*fits).state() == v1::RUNNING);
}

TEST_CASE("steps survive a controller restart and their numbering goes on") {
  std::string db = tempDb();
  uint64_t jobId = 0;
  auto makeStep = [](CoreHarness& h, uint64_t job) {
    v1::CreateStepRequest request;
    request.set_job_id(job);
    request.mutable_spec()->set_ntasks(1);
    request.add_argv("hostname");
    return h.await<v1::CreateStepResponse>([&](auto reply) { h.core->createStep(request, kAlice, reply); });
  };
  {
    CoreHarness h(testing::twoNodeConf(), db);
    h.registerNodes();
    v1::JobSpec spec;
    spec.set_script("#!/bin/sh\nsleep 600\n");
    jobId = *h.submit(spec, kAlice);
    h.settle();
    REQUIRE(makeStep(h, jobId)->step_id() == "0");
    REQUIRE(makeStep(h, jobId)->step_id() == "1");
    h.stepEnded(jobId, "0", h.job(jobId).batch_host(), 0);
  }
  CoreHarness again(testing::twoNodeConf(), db);
  // The agents come back with the job's steps still running.
  for (const char* node : {"n1", "n2"}) {
    v1::RegisterRequest registration;
    registration.set_node_name(node);
    v1::RunningStep* batch = registration.add_running();
    batch->set_job_id(jobId);
    batch->set_step_id("batch");
    REQUIRE(again.await<v1::RegisterResponse>([&](auto reply) { again.core->registerNode(registration, reply); }).ok());
  }
  v1::ListJobsRequest request;
  request.add_job_ids(jobId);
  request.set_include_steps(true);
  auto listed = again.await<v1::ListJobsResponse>([&](auto reply) { again.core->listJobs(request, reply); });
  REQUIRE(listed.ok());
  REQUIRE(listed->jobs(0).steps_size() == 2);
  CHECK_FALSE(listed->jobs(0).steps(0).running());
  CHECK(listed->jobs(0).steps(1).running());
  CHECK(listed->jobs(0).steps(1).name() == "hostname");
  CHECK(makeStep(again, jobId)->step_id() == "2");
  // Listings leave steps out unless asked.
  request.set_include_steps(false);
  auto plain = again.await<v1::ListJobsResponse>([&](auto reply) { again.core->listJobs(request, reply); });
  CHECK(plain->jobs(0).steps_size() == 0);
}

TEST_CASE("job ends reach every node exactly once even when agents drop the first calls") {
  CoreHarness h(testing::twoNodeConf());
  h.registerNodes();
  std::vector<uint64_t> jobs;
  for (int i = 0; i < 4; ++i) {
    v1::JobSpec spec;
    spec.set_script("#!/bin/sh\nsleep 600\n");
    spec.set_min_nodes(2);
    spec.set_ntasks(2);
    jobs.push_back(*h.submit(spec, kAlice));
    h.settle();
  }
  h.agents.dropNodeCalls = 5;
  v1::CancelJobRequest cancel;
  for (uint64_t id : jobs) cancel.add_job_ids(id);
  REQUIRE(h.await<v1::CancelJobResponse>([&](auto reply) { h.core->cancelJob(cancel, kAlice, reply); }).ok());
  h.settle();
  CHECK(h.agents.dropped == 5);
  // Retries wait 1 s, 2 s, 4 s, ...: a minute of simulated time is plenty.
  for (int i = 0; i < 12; ++i) {
    h.advance(std::chrono::seconds(5));
    h.heartbeat("n1");
    h.heartbeat("n2");
  }
  std::map<std::pair<std::string, uint64_t>, int> ends;
  for (const auto& end : h.agents.terminated) ++ends[end];
  size_t started = 0;
  for (uint64_t id : jobs) {
    if (h.job(id).node_list().empty()) continue;
    ++started;
  }
  CHECK(ends.size() == 2 * jobs.size());
  for (const auto& [end, times] : ends) CHECK(times == 1);
  auto left = h.await<size_t>([&](auto reply) { h.core->unacknowledgedNodeCommands(reply); });
  CHECK(*left == 0);
  CHECK(started == jobs.size());
}

TEST_CASE("a terminate retry for an earlier run never reaches the job's next run") {
  CoreHarness h(testing::twoNodeConf());
  h.registerNodes({"n1"});
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\nsleep 600\n");
  uint64_t id = *h.submit(spec, kAlice);
  h.settle();
  REQUIRE(h.job(id).state() == v1::RUNNING);
  // Set DOWN, the terminate is lost; RESUME and the job runs again there.
  h.agents.dropNodeCalls = 1;
  v1::UpdateNodeRequest down;
  down.set_node_names("n1");
  down.set_state("DOWN");
  down.set_reason("maintenance");
  REQUIRE(h.await<v1::UpdateNodeResponse>([&](auto reply) { h.core->updateNode(down, {.uid = 0, .gid = 0, .user = "root"}, reply); }).ok());
  v1::UpdateNodeRequest resume;
  resume.set_node_names("n1");
  resume.set_state("RESUME");
  REQUIRE(h.await<v1::UpdateNodeResponse>([&](auto reply) { h.core->updateNode(resume, {.uid = 0, .gid = 0, .user = "root"}, reply); }).ok());
  h.settle();
  REQUIRE(h.job(id).state() == v1::RUNNING);
  for (int i = 0; i < 12; ++i) {
    h.advance(std::chrono::seconds(5));
    h.heartbeat("n1");
  }
  CHECK(h.agents.terminated.empty());
  CHECK(h.job(id).state() == v1::RUNNING);
}

TEST_CASE("ended jobs are forgotten after MinJobAge, and kept with MinJobAge=0") {
  for (int64_t keep : {int64_t{120}, int64_t{0}}) {
    CAPTURE(keep);
    config::GantryConf conf = testing::twoNodeConf();
    store::JobStore store;
    std::string db = tempDb();
    REQUIRE(store.open(db).ok());
    ManualClock clock(TimePoint(std::chrono::seconds(1'000'000)));
    ManualTimerQueue timers(clock);
    testing::RecordingGateway agents;
    boost::asio::io_context io;
    auto guard = boost::asio::make_work_guard(io);
    core::ControllerCore core(io, core::CoreOptions{.conf = &conf, .clock = &clock, .store = &store,
                                                    .agents = &agents, .timers = &timers,
                                                    .keepFinishedSeconds = keep,
                                                    .tick = std::chrono::milliseconds(1000)});
    REQUIRE(core.start().ok());
    auto run = [&] {
      for (int i = 0; i < 100; ++i) {
        timers.runDue();
        store.flush();
        if (io.poll() == 0) break;
      }
    };
    v1::SubmitJobRequest submit;
    submit.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    submit.mutable_spec()->set_hold(true);
    std::optional<uint64_t> id;
    core.submitJob(submit, kAlice, [&](Result<v1::SubmitJobResponse> r) { id = r->job_id(); });
    run();
    REQUIRE(id);
    v1::CancelJobRequest cancel;
    cancel.add_job_ids(*id);
    core.cancelJob(cancel, kAlice, [](auto) {});
    run();
    auto listed = [&] {
      v1::ListJobsRequest request;
      request.add_job_ids(*id);
      size_t n = 0;
      core.listJobs(request, [&](Result<v1::ListJobsResponse> r) { n = r->jobs_size(); });
      run();
      return n;
    };
    timers.advance(std::chrono::seconds(100));
    run();
    CHECK(listed() == 1);
    timers.advance(std::chrono::seconds(30));
    run();
    CHECK(listed() == (keep == 0 ? 1 : 0));
    core.stop();
    run();
    store.close();
  }
}
