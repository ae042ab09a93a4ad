// Gang scheduling through the controller core, in simulated time: the
// spec's squeue transcripts on topologies of our own (states after each
// slice, run times accumulated), GPUs never shared, the administrator's
// suspensions, suspends acknowledged before joining jobs resume, time limits
// counting only run time, a restart mid-slice and a reconfigure that
// changes OverSubscribe.
#include "tests/unit/controller/core/core_harness.h"

#include <algorithm>

using namespace gantry;
using testing::tempDb;

namespace {

constexpr int kSlice = 20;  // SchedulerTimeSlice of these tests (the default is 30)
const auth::Identity kUser{.uid = 1500, .gid = 1500, .user = "ines"};

// Four whole nodes of select/linear, timesliced three deep.
config::GantryConf linearConf(const std::string& overSubscribe = "OverSubscribe=FORCE:3") {
  return testing::parseConf("ClusterName=unit\nSlurmdTimeout=3600\nSchedulerType=sched/gang\nSchedulerTimeSlice=" +
                            std::to_string(kSlice) +
                            "\nSelectType=select/linear\n"
                            "NodeName=g[1-4] CPUs=4 CoresPerSocket=4 RealMemory=4000\n"
                            "PartitionName=ts Nodes=g[1-4] Default=YES MaxTime=600 " + overSubscribe + "\n");
}

// Two six-core nodes of cons_tres (`params`: SelectTypeParameters).
config::GantryConf coreConf(const std::string& params) {
  return testing::parseConf("ClusterName=unit\nSlurmdTimeout=3600\nPreemptMode=SUSPEND,GANG\nSchedulerTimeSlice=" +
                            std::to_string(kSlice) + "\nSelectTypeParameters=" + params +
                            "\nNodeName=c[1-2] CPUs=6 CoresPerSocket=6 RealMemory=6000\n"
                            "PartitionName=ts Nodes=c[1-2] Default=YES MaxTime=600 Shared=FORCE:2\n");
}

// `perNode` tasks of one CPU on each of `nodes` nodes (0: one task per node).
v1::JobSpec job(int nodes, int perNode = 0) {
  v1::JobSpec spec;
  spec.set_name("load");
  spec.set_script("#!/bin/sh\nsleep 600\n");
  spec.set_min_nodes(nodes);
  spec.set_max_nodes(nodes);
  if (perNode > 0) {
    spec.set_ntasks(nodes * perNode);
    spec.set_ntasks_per_node(perNode);
  }
  return spec;
}

struct GangHarness : testing::CoreHarness {
  explicit GangHarness(config::GantryConf configuration, std::string dbPath = tempDb())
      : CoreHarness(std::move(configuration), std::move(dbPath)) {}

  uint64_t submitted(v1::JobSpec spec) {
    auto id = submit(std::move(spec), kUser);
    REQUIRE(id.ok());
    settle();
    return *id;
  }
  void slice() { advance(std::chrono::seconds(kSlice)); }
  int64_t nowSeconds() { return toUnixSeconds(clock.now()); }

  // squeue's state letter.
  char state(uint64_t id) {
    switch (job(id).state()) {
      case v1::RUNNING: return 'R';
      case v1::SUSPENDED: return 'S';
      case v1::PENDING: return 'P';
      default: return '?';
    }
  }
  // squeue's TIME: run time only, suspensions excluded.
  int64_t ran(uint64_t id) {
    v1::Job j = job(id);
    if (j.state() == v1::SUSPENDED) return j.pre_suspend_seconds();
    if (j.state() != v1::RUNNING) return 0;
    return j.pre_suspend_seconds() + nowSeconds() - std::max(j.start_time(), j.suspend_time());
  }
  std::string states(std::initializer_list<uint64_t> ids) {
    std::string out;
    for (uint64_t id : ids) out += state(id);
    return out;
  }
  size_t batchLaunchesOf(uint64_t id) {
    size_t n = 0;
    for (const auto& launch : agents.launchesOf("batch")) n += launch.job_id() == id ? 1 : 0;
    return n;
  }
};

}  // namespace

TEST_CASE("gang: two jobs on the same whole nodes alternate every slice", "[gang][core]") {
  GangHarness h(linearConf());
  h.registerNodes({"g1", "g2", "g3", "g4"});
  uint64_t a = h.submitted(job(4));
  h.advance(std::chrono::seconds(5));
  uint64_t b = h.submitted(job(4));

  CHECK(h.states({a, b}) == "RS");
  CHECK(h.job(b).reason() == "GangTimeslice");
  CHECK(h.ran(b) == 0);
  // The job allocated suspended runs nothing until its turn.
  CHECK(h.batchLaunchesOf(b) == 0);

  h.advance(std::chrono::seconds(kSlice - 5));
  CHECK(h.states({a, b}) == "SR");
  CHECK(h.batchLaunchesOf(b) == 1);
  CHECK(std::count(h.agents.suspended.begin(), h.agents.suspended.end(), a) == 4);  // on each node

  h.slice();
  CHECK(h.states({a, b}) == "RS");
  CHECK(std::count(h.agents.resumed.begin(), h.agents.resumed.end(), a) == 4);
  CHECK(h.job(b).reason() == "GangTimeslice");

  h.slice();
  CHECK(h.states({a, b}) == "SR");
  CHECK(h.ran(a) == 2 * kSlice);
  CHECK(h.ran(b) == kSlice);  // its first slice; it has just been resumed
  // A resumed job is thawed, never launched twice.
  CHECK(h.batchLaunchesOf(b) == 1);
}

TEST_CASE("gang: a job beside the rotating pair runs through every slice", "[gang][core]") {
  GangHarness h(linearConf());
  h.registerNodes({"g1", "g2", "g3", "g4"});
  uint64_t wide = h.submitted(job(3));
  uint64_t side = h.submitted(job(1));
  uint64_t other = h.submitted(job(3));
  CHECK(h.states({wide, side, other}) == "RRS");
  for (int slice = 1; slice <= 4; ++slice) {
    h.slice();
    CHECK(h.state(side) == 'R');
    CHECK(h.states({wide, other}) == (slice % 2 == 1 ? "SR" : "RS"));
  }
  CHECK(h.ran(side) == 4 * kSlice);
  CHECK(h.ran(wide) == 2 * kSlice);
  CHECK(h.ran(other) == 2 * kSlice);
}

TEST_CASE("gang: a small job fitting beside the running one starts at once (local backfill)", "[gang][core]") {
  GangHarness h(linearConf());
  h.registerNodes({"g1", "g2", "g3", "g4"});
  uint64_t half = h.submitted(job(2));
  uint64_t all = h.submitted(job(4));
  uint64_t small = h.submitted(job(2));
  CHECK(h.states({half, all, small}) == "RSR");
  h.slice();
  CHECK(h.states({half, all, small}) == "SRS");
  h.slice();
  CHECK(h.states({half, all, small}) == "RSR");
}

TEST_CASE("gang: under CR_Core only the jobs sharing cores alternate", "[gang][core]") {
  GangHarness h(coreConf("CR_Core_Memory"));
  h.registerNodes({"c1", "c2"});
  // Two cores per node each: three jobs fill the nodes, two more share cores.
  std::vector<uint64_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(h.submitted(job(2, 2)));
  CHECK(h.states({ids[0], ids[1], ids[2], ids[3], ids[4]}) == "RRRSS");
  int suspendedThird = 0;
  for (int slice = 0; slice < 4; ++slice) {
    h.slice();
    int running = 0;
    for (uint64_t id : ids) running += h.state(id) == 'R' ? 1 : 0;
    CHECK(running == 3);  // no idle core while jobs wait
    suspendedThird += h.state(ids[2]) == 'S' ? 1 : 0;
  }
  // The job whose cores nobody shares never stops.
  CHECK(suspendedThird == 0);
  CHECK(h.ran(ids[2]) == 4 * kSlice);
  for (uint64_t id : {ids[0], ids[1], ids[3], ids[4]}) CHECK(h.ran(id) == 2 * kSlice);
}

TEST_CASE("gang: under CR_CPU every sharer takes turns and run times even out", "[gang][core]") {
  GangHarness h(coreConf("CR_CPU_Memory"));
  h.registerNodes({"c1", "c2"});
  std::vector<uint64_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(h.submitted(job(2, 2)));
  CHECK(h.states({ids[0], ids[1], ids[2], ids[3], ids[4]}) == "RRRSS");
  // Three jobs run per slice: after five slices each ran three.
  for (int slice = 0; slice < 5; ++slice) h.slice();
  for (uint64_t id : ids) CHECK(h.ran(id) == 3 * kSlice);
}

TEST_CASE("gang: two GPU jobs on a FORCE partition hold different GPUs; a third waits PENDING", "[gang][core]") {
  GangHarness h(testing::parseConf(
      "ClusterName=unit\nSlurmdTimeout=3600\nSchedulerType=sched/gang\nSchedulerTimeSlice=20\nGresTypes=gpu\n"
      "NodeName=d1 CPUs=4 CoresPerSocket=4 RealMemory=8000 Gres=gpu:2\n"
      "PartitionName=ts Nodes=d1 Default=YES MaxTime=600 OverSubscribe=FORCE:4\n"));
  v1::RegisterRequest registration;
  registration.set_node_name("d1");
  for (int i = 0; i < 2; ++i) {
    v1::GresDevice* gpu = registration.mutable_hardware()->add_gres();
    gpu->set_name("gpu");
    gpu->add_files("/dev/nvidia" + std::to_string(i));
    gpu->set_count(1);
  }
  REQUIRE(h.await<v1::RegisterResponse>([&](auto reply) { h.core->registerNode(registration, reply); }).ok());
  auto gpuJob = [] {
    v1::JobSpec spec = job(1, 4);  // every CPU of the node: the jobs must share them
    v1::GresRequest* gres = spec.add_gres();
    gres->set_name("gpu");
    gres->set_count(1);
    return spec;
  };
  uint64_t first = h.submitted(gpuJob());
  uint64_t second = h.submitted(gpuJob());
  uint64_t third = h.submitted(gpuJob());
  CHECK(h.states({first, second, third}) == "RSP");
  REQUIRE(h.job(first).allocation_size() == 1);
  REQUIRE(h.job(second).allocation_size() == 1);
  CHECK(h.job(first).allocation(0).devices_size() == 1);
  CHECK(h.job(second).allocation(0).devices_size() == 1);
  CHECK(h.job(first).allocation(0).devices(0) != h.job(second).allocation(0).devices(0));
  h.slice();
  CHECK(h.states({first, second, third}) == "SRP");
}

TEST_CASE("gang: an administrator's suspension is never undone by the timeslicer", "[gang][core]") {
  GangHarness h(linearConf());
  h.registerNodes({"g1", "g2", "g3", "g4"});
  uint64_t a = h.submitted(job(4));
  uint64_t b = h.submitted(job(4));
  auto admin = auth::Identity{.uid = 0, .gid = 0, .user = "root"};
  auto act = [&](core::ControllerCore::JobAction action, uint64_t id) {
    return h.await<Ok>([&](auto reply) { h.core->jobAction(action, id, "", admin, reply); });
  };
  REQUIRE(act(core::ControllerCore::JobAction::Suspend, a).ok());
  h.settle();
  // Its place goes to the waiting job at once.
  CHECK(h.states({a, b}) == "SR");
  CHECK(h.job(a).reason() == "None");
  for (int slice = 0; slice < 3; ++slice) {
    h.slice();
    CHECK(h.states({a, b}) == "SR");
  }
  // Resumed while the other runs on its nodes: it waits for its turn.
  REQUIRE(act(core::ControllerCore::JobAction::Resume, a).ok());
  h.settle();
  CHECK(h.states({a, b}) == "SR");
  CHECK(h.job(a).reason() == "GangTimeslice");
  h.slice();
  CHECK(h.states({a, b}) == "RS");
}

TEST_CASE("gang: an administrator may suspend a job the timeslicer suspended; it then stays", "[gang][core]") {
  GangHarness h(linearConf());
  h.registerNodes({"g1", "g2", "g3", "g4"});
  uint64_t a = h.submitted(job(4));
  uint64_t b = h.submitted(job(4));
  auto admin = auth::Identity{.uid = 0, .gid = 0, .user = "root"};
  REQUIRE(h.await<Ok>([&](auto reply) { h.core->jobAction(core::ControllerCore::JobAction::Suspend, b, "", admin, reply); }).ok());
  for (int slice = 0; slice < 2; ++slice) {
    h.slice();
    CHECK(h.states({a, b}) == "RS");
  }
  CHECK(h.batchLaunchesOf(b) == 0);
  // Resumed, it takes its turn, and starts then.
  REQUIRE(h.await<Ok>([&](auto reply) { h.core->jobAction(core::ControllerCore::JobAction::Resume, b, "", admin, reply); }).ok());
  h.slice();
  CHECK(h.states({a, b}) == "SR");
  CHECK(h.batchLaunchesOf(b) == 1);
}

TEST_CASE("gang: joining jobs resume only after the suspensions on their nodes are acknowledged", "[gang][core]") {
  GangHarness h(linearConf());
  h.registerNodes({"g1", "g2", "g3", "g4"});
  uint64_t a = h.submitted(job(4));
  uint64_t b = h.submitted(job(4));
  h.slice();  // b is launched
  h.slice();  // a back
  REQUIRE(h.states({a, b}) == "RS");
  h.agents.holdSuspendAnswers = true;
  size_t resumesBefore = h.agents.resumed.size();
  h.slice();
  // a is suspended; b waits, recorded as suspended, until a's nodes answer.
  CHECK(h.state(a) == 'S');
  CHECK(h.state(b) == 'S');
  CHECK(h.agents.resumed.size() == resumesBefore);
  h.agents.holdSuspendAnswers = false;
  h.agents.answerHeldSuspends();
  h.settle();
  CHECK(h.states({a, b}) == "SR");
  CHECK(std::count(h.agents.resumed.begin() + static_cast<long>(resumesBefore), h.agents.resumed.end(), b) == 4);
}

TEST_CASE("gang: the time limit counts only time spent running", "[gang][core]") {
  GangHarness h(linearConf());
  h.registerNodes({"g1", "g2", "g3", "g4"});
  v1::JobSpec limited = job(4);
  limited.set_time_limit_seconds(3 * kSlice);
  uint64_t a = h.submitted(limited);
  uint64_t b = h.submitted(job(4));
  // a runs in slices 1, 3 and 5: it reaches its limit at the end of slice 5.
  for (int slice = 0; slice < 4; ++slice) h.slice();
  CHECK(h.state(a) == 'R');
  CHECK(h.ran(a) == 2 * kSlice);
  h.advance(std::chrono::seconds(kSlice - 2));
  CHECK(h.state(a) == 'R');
  h.advance(std::chrono::seconds(3));
  CHECK(h.job(a).state() == v1::TIMEOUT);
  CHECK(h.job(a).pre_suspend_seconds() == 3 * kSlice);
  // Its end lets the waiting job run without waiting for the slice.
  CHECK(h.state(b) == 'R');
}

TEST_CASE("gang: srun into a gang-suspended allocation is told to retry", "[gang][core]") {
  GangHarness h(linearConf());
  h.registerNodes({"g1", "g2", "g3", "g4"});
  (void)h.submitted(job(4));
  uint64_t b = h.submitted(job(4));
  v1::CreateStepRequest request;
  request.set_job_id(b);
  request.mutable_spec()->set_ntasks(1);
  request.add_argv("true");
  request.mutable_io()->set_addr("login1");
  request.mutable_io()->set_port(4567);
  request.mutable_io()->set_token("secret");
  auto refused = h.await<v1::CreateStepResponse>([&](auto reply) { h.core->createStep(request, kUser, reply); });
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error() == "Job step creation temporarily disabled, retrying");
  h.slice();
  CHECK(h.await<v1::CreateStepResponse>([&](auto reply) { h.core->createStep(request, kUser, reply); }).ok());
}

TEST_CASE("gang: a restart mid-slice keeps each job's state and the rotation goes on", "[gang][core]") {
  std::string db = tempDb();
  uint64_t a = 0, b = 0, c = 0;
  {
    GangHarness h(linearConf(), db);
    h.registerNodes({"g1", "g2", "g3", "g4"});
    a = h.submitted(job(4));
    b = h.submitted(job(4));
    c = h.submitted(job(4));
    h.slice();  // b runs; a and c wait, a the longest
    h.advance(std::chrono::seconds(kSlice / 2));
    REQUIRE(h.states({a, b, c}) == "SRS");
  }
  GangHarness h(linearConf(), db);
  CHECK(h.states({a, b, c}) == "SRS");
  // The agents come back with the batch steps of a (suspended) and b; c,
  // allocated suspended, was never launched and is not lost for that.
  for (const char* name : {"g1", "g2", "g3", "g4"}) {
    v1::RegisterRequest request;
    request.set_node_name(name);
    for (uint64_t id : {a, b}) {
      auto* step = request.add_running();
      step->set_job_id(id);
      step->set_step_id("batch");
    }
    REQUIRE(h.await<v1::RegisterResponse>([&](auto reply) { h.core->registerNode(request, reply); }).ok());
  }
  h.settle();
  CHECK(h.states({a, b, c}) == "SRS");
  // One slice after the restart the job that waited longest (c, allocated
  // suspended) runs, as it would have without the restart; then a.
  h.slice();
  CHECK(h.states({a, b, c}) == "SSR");
  h.slice();
  CHECK(h.states({a, b, c}) == "RSS");
}

TEST_CASE("gang: reconfigure applies a partition's new OverSubscribe without a restart", "[gang][core]") {
  GangHarness h(linearConf("OverSubscribe=NO"));
  h.registerNodes({"g1", "g2", "g3", "g4"});
  uint64_t a = h.submitted(job(4));
  uint64_t b = h.submitted(job(4));
  CHECK(h.states({a, b}) == "RP");
  REQUIRE(h.await<Ok>([&](auto reply) { h.core->reconfigure(linearConf("OverSubscribe=FORCE:2"), reply); }).ok());
  h.settle();
  CHECK(h.states({a, b}) == "RS");
  h.slice();
  CHECK(h.states({a, b}) == "SR");
  // Back to no sharing: the two keep rotating until one ends; a new job waits.
  REQUIRE(h.await<Ok>([&](auto reply) { h.core->reconfigure(linearConf("OverSubscribe=NO"), reply); }).ok());
  uint64_t c = h.submitted(job(1));
  CHECK(h.state(c) == 'P');
  h.slice();
  CHECK(h.states({a, b, c}) == "RSP");
}

TEST_CASE("gang: without gang scheduling a FORCE partition shares CPUs but never suspends", "[gang][core]") {
  auto conf = testing::parseConf("ClusterName=unit\nSlurmdTimeout=3600\nSelectType=select/linear\n"
                                 "NodeName=g[1-2] CPUs=4 CoresPerSocket=4 RealMemory=4000\n"
                                 "PartitionName=ts Nodes=g[1-2] Default=YES MaxTime=600 OverSubscribe=FORCE:2\n");
  GangHarness h(conf);
  h.registerNodes({"g1", "g2"});
  uint64_t a = h.submitted(job(2));
  uint64_t b = h.submitted(job(2));
  uint64_t c = h.submitted(job(2));
  CHECK(h.states({a, b, c}) == "RRP");
  h.slice();
  CHECK(h.states({a, b, c}) == "RRP");
}

TEST_CASE("gang: two timesliced partitions on the same nodes never share a CPU", "[gang][core]") {
  GangHarness h(testing::parseConf(
      "ClusterName=unit\nSlurmdTimeout=3600\nSchedulerType=sched/gang\nSchedulerTimeSlice=20\n"
      "NodeName=s1 CPUs=4 CoresPerSocket=4 RealMemory=4000\n"
      "PartitionName=red Nodes=s1 Default=YES MaxTime=600 OverSubscribe=FORCE:2\n"
      "PartitionName=blue Nodes=s1 MaxTime=600 OverSubscribe=FORCE:2\n"));
  h.registerNodes({"s1"});
  uint64_t red = h.submitted(job(1, 4));
  v1::JobSpec blueSpec = job(1, 4);
  blueSpec.set_partition("blue");
  uint64_t blue = h.submitted(blueSpec);
  // The blue job could share only red's CPUs, which red's timeslicer
  // alone rotates: it waits instead of running beside the red job.
  CHECK(h.states({red, blue}) == "RP");
  uint64_t redToo = h.submitted(job(1, 4));
  CHECK(h.state(redToo) == 'S');
}

TEST_CASE("gang: StartTime stays, SuspendTime is the last switch, SecsPreSuspend the run before it", "[gang][core]") {
  GangHarness h(linearConf());
  h.registerNodes({"g1", "g2", "g3", "g4"});
  int64_t t0 = h.nowSeconds();
  uint64_t a = h.submitted(job(4));
  uint64_t b = h.submitted(job(4));
  h.slice();  // a suspended at the first slice end
  int64_t firstSwitch = h.nowSeconds();
  h.slice();  // a resumed
  h.advance(std::chrono::seconds(7));
  v1::Job running = h.job(a);
  CHECK(running.start_time() == t0);
  CHECK(running.suspend_time() == firstSwitch + kSlice);
  CHECK(h.ran(a) == (firstSwitch - t0) + 7);
  h.advance(std::chrono::seconds(kSlice - 7));  // a suspended again
  v1::Job suspended = h.job(a);
  CHECK(suspended.state() == v1::SUSPENDED);
  CHECK(suspended.pre_suspend_seconds() == (firstSwitch - t0) + kSlice);
  CHECK(suspended.suspend_time() == h.nowSeconds());
  CHECK(suspended.suspended_seconds() == kSlice);
  CHECK(h.job(b).start_time() == t0);  // allocated (suspended) at submission
}

TEST_CASE("gang: in an OverSubscribe=YES partition only -s/--oversubscribe jobs share, and they take turns",
          "[gang][core]") {
  GangHarness h(testing::parseConf(
      "ClusterName=unit\nSlurmdTimeout=3600\nSchedulerType=sched/gang\nSchedulerTimeSlice=20\n"
      "NodeName=y1 CPUs=3 CoresPerSocket=3 RealMemory=3000\n"
      "PartitionName=yes Nodes=y1 Default=YES MaxTime=600 OverSubscribe=YES:2\n"));
  h.registerNodes({"y1"});
  auto sharing = [] {
    v1::JobSpec spec = job(1, 3);
    spec.set_oversubscribe(true);
    return spec;
  };
  uint64_t first = h.submitted(sharing());
  uint64_t second = h.submitted(sharing());
  uint64_t plain = h.submitted(job(1, 1));
  CHECK(h.states({first, second, plain}) == "RSP");
  h.slice();
  CHECK(h.states({first, second, plain}) == "SRP");
  h.await<v1::CancelJobResponse>([&](auto reply) {
    v1::CancelJobRequest request;
    request.add_job_ids(first);
    request.add_job_ids(second);
    h.core->cancelJob(request, kUser, reply);
  });
  h.settle();
  CHECK(h.state(plain) == 'R');
  // A job that may share does not get the CPUs of one that may not.
  uint64_t late = h.submitted(sharing());
  CHECK(h.states({plain, late}) == "RP");
}
