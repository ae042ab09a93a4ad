// A ControllerCore under test: a recording agent gateway instead of gRPC, a
// ManualClock with a ManualTimerQueue (simulated time: the core's ticks and
// retries run only when the test moves the clock), a real SQLite store in a
// temporary folder, and helpers that drive the core's io_context until an
// answer arrives. Nothing waits on the wall clock: the only other thread is
// the store's writer, which the helpers wait for with JobStore::flush().
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <filesystem>
#include <map>
#include <set>
#include <mutex>
#include <optional>
#include <unistd.h>

#include "common/util/timer.h"
#include "controller/core/controller_core.h"

namespace gantry::testing {

// Records what the core asks of the nodes; launches can be made to fail.
class RecordingGateway final : public core::AgentGateway {
 public:
  void launchStep(const core::AgentAddress& to, v1::LaunchStepRequest request, Callback done) override {
    bool fail = false;
    {
      std::lock_guard lock(mutex);
      launches.push_back({to.node, request});
      fail = failLaunches > 0;
      if (fail) --failLaunches;
    }
    if (done) done(fail ? Status(Error{"cannot start gantrystepd"}) : okStatus());
  }
  void terminateJob(const core::AgentAddress& to, uint64_t jobId, Callback done) override {
    {
      std::lock_guard lock(mutex);
      if (dropNodeCalls > 0) {
        // Lost on the way: the agent never saw it.
        --dropNodeCalls;
        ++dropped;
        if (done) done(Status(Error{ErrorCode::Unavailable, "connection refused"}));
        return;
      }
      terminated.push_back({to.node, jobId});
    }
    if (done) done(okStatus());
  }
  struct SentSignal {
    std::string node;
    uint64_t job;
    std::string step;
    int signal;
  };
  void signalJob(const core::AgentAddress& to, uint64_t jobId, const std::string& stepId, int signal,
                 core::SignalScope, Callback done) override {
    {
      std::lock_guard lock(mutex);
      signals.push_back({to.node, jobId, stepId, signal});
    }
    if (done) done(okStatus());
  }
  void suspendJob(const core::AgentAddress& to, uint64_t jobId, Callback done) override {
    {
      std::lock_guard lock(mutex);
      suspended.push_back(jobId);
      suspendedOn.push_back({to.node, jobId});
      if (holdSuspendAnswers) {
        heldSuspendAnswers.push_back(std::move(done));
        return;
      }
    }
    if (done) done(okStatus());
  }
  void resumeJob(const core::AgentAddress& to, uint64_t jobId, Callback done) override {
    {
      std::lock_guard lock(mutex);
      resumed.push_back(jobId);
      resumedOn.push_back({to.node, jobId});
    }
    if (done) done(okStatus());
  }
  // Acknowledges every suspend held back by holdSuspendAnswers.
  void answerHeldSuspends() {
    std::vector<Callback> answers;
    {
      std::lock_guard lock(mutex);
      answers.swap(heldSuspendAnswers);
    }
    for (auto& answer : answers)
      if (answer) answer(okStatus());
  }
  // Answers with the node's entry of reconfigureFailures, when it has one;
  // a node in silentOnReconfigure never answers.
  void reconfigure(const core::AgentAddress& to, Callback done) override {
    Status answer = okStatus();
    {
      std::lock_guard lock(mutex);
      reconfigured.push_back(to.node);
      if (silentOnReconfigure.count(to.node) != 0) return;
      if (auto found = reconfigureFailures.find(to.node); found != reconfigureFailures.end()) {
        answer = Error{ErrorCode::NotNow, found->second};
      }
    }
    if (done) done(answer);
  }

  std::vector<v1::LaunchStepRequest> launchesOf(const std::string& stepId) {
    std::lock_guard lock(mutex);
    std::vector<v1::LaunchStepRequest> found;
    for (const auto& [node, request] : launches) {
      if (request.step_id() == stepId) found.push_back(request);
    }
    return found;
  }

  std::mutex mutex;
  std::vector<std::pair<std::string, v1::LaunchStepRequest>> launches;
  std::vector<std::pair<std::string, uint64_t>> terminated;
  std::vector<SentSignal> signals;  // every signalJob, in order
  std::vector<uint64_t> suspended;
  std::vector<std::pair<std::string, uint64_t>> suspendedOn;
  std::vector<uint64_t> resumed;
  std::vector<std::pair<std::string, uint64_t>> resumedOn;
  bool holdSuspendAnswers = false;  // suspends wait for answerHeldSuspends()
  std::vector<Callback> heldSuspendAnswers;
  std::vector<std::string> reconfigured;                    // nodes asked to re-read
  std::map<std::string, std::string> reconfigureFailures;  // node -> its agent's answer
  std::set<std::string> silentOnReconfigure;
  int failLaunches = 0;  // how many launches still fail
  int dropNodeCalls = 0; // how many TerminateJob calls are still lost
  int dropped = 0;
};

inline config::GantryConf parseConf(const std::string& text) {
  auto loaded = config::parseGantryConf(text, "unit.conf");
  REQUIRE(loaded.ok());
  return loaded->conf;
}

// Two four-core nodes in one partition with a 60-minute limit; `extra`
// lines come first.
inline config::GantryConf twoNodeConf(const std::string& extra = "") {
  return parseConf("ClusterName=unit\nSlurmdTimeout=10\n" + extra +
                   "NodeName=n[1-2] CPUs=4 CoresPerSocket=4 RealMemory=1000\n"
                   "PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=60\n");
}

// One task per node, `cpus` CPUs each, on `nodes` nodes, for `minutes`
// (0: no limit given): the jobs of the backfill and pass tests.
inline v1::JobSpec nodesJob(int cpus, int minutes, int nodes = 1) {
  v1::JobSpec spec;
  spec.set_name("work");
  spec.set_script("#!/bin/sh\nsleep 100\n");
  spec.set_min_nodes(nodes);
  spec.set_max_nodes(nodes);
  spec.set_ntasks(nodes);
  spec.set_cpus_per_task(cpus);
  if (minutes > 0) spec.set_time_limit_minutes(minutes);
  return spec;
}

inline std::string tempDb() {
  static int counter = 0;
  auto dir = std::filesystem::temp_directory_path() / ("gantry-core-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto path = dir / ("core" + std::to_string(counter++) + ".db");
  std::filesystem::remove(path);
  return path.string();
}

struct CoreHarness {
  explicit CoreHarness(config::GantryConf configuration = twoNodeConf(), std::string dbPath = tempDb(),
                       core::SwitchCalls* switchCalls = nullptr, core::SwitchScriptAnswers switchAnswers = {},
                       int64_t keepFinishedSeconds = 300, accounting::AccountingStore* accounting = nullptr,
                       std::chrono::milliseconds tick = std::chrono::milliseconds(1))
      : db(std::move(dbPath)), conf(std::move(configuration)) {
    // A requeued job may start again at once here, unlike on a site
    // (requeue_delay, 121 s), unless the test sets the delay itself.
    bool delaySet = std::any_of(conf.schedulerParameters.begin(), conf.schedulerParameters.end(),
                                [](const std::string& item) { return item.rfind("requeue_delay=", 0) == 0; });
    if (!delaySet) conf.requeueDelaySec = 0;
    REQUIRE(store.open(db).ok());
    clock.set(TimePoint(std::chrono::seconds(1'000'000)));
    core = std::make_unique<core::ControllerCore>(
        io, core::CoreOptions{.conf = &conf, .clock = &clock, .store = &store, .agents = &agents,
                              .timers = &timers, .keepFinishedSeconds = keepFinishedSeconds,
                              .tick = tick, .switchCalls = switchCalls, .switchAnswers = switchAnswers,
                              .accounting = accounting});
    REQUIRE(core->start().ok());
  }
  ~CoreHarness() {
    core->stop();
    settle();
    store.close();
  }

  // Starts a core call and runs the io_context until its reply arrives.
  template <typename T, typename Start>
  Result<T> await(Start start) {
    std::optional<Result<T>> answer;
    std::mutex m;
    start([&](Result<T> r) {
      std::lock_guard lock(m);
      answer.emplace(std::move(r));
    });
    for (int i = 0; i < 1000; ++i) {
      timers.runDue();
      io.poll();
      {
        std::lock_guard lock(m);
        if (answer) return std::move(*answer);
      }
      store.flush();  // the only work outside this thread: durable writes
    }
    FAIL("no answer from the core");
    return Error{"unreachable"};
  }

  // Runs everything that is due now: timers whose time has come, queued
  // work on the core's strand, and store writes with their answers.
  void settle() {
    for (int i = 0; i < 1000; ++i) {
      timers.runDue();
      store.flush();
      if (io.poll() == 0) return;
    }
  }

  // Moves simulated time forward, running every tick on the way.
  void advance(std::chrono::milliseconds d) {
    const auto step = std::chrono::milliseconds(500);
    while (d > std::chrono::milliseconds::zero()) {
      auto now = std::min(d, step);
      timers.advance(now);
      settle();
      d -= now;
    }
  }

  void registerNodes(std::initializer_list<const char*> names = {"n1", "n2"}) {
    for (const char* name : names) {
      v1::RegisterRequest request;
      request.set_node_name(name);
      REQUIRE(await<v1::RegisterResponse>([&](auto reply) { core->registerNode(request, reply); }).ok());
    }
  }

  void heartbeat(const std::string& node) {
    v1::HeartbeatRequest beat;
    beat.set_node_name(node);
    REQUIRE(await<v1::HeartbeatResponse>([&](auto reply) { core->heartbeat(beat, reply); }).ok());
  }

  Result<uint64_t> submit(v1::JobSpec spec, const auth::Identity& caller) {
    v1::SubmitJobRequest request;
    *request.mutable_spec() = std::move(spec);
    auto answer = await<v1::SubmitJobResponse>([&](auto reply) { core->submitJob(request, caller, reply); });
    if (!answer) return Error{answer.error()};
    return answer->job_id();
  }

  v1::Job job(uint64_t id) {
    v1::ListJobsRequest request;
    request.add_job_ids(id);
    auto answer = await<v1::ListJobsResponse>([&](auto reply) { core->listJobs(request, reply); });
    REQUIRE(answer.ok());
    REQUIRE(answer->jobs_size() == 1);
    return answer->jobs(0);
  }

  // The node reports the end of one of a job's steps.
  void stepEnded(uint64_t jobId, const std::string& stepId, const std::string& node, int exitCode) {
    v1::StepCompleteRequest request;
    request.set_node_name(node);
    request.set_job_id(jobId);
    request.set_step_id(stepId);
    request.set_exit_code(exitCode);
    REQUIRE(await<v1::StepCompleteResponse>([&](auto reply) { core->stepComplete(request, reply); }).ok());
  }

  std::string db;
  config::GantryConf conf;
  ManualClock clock;
  ManualTimerQueue timers{clock};
  store::JobStore store;
  RecordingGateway agents;
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> busy = boost::asio::make_work_guard(io);
  std::unique_ptr<core::ControllerCore> core;
};

}  // namespace gantry::testing
