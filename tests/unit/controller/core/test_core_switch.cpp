// switch/lua through the controller core, in simulated time: a fake
// SwitchCalls stands in for the process runner and answers each call by
// hand, so every rule of the job and node consequences is checked without a
// process or a Lua state: CONFIGURING until job_start reports, requeue or
// cancel on a failed setup, teardown holds (COMPLETING), retries at the
// periodic check, drains, a job ending during its setup, restarts and
// reconfigures, and what each step launch carries.
#include "tests/unit/controller/core/core_harness.h"

#include <algorithm>

#include "common/util/sluid.h"

using namespace gantry;
using testing::CoreHarness;
using testing::tempDb;
using interconnect::SetupAnswer;
using interconnect::TeardownAnswer;

namespace {

constexpr int kTimeout = 7;  // switch_timeout of these tests (the default is 60)
const auth::Identity kUser{.uid = 1720, .gid = 1720, .user = "oskar"};

// Three four-core nodes; `extra` lines first.
config::GantryConf switchConf(const std::string& extra = "") {
  return testing::parseConf("ClusterName=fabric\nSlurmdTimeout=3600\nSwitchType=switch/lua\n"
                            "SlurmctldParameters=switch_timeout=" + std::to_string(kTimeout) +
                            ",switch_retries=2\n" + extra +
                            "NodeName=f[1-3] CPUs=4 CoresPerSocket=4 RealMemory=4000\n"
                            "PartitionName=main Nodes=f[1-3] Default=YES MaxTime=600\n");
}

// The same nodes after a restart without switch/lua.
config::GantryConf withoutSwitch() {
  return testing::parseConf("ClusterName=fabric\nSlurmdTimeout=3600\n"
                            "NodeName=f[1-3] CPUs=4 CoresPerSocket=4 RealMemory=4000\n"
                            "PartitionName=main Nodes=f[1-3] Default=YES MaxTime=600\n");
}

// One node as the core lists it.
v1::Node nodeOf(CoreHarness& h, const std::string& name) {
  v1::ListNodesRequest request;
  auto nodes = h.await<v1::ListNodesResponse>([&](auto reply) { h.core->listNodes(request, reply); });
  REQUIRE(nodes.ok());
  for (const auto& n : nodes->nodes()) {
    if (n.name() == name) return n;
  }
  FAIL("no node " << name);
  return {};
}

// Answers calls by hand. kill() reports the call as the runner does: as a
// death on a signal.
class FakeSwitchCalls final : public core::SwitchCalls {
 public:
  struct Call {
    uint64_t handle = 0;
    core::SwitchCallOrder order;
    Done done;
    bool killed = false;
    bool answered = false;
  };

  uint64_t start(core::SwitchCallOrder order, Done done) override {
    calls.push_back(Call{.handle = nextHandle, .order = std::move(order), .done = std::move(done)});
    return nextHandle++;
  }
  void kill(uint64_t handle) override {
    Call* call = find(handle);
    if (call == nullptr || call->answered) return;
    call->killed = true;
    if (call->order.function == core::SwitchCallOrder::Function::JobStart) {
      finish(*call, SetupAnswer::signalled("SIGKILL"));
    } else {
      finish(*call, TeardownAnswer::signalled("SIGKILL"));
    }
  }

  // The newest unanswered call of this kind for the job.
  Call* open(uint64_t job, core::SwitchCallOrder::Function function) {
    for (auto it = calls.rbegin(); it != calls.rend(); ++it) {
      if (it->order.job.jobId == job && it->order.function == function && !it->answered) return &*it;
    }
    return nullptr;
  }
  void answerSetup(uint64_t job, SetupAnswer answer) {
    Call* call = open(job, core::SwitchCallOrder::Function::JobStart);
    REQUIRE(call != nullptr);
    finish(*call, std::move(answer));
  }
  void answerTeardown(uint64_t job, TeardownAnswer answer) {
    Call* call = open(job, core::SwitchCallOrder::Function::JobComplete);
    REQUIRE(call != nullptr);
    finish(*call, std::move(answer));
  }
  size_t count(uint64_t job, core::SwitchCallOrder::Function function) const {
    return std::count_if(calls.begin(), calls.end(), [&](const Call& call) {
      return call.order.job.jobId == job && call.order.function == function;
    });
  }
  size_t setups(uint64_t job) const { return count(job, core::SwitchCallOrder::Function::JobStart); }
  size_t teardowns(uint64_t job) const { return count(job, core::SwitchCallOrder::Function::JobComplete); }
  size_t killed() const {
    return std::count_if(calls.begin(), calls.end(), [](const Call& call) { return call.killed; });
  }
  const Call& last() const { return calls.back(); }

  std::vector<Call> calls;

 private:
  Call* find(uint64_t handle) {
    for (auto& call : calls)
      if (call.handle == handle) return &call;
    return nullptr;
  }
  template <typename Answer>
  void finish(Call& call, Answer answer) {
    call.answered = true;
    Done done = call.done;
    done(core::SwitchCallOutcome{.answer = std::move(answer), .log = {}});
  }
  uint64_t nextHandle = 1;
};

using Function = core::SwitchCallOrder::Function;

v1::JobSpec networkJob(int nodes, const std::string& network = "fabric:ib0") {
  v1::JobSpec spec;
  spec.set_name("solver");
  spec.set_script("#!/bin/sh\nsleep 600\n");
  spec.set_min_nodes(nodes);
  spec.set_max_nodes(nodes);
  spec.set_network(network);
  return spec;
}

struct SwitchHarness : CoreHarness {
  SwitchHarness(FakeSwitchCalls& fake, config::GantryConf configuration = switchConf(),
                core::SwitchScriptAnswers answers = {}, std::string dbPath = tempDb(), int64_t keepFinished = 300)
      : CoreHarness(std::move(configuration), std::move(dbPath), &fake, answers, keepFinished) {}

  uint64_t submitted(v1::JobSpec spec) {
    auto id = submit(std::move(spec), kUser);
    REQUIRE(id.ok());
    settle();
    return *id;
  }
  v1::JobState state(uint64_t id) { return job(id).state(); }
  v1::Node node(const std::string& name) { return nodeOf(*this, name); }
  void cancel(uint64_t id) {
    v1::CancelJobRequest request;
    request.add_job_ids(id);
    auto answer = await<v1::CancelJobResponse>([&](auto reply) { core->cancelJob(request, kUser, reply); });
    REQUIRE(answer.ok());
    settle();
  }
  // The batch script ends on its node (exit 0).
  void batchEnds(uint64_t id) {
    stepEnded(id, "batch", job(id).batch_host(), 0);
    settle();
  }
  size_t batchLaunchesOf(uint64_t id) {
    size_t n = 0;
    for (const auto& launch : agents.launchesOf("batch")) n += launch.job_id() == id ? 1 : 0;
    return n;
  }
  bool completing(const std::string& name) { return (node(name).state_flags() & v1::NODE_FLAG_COMPLETING) != 0; }
  bool drained(const std::string& name) { return (node(name).state_flags() & v1::NODE_FLAG_DRAIN) != 0; }
};

}  // namespace

// ---------------------------------------------------------------- setup

TEST_CASE("switch core: a --network job is CONFIGURING until job_start reports, then starts", "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake);
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(2));

  CHECK(h.state(id) == v1::CONFIGURING);
  REQUIRE(fake.setups(id) == 1);
  const auto& order = fake.last().order;
  CHECK(order.job.network == "fabric:ib0");
  CHECK(order.job.numNodes == 2);
  CHECK(order.job.nodes == "f[1-2]");
  CHECK(order.job.user == "oskar");
  CHECK(order.job.sluid == runSluid("fabric", id, 0));
  CHECK(h.batchLaunchesOf(id) == 0);  // nothing runs before the interconnect is set up

  fake.answerSetup(id, SetupAnswer::dictionary(R"({"vni":41})"));
  h.settle();
  CHECK(h.state(id) == v1::RUNNING);
  REQUIRE(h.batchLaunchesOf(id) == 1);
  auto launch = h.agents.launchesOf("batch").back();
  CHECK(launch.switch_managed());
  CHECK(launch.switch_stepinfo() == R"({"vni":41})");
  CHECK(launch.switch_sluid() == runSluid("fabric", id, 0));
  CHECK(h.job(id).switch_setup() == "configured");
  CHECK_FALSE(h.job(id).has_switch_state());  // listings never carry the dictionary
}

TEST_CASE("switch core: a job without --network is never set up", "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake);
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(1, ""));
  CHECK(h.state(id) == v1::RUNNING);
  CHECK(fake.calls.empty());
  h.batchEnds(id);
  CHECK(fake.calls.empty());
  CHECK_FALSE(h.agents.launchesOf("batch").back().switch_managed());
}

TEST_CASE("switch core: --test-only never runs job_start", "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake);
  h.registerNodes({"f1", "f2", "f3"});
  v1::SubmitJobRequest request;
  *request.mutable_spec() = networkJob(2);
  request.set_test_only(true);
  auto answer = h.await<v1::SubmitJobResponse>([&](auto reply) { h.core->submitJob(request, kUser, reply); });
  REQUIRE(answer.ok());
  h.settle();
  CHECK(fake.calls.empty());
}

TEST_CASE("switch core: a declined job runs unmanaged and is never torn down", "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake);
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(1));
  fake.answerSetup(id, SetupAnswer::declined());
  h.settle();
  CHECK(h.state(id) == v1::RUNNING);
  CHECK_FALSE(h.agents.launchesOf("batch").back().switch_managed());
  h.batchEnds(id);
  CHECK(h.state(id) == v1::COMPLETED);
  CHECK(fake.teardowns(id) == 0);
}

TEST_CASE("switch core: a failed setup requeues a batch job that may be requeued, and sets it up again",
          "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake);
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(3));
  fake.answerSetup(id, SetupAnswer::failed("returned -1"));
  h.settle();
  // Back to PENDING, placed again by the next pass, set up again.
  CHECK(h.job(id).restart_count() == 1);
  CHECK(fake.setups(id) == 2);
  CHECK(h.state(id) == v1::CONFIGURING);
  CHECK(fake.last().order.job.sluid == runSluid("fabric", id, 1));  // a new sluid for the new run
  CHECK(fake.teardowns(id) == 0);  // the function undid its own work
  for (const char* n : {"f1", "f2", "f3"}) CHECK_FALSE(h.drained(n));
}

TEST_CASE("switch core: a failed setup cancels a job that may not be requeued", "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake);
  h.registerNodes({"f1", "f2", "f3"});
  auto spec = networkJob(2);
  spec.set_no_requeue(true);
  uint64_t id = h.submitted(spec);
  fake.answerSetup(id, SetupAnswer::failed("a Lua error"));
  h.settle();
  auto job = h.job(id);
  CHECK(job.state() == v1::CANCELLED);
  CHECK(job.reason() == "switch setup failed");
  CHECK(fake.setups(id) == 1);
  CHECK(fake.teardowns(id) == 0);
  CHECK_FALSE(h.drained("f1"));
  CHECK(h.batchLaunchesOf(id) == 0);
}

TEST_CASE("switch core: a setup that does not report in time is killed, fails the job and is torn down with nil",
          "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake, switchConf("JobRequeue=0\n"));
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(1));
  h.advance(std::chrono::seconds(kTimeout - 1));
  CHECK(h.state(id) == v1::CONFIGURING);
  h.advance(std::chrono::seconds(2));
  CHECK(fake.killed() == 1);
  auto job = h.job(id);
  CHECK(job.state() == v1::CANCELLED);
  CHECK(job.reason() == "switch setup timed out");
  REQUIRE(fake.teardowns(id) == 1);
  CHECK_FALSE(fake.last().order.jobinfo.has_value());  // nothing says what the abandoned setup left
}

TEST_CASE("switch core: a refused dictionary fails the setup and is torn down with nil", "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake, switchConf("JobRequeue=0\n"));
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(1));
  fake.answerSetup(id, SetupAnswer::refused("table too large"));
  h.settle();
  CHECK(h.job(id).reason() == "switch setup failed");
  REQUIRE(fake.teardowns(id) == 1);
  CHECK_FALSE(fake.last().order.jobinfo.has_value());
}

// ---------------------------------------------------------------- teardown

TEST_CASE("switch core: the teardown gets the dictionary; unblocked nodes return at once", "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake);
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(3));
  fake.answerSetup(id, SetupAnswer::dictionary(R"({"ring":[1,2]})"));
  h.settle();
  h.batchEnds(id);
  CHECK(h.state(id) == v1::COMPLETED);
  REQUIRE(fake.teardowns(id) == 1);
  CHECK(fake.last().order.jobinfo == std::optional<std::string>(R"({"ring":[1,2]})"));
  CHECK(fake.last().order.job.nodes == "f[1-3]");
  CHECK_FALSE(h.completing("f1"));
  // The nodes take the next job while the teardown still runs.
  uint64_t next = h.submitted(networkJob(3, ""));
  CHECK(h.state(next) == v1::RUNNING);
  fake.answerTeardown(id, TeardownAnswer::success());
  h.settle();
  CHECK_FALSE(h.drained("f1"));
}

TEST_CASE("switch core: with block_job_complete the nodes stay COMPLETING until the teardown reports",
          "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake, switchConf(), core::SwitchScriptAnswers{.blockJobComplete = true});
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(2));
  fake.answerSetup(id, SetupAnswer::dictionary("{}"));
  h.settle();
  h.batchEnds(id);
  CHECK(h.completing("f1"));
  CHECK(h.completing("f2"));
  CHECK_FALSE(h.completing("f3"));
  CHECK(h.node("f1").state() == "IDLE+COMPLETING");
  CHECK(h.state(id) == v1::COMPLETING);
  uint64_t next = h.submitted(networkJob(2, ""));
  CHECK(h.state(next) == v1::PENDING);  // only f3 is free

  fake.answerTeardown(id, TeardownAnswer::success());
  h.settle();
  CHECK_FALSE(h.completing("f1"));
  CHECK(h.state(id) == v1::COMPLETED);
  CHECK(h.state(next) == v1::RUNNING);
}

TEST_CASE("switch core: a failed teardown drains the job's nodes unless switch_drain_on_failure=no",
          "[switch][core]") {
  for (bool drainOnFailure : {true, false}) {
    FakeSwitchCalls fake;
    SwitchHarness h(fake, switchConf(drainOnFailure ? "" : "SlurmctldParameters=switch_timeout=7,switch_drain_on_failure=no\n"));
    h.registerNodes({"f1", "f2", "f3"});
    uint64_t id = h.submitted(networkJob(2));
    fake.answerSetup(id, SetupAnswer::dictionary("{}"));
    h.settle();
    h.batchEnds(id);
    fake.answerTeardown(id, TeardownAnswer::failed("returned -1"));
    h.settle();
    CAPTURE(drainOnFailure);
    CHECK(h.drained("f1") == drainOnFailure);
    CHECK(h.drained("f2") == drainOnFailure);
    CHECK_FALSE(h.drained("f3"));
    if (drainOnFailure) CHECK(h.node("f1").reason() == "Switch job complete failed");
  }
}

TEST_CASE("switch core: EAGAIN keeps held nodes and retries at each periodic check, then drains", "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake, switchConf(), core::SwitchScriptAnswers{.blockJobComplete = true});
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(1));
  fake.answerSetup(id, SetupAnswer::dictionary("{}"));
  h.settle();
  h.batchEnds(id);
  std::string node = h.job(id).node_list();
  fake.answerTeardown(id, TeardownAnswer::again());
  h.settle();
  CHECK(h.completing(node));
  CHECK(fake.teardowns(id) == 1);
  // switch_retries=2: two more calls, one at each periodic check.
  h.advance(std::chrono::seconds(kTimeout + 1));
  REQUIRE(fake.teardowns(id) == 2);
  fake.answerTeardown(id, TeardownAnswer::again());
  h.settle();
  h.advance(std::chrono::seconds(kTimeout + 1));
  REQUIRE(fake.teardowns(id) == 3);
  CHECK_FALSE(h.drained(node));
  fake.answerTeardown(id, TeardownAnswer::again());
  h.settle();
  CHECK(h.drained(node));
  CHECK_FALSE(h.completing(node));
  h.advance(std::chrono::seconds(3 * kTimeout));
  CHECK(fake.teardowns(id) == 3);
}

TEST_CASE("switch core: EAGAIN on unheld nodes is a failure", "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake);
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(1));
  fake.answerSetup(id, SetupAnswer::dictionary("{}"));
  h.settle();
  h.batchEnds(id);
  std::string node = h.job(id).node_list();
  fake.answerTeardown(id, TeardownAnswer::again());
  h.settle();
  CHECK(h.drained(node));
  h.advance(std::chrono::seconds(2 * kTimeout));
  CHECK(fake.teardowns(id) == 1);
}

TEST_CASE("switch core: a job cancelled during its setup holds its nodes until the setup reports", "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake);  // block_job_complete false: held all the same
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(3));
  h.cancel(id);
  CHECK(h.completing("f1"));
  CHECK(h.state(id) == v1::COMPLETING);
  uint64_t next = h.submitted(networkJob(1, ""));
  CHECK(h.state(next) == v1::PENDING);

  fake.answerSetup(id, SetupAnswer::dictionary(R"({"k":1})"));
  h.settle();
  REQUIRE(fake.teardowns(id) == 1);
  CHECK(fake.last().order.jobinfo == std::optional<std::string>(R"({"k":1})"));
  CHECK(h.completing("f1"));  // and for the teardown that follows
  fake.answerTeardown(id, TeardownAnswer::success());
  h.settle();
  CHECK_FALSE(h.completing("f1"));
  CHECK(h.state(id) == v1::CANCELLED);
  CHECK(h.state(next) == v1::RUNNING);
}

TEST_CASE("switch core: a job cancelled during a setup that then declines frees its nodes with no teardown",
          "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake);
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(2));
  h.cancel(id);
  fake.answerSetup(id, SetupAnswer::declined());
  h.settle();
  CHECK(fake.teardowns(id) == 0);
  CHECK_FALSE(h.completing("f1"));
  CHECK(h.state(id) == v1::CANCELLED);
}

TEST_CASE("switch core: a job whose teardown holds nodes is not forgotten after MinJobAge", "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake, switchConf(), core::SwitchScriptAnswers{.blockJobComplete = true}, tempDb(), 2);
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(1));
  fake.answerSetup(id, SetupAnswer::dictionary("{}"));
  h.settle();
  h.batchEnds(id);
  h.advance(std::chrono::seconds(5));
  CHECK(h.state(id) == v1::COMPLETING);
  fake.answerTeardown(id, TeardownAnswer::success());
  h.settle();
  h.advance(std::chrono::seconds(5));
  v1::ListJobsRequest request;
  request.add_job_ids(id);
  auto answer = h.await<v1::ListJobsResponse>([&](auto reply) { h.core->listJobs(request, reply); });
  REQUIRE(answer.ok());
  CHECK(answer->jobs_size() == 0);
}

// ---------------------------------------------------------------- restarts

TEST_CASE("switch core: a setup outstanding at a restart runs again; the job stays CONFIGURING", "[switch][core]") {
  std::string db = tempDb();
  uint64_t id = 0;
  {
    FakeSwitchCalls fake;
    SwitchHarness h(fake, switchConf(), {}, db);
    h.registerNodes({"f1", "f2", "f3"});
    id = h.submitted(networkJob(2));
    CHECK(fake.setups(id) == 1);
  }  // the controller stops: the call is killed
  FakeSwitchCalls fake;
  SwitchHarness again(fake, switchConf(), {}, db);
  again.settle();
  CHECK(again.state(id) == v1::CONFIGURING);
  REQUIRE(fake.setups(id) == 1);
  fake.answerSetup(id, SetupAnswer::dictionary(R"({"again":true})"));
  again.settle();
  CHECK(again.state(id) == v1::RUNNING);
  CHECK(again.agents.launchesOf("batch").back().switch_stepinfo() == R"({"again":true})");
}

TEST_CASE("switch core: a held teardown at a restart runs again with the same jobinfo and its nodes held",
          "[switch][core]") {
  std::string db = tempDb();
  uint64_t id = 0;
  std::string node;
  {
    FakeSwitchCalls fake;
    SwitchHarness h(fake, switchConf(), core::SwitchScriptAnswers{.blockJobComplete = true}, db);
    h.registerNodes({"f1", "f2", "f3"});
    id = h.submitted(networkJob(1));
    fake.answerSetup(id, SetupAnswer::dictionary(R"({"port":9})"));
    h.settle();
    h.batchEnds(id);
    node = h.job(id).node_list();
    CHECK(h.completing(node));
  }
  FakeSwitchCalls fake;
  SwitchHarness again(fake, switchConf(), core::SwitchScriptAnswers{.blockJobComplete = true}, db);
  again.registerNodes({"f1", "f2", "f3"});
  REQUIRE(fake.teardowns(id) == 1);
  CHECK(fake.last().order.jobinfo == std::optional<std::string>(R"({"port":9})"));
  CHECK(again.completing(node));
  CHECK(again.state(id) == v1::COMPLETING);
  fake.answerTeardown(id, TeardownAnswer::success());
  again.settle();
  CHECK_FALSE(again.completing(node));
  CHECK(again.state(id) == v1::COMPLETED);
}

TEST_CASE("switch core: a held teardown cannot run again when switch/lua is gone: drained", "[switch][core]") {
  std::string db = tempDb();
  uint64_t id = 0;
  std::string node;
  {
    FakeSwitchCalls fake;
    SwitchHarness h(fake, switchConf(), core::SwitchScriptAnswers{.blockJobComplete = true}, db);
    h.registerNodes({"f1", "f2", "f3"});
    id = h.submitted(networkJob(1));
    fake.answerSetup(id, SetupAnswer::dictionary("{}"));
    h.settle();
    h.batchEnds(id);
    node = h.job(id).node_list();
  }
  CoreHarness again(withoutSwitch(), db);
  again.registerNodes({"f1", "f2", "f3"});
  v1::Node n = nodeOf(again, node);
  CHECK((n.state_flags() & v1::NODE_FLAG_DRAIN) != 0);
  CHECK(n.reason() == "Switch job complete failed");
}

TEST_CASE("switch core: a reconfigure kills the running calls and runs them again", "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake);
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(2));
  REQUIRE(fake.setups(id) == 1);
  auto applied = h.await<Ok>([&](auto reply) {
    h.core->reconfigure(switchConf(), core::SwitchScriptAnswers{.blockJobComplete = true}, reply);
  });
  REQUIRE(applied.ok());
  h.settle();
  CHECK(fake.killed() == 1);
  CHECK(fake.setups(id) == 2);
  CHECK(h.state(id) == v1::CONFIGURING);
  fake.answerSetup(id, SetupAnswer::dictionary("{}"));
  h.settle();
  CHECK(h.state(id) == v1::RUNNING);
  // The new answer applies: the teardown holds the nodes.
  h.batchEnds(id);
  CHECK(h.job(id).node_list() == "f[1-2]");
  CHECK(h.completing("f1"));
}

// ---------------------------------------------------------------- gang

TEST_CASE("switch core: gang scheduling waits for the setup before it suspends or starts a job", "[switch][core]") {
  FakeSwitchCalls fake;
  auto conf = testing::parseConf("ClusterName=fabric\nSlurmdTimeout=3600\nSwitchType=switch/lua\n"
                                 "SchedulerType=sched/gang\nSchedulerTimeSlice=10\nSelectType=select/linear\n"
                                 "NodeName=f[1-2] CPUs=4 CoresPerSocket=4 RealMemory=4000\n"
                                 "PartitionName=ts Nodes=f[1-2] Default=YES MaxTime=600 OverSubscribe=FORCE:2\n");
  SwitchHarness h(fake, conf);
  h.registerNodes({"f1", "f2"});
  uint64_t a = h.submitted(networkJob(2));
  uint64_t b = h.submitted(networkJob(2));
  CHECK(h.state(a) == v1::CONFIGURING);
  CHECK(h.state(b) == v1::CONFIGURING);
  fake.answerSetup(b, SetupAnswer::dictionary("{}"));
  h.settle();
  CHECK(h.state(b) == v1::SUSPENDED);  // its turn has not come: launched at its first resume
  CHECK(h.batchLaunchesOf(b) == 0);
  fake.answerSetup(a, SetupAnswer::dictionary("{}"));
  h.settle();
  CHECK(h.state(a) == v1::RUNNING);
  h.advance(std::chrono::seconds(11));
  CHECK(h.state(a) == v1::SUSPENDED);
  CHECK(h.state(b) == v1::RUNNING);
  CHECK(h.batchLaunchesOf(b) == 1);
}

TEST_CASE("switch core: an agent registering again while its job is CONFIGURING does not requeue the job",
          "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake);
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(2));
  REQUIRE(h.state(id) == v1::CONFIGURING);
  // As after scontrol reconfigure: the agents report no step of the job,
  // which was never launched.
  h.registerNodes({"f1", "f2"});
  h.settle();
  CHECK(h.state(id) == v1::CONFIGURING);
  CHECK(h.job(id).restart_count() == 0);
  CHECK(fake.setups(id) == 1);
  fake.answerSetup(id, SetupAnswer::dictionary("{}"));
  h.settle();
  CHECK(h.state(id) == v1::RUNNING);
  CHECK(h.batchLaunchesOf(id) == 1);
}

// ---------------------------------------------------------------- runs

TEST_CASE("switch core: the teardown of a requeued run describes that run, not the next one", "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake);
  h.registerNodes({"f1", "f2", "f3"});
  h.agents.failLaunches = 1;  // the first run's batch launch fails: requeued
  uint64_t id = h.submitted(networkJob(1));
  REQUIRE(fake.setups(id) == 1);
  std::string firstNodes = fake.last().order.job.nodes;
  fake.answerSetup(id, SetupAnswer::dictionary(R"({"run":0})"));
  h.settle();
  CHECK(h.job(id).restart_count() == 1);
  REQUIRE(fake.teardowns(id) == 1);
  const auto* teardown = fake.open(id, Function::JobComplete);
  REQUIRE(teardown != nullptr);
  CHECK(teardown->order.job.sluid == runSluid("fabric", id, 0));
  CHECK(teardown->order.job.restartCount == 0);
  CHECK(teardown->order.job.nodes == firstNodes);
  // The next run is set up with its own sluid, elsewhere (the first node drained).
  REQUIRE(fake.setups(id) == 2);
  const auto* setup = fake.open(id, Function::JobStart);
  REQUIRE(setup != nullptr);
  CHECK(setup->order.job.sluid == runSluid("fabric", id, 1));
  CHECK(setup->order.job.nodes != firstNodes);
}

TEST_CASE("switch core: a job requeued during its setup is placed again only once that setup has reported",
          "[switch][core]") {
  FakeSwitchCalls fake;
  SwitchHarness h(fake);
  h.registerNodes({"f1", "f2", "f3"});
  uint64_t id = h.submitted(networkJob(1));
  std::string node = h.job(id).node_list();
  v1::UpdateNodeRequest down;
  down.set_node_names(node);
  down.set_state("DOWN");
  down.set_reason("cabling");
  auto root = auth::Identity{.uid = 0, .gid = 0, .user = "root"};
  REQUIRE(h.await<v1::UpdateNodeResponse>([&](auto reply) { h.core->updateNode(down, root, reply); }).ok());
  h.settle();
  CHECK(h.state(id) == v1::PENDING);
  CHECK(fake.setups(id) == 1);  // not placed again while the old setup is out
  fake.answerSetup(id, SetupAnswer::declined());
  h.settle();
  CHECK(fake.setups(id) == 2);
  CHECK(h.state(id) == v1::CONFIGURING);
  CHECK(h.job(id).node_list() != node);
}

TEST_CASE("switch core: a run set up before a restart without switch/lua fails its teardown and drains",
          "[switch][core]") {
  std::string db = tempDb();
  uint64_t id = 0;
  {
    FakeSwitchCalls fake;
    SwitchHarness h(fake, switchConf(), {}, db);
    h.registerNodes({"f1", "f2", "f3"});
    id = h.submitted(networkJob(1));
    fake.answerSetup(id, SetupAnswer::dictionary("{}"));
    h.settle();
    REQUIRE(h.state(id) == v1::RUNNING);
  }
  CoreHarness again(withoutSwitch(), db);
  again.registerNodes({"f1", "f2", "f3"});
  std::string node = again.job(id).batch_host();
  again.stepEnded(id, "batch", node, 0);
  again.settle();
  CHECK(again.job(id).state() == v1::COMPLETED);
  CHECK(nodeOf(again, node).reason() == "Switch job complete failed");
}
