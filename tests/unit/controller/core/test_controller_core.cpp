// ControllerCore driven directly: a fake agent gateway records what the core
// asks of the nodes, a ManualClock drives time limits and heartbeats, and a
// real SQLite store in a temporary folder checks durability and recovery.
#include "tests/unit/controller/core/core_harness.h"

#include <csignal>
#include <ctime>

#include "common/util/sluid.h"

using namespace gantry;
using testing::twoNodeConf;
using testing::tempDb;

namespace {

// Jobs here are submitted by uid 1000 unless a test says otherwise.
struct Harness : testing::CoreHarness {
  using CoreHarness::CoreHarness;
  Harness(std::string dbPath, config::GantryConf configuration = twoNodeConf())
      : CoreHarness(std::move(configuration), std::move(dbPath)) {}

  Result<uint64_t> submit(v1::JobSpec spec, uint32_t uid = 1000) {
    return CoreHarness::submit(std::move(spec),
                               auth::Identity{.uid = uid, .gid = uid, .user = "u" + std::to_string(uid)});
  }
  void complete(uint64_t id, const std::string& node, int exitCode) { stepEnded(id, "batch", node, exitCode); }
};

v1::JobSpec sleepJob(int cpus = 1) {
  v1::JobSpec spec;
  spec.set_name("sleep");
  spec.set_script("#!/bin/sh\nsleep 100\n");
  spec.set_cpus_per_task(cpus);
  return spec;
}

}  // namespace

TEST_CASE("a submitted job runs once nodes register and completes on its step's exit code") {
  Harness h;
  auto id = h.submit(sleepJob());
  REQUIRE(id.ok());
  h.settle();
  CHECK(h.job(*id).state() == v1::PENDING);  // no node has registered yet
  h.registerNodes();
  h.settle();
  v1::Job job = h.job(*id);
  REQUIRE(job.state() == v1::RUNNING);
  REQUIRE(h.agents.launches.size() == 1);
  CHECK(h.agents.launches[0].second.step_id() == "batch");
  CHECK(h.agents.launches[0].second.uid() == 1000);
  h.complete(*id, job.batch_host(), 0);
  CHECK(h.job(*id).state() == v1::COMPLETED);
}

TEST_CASE("a non-zero exit code makes the job FAILED with its exit code") {
  Harness h;
  h.registerNodes();
  auto id = h.submit(sleepJob());
  h.settle();
  h.complete(*id, h.job(*id).batch_host(), 3);
  v1::Job job = h.job(*id);
  CHECK(job.state() == v1::FAILED);
  CHECK(job.exit_code() == 3);
}

TEST_CASE("jobs wait for cores and start when others end") {
  Harness h;
  h.registerNodes();
  auto a = h.submit(sleepJob(4));
  auto b = h.submit(sleepJob(4));
  auto c = h.submit(sleepJob(4));
  h.settle();
  CHECK(h.job(*a).state() == v1::RUNNING);
  CHECK(h.job(*b).state() == v1::RUNNING);
  CHECK(h.job(*c).state() == v1::PENDING);
  CHECK(h.job(*c).reason() == "Resources");
  h.complete(*a, h.job(*a).batch_host(), 0);
  h.settle();
  CHECK(h.job(*c).state() == v1::RUNNING);
}

TEST_CASE("a listing carries ReqTRES and AllocTRES only when asked") {
  Harness h;
  auto pending = h.submit(sleepJob(3));
  REQUIRE(pending.ok());
  h.settle();
  v1::ListJobsRequest request;
  request.add_job_ids(*pending);
  auto list = [&] {
    auto answer = h.await<v1::ListJobsResponse>([&](auto reply) { h.core->listJobs(request, reply); });
    REQUIRE(answer.ok());
    REQUIRE(answer->jobs_size() == 1);
    return answer->jobs(0);
  };
  CHECK(list().req_tres().empty());
  request.set_include_tres(true);
  CHECK(list().req_tres() == "cpu=3,node=1,billing=3");
  CHECK(list().alloc_tres().empty());  // nothing held while pending
  h.registerNodes();
  h.settle();
  REQUIRE(list().state() == v1::RUNNING);
  CHECK(list().alloc_tres() == "cpu=3,node=1,billing=3");
}

TEST_CASE("a request no node could ever serve is refused at submit") {
  Harness h;
  h.registerNodes();
  auto id = h.submit(sleepJob(64));
  REQUIRE_FALSE(id.ok());
  CHECK(id.error() == "Requested node configuration is not available");
}

TEST_CASE("bad partition, time limit and option values are refused with their reason") {
  Harness h;
  v1::JobSpec spec = sleepJob();
  spec.set_partition("nosuch");
  CHECK(h.submit(spec).error() == "invalid partition specified: nosuch");
  spec = sleepJob();
  spec.set_time_limit_minutes(61);
  CHECK_THAT(h.submit(spec).error(), Catch::Contains("time limit"));
  spec = sleepJob();
  spec.set_ntasks(-2);
  CHECK_THAT(h.submit(spec).error(), Catch::Contains("--ntasks"));
}

TEST_CASE("only the owner or an administrator may cancel a job") {
  Harness h;
  h.registerNodes();
  auto id = h.submit(sleepJob(), 1000);
  h.settle();
  v1::CancelJobRequest request;
  request.add_job_ids(*id);
  auto refused = h.await<v1::CancelJobResponse>([&](auto reply) {
    h.core->cancelJob(request, auth::Identity{.uid = 2000, .gid = 2000, .user = "other"}, reply);
  });
  REQUIRE(refused.ok());
  REQUIRE(refused->errors_size() == 1);
  CHECK_THAT(refused->errors(0), Catch::Contains("Access/permission denied"));
  CHECK(h.job(*id).state() == v1::RUNNING);
  auto done = h.await<v1::CancelJobResponse>([&](auto reply) {
    h.core->cancelJob(request, auth::Identity{.uid = 1000, .gid = 1000, .user = "u1000"}, reply);
  });
  REQUIRE(done.ok());
  CHECK(done->errors_size() == 0);
  CHECK(h.job(*id).state() == v1::CANCELLED);
  CHECK(h.agents.terminated.size() == 1);
}

TEST_CASE("a job past its time limit ends TIMEOUT and its nodes are told to stop it") {
  Harness h;
  h.registerNodes();
  v1::JobSpec spec = sleepJob();
  spec.set_time_limit_seconds(30);
  auto id = h.submit(spec);
  h.settle();
  REQUIRE(h.job(*id).state() == v1::RUNNING);
  // Nodes keep heartbeating (SlurmdTimeout is 10 s in this configuration).
  for (int i = 0; i < 29; ++i) {
    h.clock.advance(std::chrono::seconds(1));
    h.heartbeat("n1");
    h.heartbeat("n2");
  }
  h.settle();
  CHECK(h.job(*id).state() == v1::RUNNING);
  h.clock.advance(std::chrono::seconds(2));
  h.settle();
  CHECK(h.job(*id).state() == v1::TIMEOUT);
  CHECK_FALSE(h.agents.terminated.empty());
}

TEST_CASE("a node that stops heartbeating goes DOWN and its job is requeued") {
  Harness h;
  h.registerNodes();
  auto id = h.submit(sleepJob());
  h.settle();
  std::string host = h.job(*id).batch_host();
  std::string other = host == "n1" ? "n2" : "n1";
  // Only the other node keeps heartbeating.
  for (int i = 0; i < 4; ++i) {
    h.clock.advance(std::chrono::seconds(3));
    h.heartbeat(other);
    h.settle();
  }
  v1::ListNodesRequest request;
  request.add_names(host);
  auto nodes = h.await<v1::ListNodesResponse>([&](auto reply) { h.core->listNodes(request, reply); });
  REQUIRE(nodes.ok());
  CHECK(nodes->nodes(0).state().rfind("DOWN", 0) == 0);
  CHECK(nodes->nodes(0).reason() == "Not responding");
  v1::Job job = h.job(*id);
  CHECK(job.restart_count() == 1);
  // Requeued and started again on the node that is still up.
  CHECK(job.state() == v1::RUNNING);
  CHECK(job.batch_host() == other);
}

TEST_CASE("a requeued job waits out requeue_delay, BeginTime, before it starts again") {
  Harness h(twoNodeConf("SchedulerParameters=requeue_delay=20\n"));
  h.registerNodes();
  auto id = h.submit(sleepJob());
  h.settle();
  std::string host = h.job(*id).batch_host();
  std::string other = host == "n1" ? "n2" : "n1";
  // The batch host misses its heartbeats: after SlurmdTimeout (10 s) the
  // job is requeued at about t+12, and may start again 20 s later.
  int64_t elapsed = 0;
  auto wait = [&](int seconds) {
    for (int i = 0; i < seconds; ++i) {
      h.clock.advance(std::chrono::seconds(1));
      h.heartbeat(other);
      h.settle();
      ++elapsed;
    }
  };
  wait(12);
  v1::Job job = h.job(*id);
  REQUIRE(job.restart_count() == 1);
  CHECK(job.state() == v1::PENDING);
  CHECK(job.reason() == "BeginTime");
  int64_t requeuedAt = job.eligible_time() - 20;
  wait(static_cast<int>(requeuedAt + 19 - (1'000'000 + elapsed)));
  CHECK(h.job(*id).state() == v1::PENDING);  // one second short
  wait(2);
  job = h.job(*id);
  CHECK(job.state() == v1::RUNNING);
  CHECK(job.batch_host() == other);
}

TEST_CASE("a launch failure drains the node and requeues the job elsewhere") {
  Harness h;
  h.registerNodes();
  h.agents.failLaunches = 1;
  auto id = h.submit(sleepJob());
  h.settle();
  v1::Job job = h.job(*id);
  CHECK(job.restart_count() >= 1);
  v1::ListNodesRequest request;
  auto nodes = h.await<v1::ListNodesResponse>([&](auto reply) { h.core->listNodes(request, reply); });
  int drained = 0;
  for (const auto& node : nodes->nodes()) drained += node.state().find("DRAIN") != std::string::npos;
  CHECK(drained == 1);
  CHECK(job.state() == v1::RUNNING);
}

TEST_CASE("a restarted core recovers every acknowledged job and keeps running ones running") {
  std::string db = tempDb();
  uint64_t running = 0, pending = 0;
  {
    Harness h(db);
    h.registerNodes();
    running = *h.submit(sleepJob(4));
    h.settle();
    REQUIRE(h.job(running).state() == v1::RUNNING);
    v1::JobSpec held = sleepJob();
    held.set_hold(true);
    pending = *h.submit(held);
  }
  Harness again(db);
  CHECK(again.job(running).state() == v1::RUNNING);
  CHECK(again.job(pending).state() == v1::PENDING);
  // Ids continue after the recovered ones.
  again.registerNodes();
  auto next = again.submit(sleepJob());
  CHECK(*next == pending + 1);
}

TEST_CASE("suspend and resume are for administrators and keep the job's resources") {
  Harness h;
  h.registerNodes();
  auto id = h.submit(sleepJob(4));
  h.settle();
  auto user = auth::Identity{.uid = 1000, .gid = 1000, .user = "u1000"};
  auto root = auth::Identity{.uid = 0, .gid = 0, .user = "root"};
  auto refused = h.await<Ok>([&](auto reply) {
    h.core->jobAction(core::ControllerCore::JobAction::Suspend, *id, "", user, reply);
  });
  CHECK_FALSE(refused.ok());
  REQUIRE(h.await<Ok>([&](auto reply) {
            h.core->jobAction(core::ControllerCore::JobAction::Suspend, *id, "", root, reply);
          }).ok());
  CHECK(h.job(*id).state() == v1::SUSPENDED);
  CHECK(h.agents.suspended == std::vector<uint64_t>{*id});
  REQUIRE(h.await<Ok>([&](auto reply) {
            h.core->jobAction(core::ControllerCore::JobAction::Resume, *id, "", root, reply);
          }).ok());
  CHECK(h.job(*id).state() == v1::RUNNING);
}

TEST_CASE("reconfigure applies a new partition and refuses to drop a node") {
  Harness h;
  h.registerNodes();
  auto fresh = config::parseGantryConf(
      "ClusterName=unit\nSlurmdTimeout=10\n"
      "NodeName=n[1-2] CPUs=4 CoresPerSocket=4 RealMemory=1000\n"
      "PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=60\n"
      "PartitionName=short Nodes=n1 MaxTime=5\n",
      "fresh.conf");
  REQUIRE(fresh.ok());
  REQUIRE(h.await<Ok>([&](auto reply) { h.core->reconfigure(fresh->conf, reply); }).ok());
  v1::JobSpec spec = sleepJob();
  spec.set_partition("short");
  auto id = h.submit(spec);
  REQUIRE(id.ok());
  h.settle();
  CHECK(h.job(*id).batch_host() == "n1");

  auto smaller = config::parseGantryConf(
      "NodeName=n1 CPUs=4 CoresPerSocket=4 RealMemory=1000\nPartitionName=debug Nodes=n1 Default=YES\n",
      "smaller.conf");
  REQUIRE(smaller.ok());
  auto refused = h.await<Ok>([&](auto reply) { h.core->reconfigure(smaller->conf, reply); });
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error(), Catch::Contains("n2"));
  // The running configuration is untouched: "short" still exists.
  spec.set_partition("short");
  CHECK(h.submit(spec).ok());
}

TEST_CASE("--test-only says where and when a job would start and stores nothing") {
  Harness h;
  h.registerNodes();
  v1::JobSpec busy = sleepJob(4);
  busy.set_time_limit_seconds(600);
  auto a = h.submit(busy);
  auto b = h.submit(busy);
  h.settle();
  REQUIRE(h.job(*a).state() == v1::RUNNING);
  REQUIRE(h.job(*b).state() == v1::RUNNING);
  v1::SubmitJobRequest request;
  *request.mutable_spec() = sleepJob(2);
  request.set_test_only(true);
  auto answer = h.await<v1::SubmitJobResponse>([&](auto reply) {
    h.core->submitJob(request, auth::Identity{.uid = 1000, .gid = 1000, .user = "u"}, reply);
  });
  REQUIRE(answer.ok());
  CHECK(answer->job_id() == 0);
  // Both nodes are full until the first running job's limit ends.
  std::time_t when = 1'000'000 + 600;
  std::tm local{};
  localtime_r(&when, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &local);
  CHECK_THAT(answer->test_only_result(), Catch::Contains(std::string("to start at ") + text));
  CHECK_THAT(answer->test_only_result(), Catch::Contains("using 2 processors on nodes n"));
  // Nothing was stored: the next real job gets the next id.
  CHECK(*h.submit(sleepJob()) == *b + 1);
}

TEST_CASE("shard counts that do not add up to the node's Gres= drain it at registration") {
  auto loaded = config::parseGantryConf(
      "GresTypes=gpu,shard\n"
      "NodeName=s1 CPUs=4 CoresPerSocket=4 RealMemory=1000 Gres=gpu:1,shard:8\n"
      "PartitionName=debug Nodes=s1 Default=YES\n",
      "shard.conf");
  REQUIRE(loaded.ok());
  Harness h(tempDb(), loaded->conf);
  auto registerWith = [&](uint64_t shards) {
    v1::RegisterRequest request;
    request.set_node_name("s1");
    v1::GresDevice* gpu = request.mutable_hardware()->add_gres();
    gpu->set_name("gpu");
    gpu->add_files("/dev/nvidia0");
    gpu->set_count(1);
    v1::GresDevice* shard = request.mutable_hardware()->add_gres();
    shard->set_name("shard");
    shard->add_files("/dev/nvidia0");
    shard->set_count(shards);
    REQUIRE(h.await<v1::RegisterResponse>([&](auto reply) { h.core->registerNode(request, reply); }).ok());
    v1::ListNodesRequest list;
    return h.await<v1::ListNodesResponse>([&](auto reply) { h.core->listNodes(list, reply); })->nodes(0);
  };
  v1::Node bad = registerWith(4);
  CHECK(bad.state().find("DRAIN") != std::string::npos);
  CHECK_THAT(bad.reason(), Catch::Contains("shard"));
}

TEST_CASE("the highest device memory a step reports is kept per node and region") {
  Harness h;
  h.registerNodes();
  auto id = h.submit(sleepJob());
  h.settle();
  std::string node = h.job(*id).batch_host();
  auto report = [&](const std::string& step, uint64_t bytes) {
    v1::StepCompleteRequest request;
    request.set_node_name(node);
    request.set_job_id(*id);
    request.set_step_id(step);
    (*request.mutable_dmem_peak_bytes())["nvidia/0000:01:00/vidmem"] = bytes;
    REQUIRE(h.await<v1::StepCompleteResponse>([&](auto reply) { h.core->stepComplete(request, reply); }).ok());
  };
  report("7", 3'000'000'000);  // a step the core does not know: its peak still counts
  report("batch", 1'000'000'000);
  v1::Job job = h.job(*id);
  CHECK(job.state() == v1::COMPLETED);
  REQUIRE(job.dmem_peak_bytes().count(node + ":nvidia/0000:01:00/vidmem") == 1);
  CHECK(job.dmem_peak_bytes().at(node + ":nvidia/0000:01:00/vidmem") == 3'000'000'000);
}

TEST_CASE("a problem reported with a heartbeat drains the node with that reason") {
  Harness h;
  h.registerNodes();
  v1::HeartbeatRequest beat;
  beat.set_node_name("n2");
  beat.add_drain_reasons("job 9: epilog failed: exit 3");
  REQUIRE(h.await<v1::HeartbeatResponse>([&](auto reply) { h.core->heartbeat(beat, reply); }).ok());
  v1::ListNodesRequest request;
  request.add_names("n2");
  auto nodes = h.await<v1::ListNodesResponse>([&](auto reply) { h.core->listNodes(request, reply); });
  REQUIRE(nodes.ok());
  CHECK(nodes->nodes(0).state() == "IDLE+DRAIN");
  CHECK(nodes->nodes(0).reason() == "job 9: epilog failed: exit 3");
}

TEST_CASE("configuration problems drain the unregistered nodes they name and skip unknown names") {
  Harness h;
  h.core->drainForConfiguration({{"n2", "gres.conf:3: ChunkSizes needs File"}, {"nobody", "ignored"}});
  h.settle();
  h.registerNodes();
  h.core->drainForConfiguration({{"n1", "gres.conf:4: a registered node keeps working"}});
  h.settle();
  h.core->drainForConfiguration({{"n2", "gres.conf:3: ChunkSizes needs File"}});
  h.settle();
  v1::ListNodesRequest request;
  auto nodes = h.await<v1::ListNodesResponse>([&](auto reply) { h.core->listNodes(request, reply); });
  REQUIRE(nodes->nodes_size() == 2);
  for (const auto& node : nodes->nodes()) {
    if (node.name() == "n1") CHECK(node.state() == "IDLE");
    if (node.name() != "n2") continue;
    CHECK(node.state().find("DRAIN") != std::string::npos);
    CHECK(node.reason() == "gres.conf:3: ChunkSizes needs File");
  }
}

TEST_CASE("a stored job that a new configuration refuses waits with the reason") {
  const std::string nodes =
      "GresTypes=gpu\nNodeName=n[1-2] CPUs=4 CoresPerSocket=4 RealMemory=1000 Gres=gpu:2\n"
      "PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=60\n";
  Harness h(testing::parseConf("ClusterName=unit\nSlurmdTimeout=10\n" + nodes));
  v1::JobSpec spec = sleepJob();
  spec.set_gpus_per_node(1);
  spec.set_hold(true);  // stays pending until released under the new configuration
  auto id = h.submit(spec);
  REQUIRE(id.ok());
  auto fresh = config::parseGantryConf("ClusterName=unit\nSlurmdTimeout=10\nSelectType=select/cons_res\n" + nodes,
                                       "fresh.conf");
  REQUIRE(fresh.ok());
  REQUIRE(h.await<Ok>([&](auto reply) { h.core->reconfigure(fresh->conf, reply); }).ok());
  auto root = auth::Identity{.uid = 0, .gid = 0, .user = "root"};
  REQUIRE(h.await<Ok>([&](auto reply) {
            h.core->jobAction(core::ControllerCore::JobAction::Release, *id, "", root, reply);
          }).ok());
  h.settle();
  v1::Job job = h.job(*id);
  CHECK(job.state() == v1::PENDING);
  CHECK_THAT(job.reason(), Catch::StartsWith("BadConstraints: ") && Catch::Contains("select/cons_res"));
}

namespace {

gantry::Result<v1::CancelJobResponse> signalJob(Harness& h, uint64_t id, int signal) {
  v1::CancelJobRequest request;
  request.add_job_ids(id);
  request.set_signal(signal);
  return h.await<v1::CancelJobResponse>([&](auto reply) {
    h.core->cancelJob(request, auth::Identity{.uid = 1000, .gid = 1000, .user = "u1000"}, reply);
  });
}

}  // namespace

TEST_CASE("SIGSTOP marks a running job stopped until SIGCONT, and the mark survives a restart") {
  std::string db = tempDb();
  uint64_t id = 0;
  {
    Harness h(db);
    h.registerNodes();
    id = *h.submit(sleepJob());
    h.settle();
    REQUIRE(h.job(id).state() == v1::RUNNING);
    CHECK_FALSE(h.job(id).stopped());
    REQUIRE(signalJob(h, id, SIGUSR1)->errors_size() == 0);
    CHECK_FALSE(h.job(id).stopped());  // another signal is no stop
    REQUIRE(signalJob(h, id, SIGSTOP)->errors_size() == 0);
    h.settle();
    CHECK(h.job(id).stopped());
    CHECK(h.job(id).state() == v1::RUNNING);  // still holding its resources
    CHECK(h.agents.signals.back().signal == SIGSTOP);
  }
  Harness again(db);
  REQUIRE(again.job(id).state() == v1::RUNNING);
  CHECK(again.job(id).stopped());
  REQUIRE(signalJob(again, id, SIGCONT)->errors_size() == 0);
  again.settle();
  CHECK_FALSE(again.job(id).stopped());
}

TEST_CASE("a stopped job that ends or is requeued is no longer marked stopped") {
  Harness h;
  h.registerNodes();
  uint64_t id = *h.submit(sleepJob());
  h.settle();
  REQUIRE(signalJob(h, id, SIGSTOP)->errors_size() == 0);
  REQUIRE(h.job(id).stopped());
  h.complete(id, h.job(id).batch_host(), 0);
  h.settle();
  CHECK(h.job(id).state() == v1::COMPLETED);
  CHECK_FALSE(h.job(id).stopped());
  // Its node comes back without the job: it is requeued and runs again,
  // not stopped.
  uint64_t lost = *h.submit(sleepJob());
  h.settle();
  REQUIRE(signalJob(h, lost, SIGSTOP)->errors_size() == 0);
  REQUIRE(h.job(lost).stopped());
  h.registerNodes({h.job(lost).batch_host().c_str()});
  h.settle();
  CHECK(h.job(lost).restart_count() == 1);
  CHECK_FALSE(h.job(lost).stopped());
}

TEST_CASE("SIGSTOP to a pending job marks nothing") {
  Harness h;  // no node registered: the job waits
  uint64_t id = *h.submit(sleepJob());
  h.settle();
  REQUIRE(h.job(id).state() == v1::PENDING);
  signalJob(h, id, SIGSTOP);
  CHECK_FALSE(h.job(id).stopped());
}

TEST_CASE("jobs are listed by SLUID in any case, ended ones too, and each listing carries its SLUID") {
  Harness h;
  h.registerNodes();
  uint64_t first = *h.submit(sleepJob());
  uint64_t second = *h.submit(sleepJob());
  h.settle();
  h.complete(first, h.job(first).batch_host(), 0);
  h.settle();
  std::string sluid = gantry::jobSluid("unit", first);
  CHECK(h.job(first).sluid() == sluid);
  CHECK(h.job(second).sluid() == gantry::jobSluid("unit", second));
  std::string typed = sluid;
  for (char& c : typed) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  v1::ListJobsRequest request;
  request.add_sluids(typed);
  auto answer = h.await<v1::ListJobsResponse>([&](auto reply) { h.core->listJobs(request, reply); });
  REQUIRE(answer.ok());
  REQUIRE(answer->jobs_size() == 1);
  CHECK(answer->jobs(0).job_id() == first);
  CHECK(answer->jobs(0).state() == v1::COMPLETED);
}

TEST_CASE("a node's record says what it offers, what its jobs hold there, when it was last busy and when its agent started") {
  Harness h;
  auto pass = [&](int seconds) {
    for (int i = 0; i < seconds; ++i) {
      h.clock.advance(std::chrono::seconds(1));
      h.heartbeat("n1");
      h.heartbeat("n2");
      h.settle();
    }
  };
  auto nodeNamed = [&](const std::string& name) {
    v1::ListNodesRequest request;
    request.add_names(name);
    auto nodes = h.await<v1::ListNodesResponse>([&](auto reply) { h.core->listNodes(request, reply); });
    REQUIRE(nodes.ok());
    return nodes->nodes(0);
  };
  h.clock.advance(std::chrono::seconds(10));
  v1::RegisterRequest started;
  started.set_node_name("n1");
  started.set_boot_time(999'000);
  REQUIRE(h.await<v1::RegisterResponse>([&](auto reply) { h.core->registerNode(started, reply); }).ok());
  h.registerNodes({"n2"});
  v1::Node idle = nodeNamed("n1");
  CHECK(idle.cfg_tres() == "cpu=4,mem=1000M,billing=4");
  CHECK(idle.alloc_tres().empty());
  CHECK(idle.agent_start_time() == 999'000);
  CHECK(idle.last_busy_time() == 1'000'010);  // never busy: its registration
  CHECK(nodeNamed("n2").agent_start_time() == 0);

  v1::JobSpec spec = sleepJob(3);
  spec.set_mem_per_node_mb(300);
  auto id = h.submit(spec);
  REQUIRE(id.ok());
  h.settle();
  const std::string host = h.job(*id).batch_host();
  pass(20);
  v1::Node busy = nodeNamed(host);
  CHECK(busy.alloc_tres() == "cpu=3,mem=300M");
  CHECK(busy.last_busy_time() == 1'000'030);  // busy now
  h.complete(*id, host, 0);
  pass(15);
  v1::Node left = nodeNamed(host);
  CHECK(left.alloc_tres().empty());
  CHECK(left.last_busy_time() == 1'000'030);  // when its job left

  v1::ListPartitionsRequest partitions;
  auto listed = h.await<v1::ListPartitionsResponse>([&](auto reply) { h.core->listPartitions(partitions, reply); });
  REQUIRE(listed.ok());
  CHECK(listed->partitions(0).tres() == "cpu=8,mem=2000M,node=2,billing=8");
}
