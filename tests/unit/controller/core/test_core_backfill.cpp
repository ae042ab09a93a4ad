// Backfill through the core, in simulated time: a job that cannot start
// now gets a planned start from the running jobs' time limits, and jobs
// behind it start now only where and while they cannot delay it.
#include "tests/unit/controller/core/core_harness.h"

#include "controller/core/running_ends.h"

using namespace gantry;
using testing::tempDb;

namespace {

const auth::Identity kUser{.uid = 1000, .gid = 1000, .user = "u1000"};

// Two four-CPU nodes (three with `third`), a two-hour partition limit, and
// nodes that stay up while the clock moves by minutes without heartbeats.
config::GantryConf backfillConf(const std::string& extra = "", bool third = false,
                                const std::string& maxTime = "120") {
  std::string nodes = third ? "n[1-3]" : "n[1-2]";
  return testing::parseConf("ClusterName=unit\nSlurmdTimeout=3600\n" + extra + "NodeName=" + nodes +
                            " CPUs=4 CoresPerSocket=4 RealMemory=1000\n"
                            "PartitionName=debug Nodes=" + nodes + " Default=YES MaxTime=" + maxTime + "\n");
}

struct Harness : testing::CoreHarness {
  explicit Harness(config::GantryConf configuration = backfillConf()) : CoreHarness(std::move(configuration), tempDb()) {}
  uint64_t submit(v1::JobSpec spec) {
    auto id = CoreHarness::submit(std::move(spec), kUser);
    REQUIRE(id.ok());
    settle();
    return *id;
  }
  void complete(uint64_t id) { stepEnded(id, "batch", job(id).batch_host(), 0); }
  // Ends the job if it still runs (its time limit may have ended it).
  void finish(uint64_t id) {
    v1::ListJobsRequest request;
    request.add_job_ids(id);
    auto listed = await<v1::ListJobsResponse>([&](auto reply) { core->listJobs(request, reply); });
    REQUIRE(listed.ok());
    // An ended job is forgotten after MinJobAge (five minutes here).
    if (listed->jobs_size() == 1 && listed->jobs(0).state() == v1::RUNNING) complete(id);
  }
  void minutes(int count) { advance(std::chrono::minutes(count)); }
};

v1::JobSpec job(int cpus, int minutes, int nodes = 1) { return testing::nodesJob(cpus, minutes, nodes); }

}  // namespace

TEST_CASE("a wide job's planned start is kept: a long small job waits as Priority, a short one backfills") {
  Harness h;
  h.registerNodes();
  uint64_t first = h.submit(job(2, 10));   // ends in 10 minutes
  uint64_t second = h.submit(job(2, 20));  // ends in 20 minutes
  uint64_t wide = h.submit(job(4, 30, 2));  // both nodes whole: planned in 20 minutes
  CHECK(h.job(wide).reason() == "Resources");

  uint64_t tooLong = h.submit(job(1, 60));  // fits now, but would still run in 20 minutes
  CHECK(h.job(tooLong).state() == v1::PENDING);
  CHECK(h.job(tooLong).reason() == "Priority");
  uint64_t shortOne = h.submit(job(1, 15));  // done before the wide job's start
  CHECK(h.job(shortOne).state() == v1::RUNNING);

  // The first job's end frees half a node: still not enough for the long one.
  h.minutes(10);
  h.complete(first);
  h.settle();
  CHECK(h.job(tooLong).state() == v1::PENDING);
  // The wide job starts once the second job and the short one are done,
  // ahead of the long small job that came later.
  h.complete(second);
  h.complete(shortOne);
  h.settle();
  CHECK(h.job(wide).state() == v1::RUNNING);
  CHECK(h.job(tooLong).state() == v1::PENDING);
  CHECK(h.job(tooLong).reason() == "Resources");
}

TEST_CASE("a waiting job's listing carries its planned start and nodes (squeue --start); a start clears them") {
  Harness h(backfillConf("", true));
  h.registerNodes({"n1", "n2", "n3"});
  uint64_t a = h.submit(job(4, 25));
  uint64_t b = h.submit(job(4, 40));
  uint64_t c = h.submit(job(4, 90));
  uint64_t pair = h.submit(job(4, 30, 2));  // two whole nodes: a's and b's, once b ends
  v1::Job waiting = h.job(pair);
  const int64_t now = toUnixSeconds(h.clock.now());
  // On bf_resolution's grid (60 s by default), as the running jobs' ends are.
  CHECK(waiting.planned_start() == core::roundUpTo(now + 40 * 60, 60));
  CHECK(waiting.planned_nodes() == "n[1-2]");
  uint64_t allThree = h.submit(job(4, 0, 3));  // behind c's 90 minutes: planned too, later
  CHECK(h.job(allThree).planned_start() == core::roundUpTo(now + 90 * 60, 60));
  CHECK(h.job(allThree).planned_nodes() == "n[1-3]");
  h.complete(a);
  h.complete(b);
  h.settle();
  v1::Job started = h.job(pair);
  CHECK(started.state() == v1::RUNNING);
  CHECK(started.planned_start() == 0);
  CHECK(started.planned_nodes().empty());
  h.finish(c);
}

TEST_CASE("jobs that need none of the planned nodes start at once") {
  Harness h(backfillConf("", true));
  h.registerNodes({"n1", "n2", "n3"});
  uint64_t a = h.submit(job(4, 30));
  uint64_t b = h.submit(job(4, 30));
  REQUIRE(h.job(a).state() == v1::RUNNING);
  REQUIRE(h.job(b).state() == v1::RUNNING);
  uint64_t half = h.submit(job(2, 120));  // on the third node
  REQUIRE(h.job(half).state() == v1::RUNNING);
  // Two whole nodes: planned on a and b's nodes when they end.
  uint64_t wide = h.submit(job(4, 60, 2));
  CHECK(h.job(wide).reason() == "Resources");
  // A long job fits beside `half` on the node the plan does not need.
  uint64_t beside = h.submit(job(2, 120));
  CHECK(h.job(beside).state() == v1::RUNNING);
}

TEST_CASE("a stream of small jobs never starves a wide one under backfill, but does under sched/builtin") {
  auto run = [](const std::string& extra) {
    Harness h(backfillConf(extra));
    h.registerNodes();
    uint64_t wide = 0;
    std::vector<uint64_t> running = {h.submit(job(2, 20)), h.submit(job(2, 20))};
    for (int round = 0; round < 6; ++round) {
      if (round == 0) wide = h.submit(job(4, 30, 2));
      // Every ten minutes a new small job comes and the oldest one ends.
      running.push_back(h.submit(job(2, 20)));
      h.minutes(10);
      h.finish(running.front());
      running.erase(running.begin());
      h.settle();
      if (h.job(wide).state() == v1::RUNNING) return round;
    }
    return -1;
  };
  CHECK(run("") >= 0);
  CHECK(run("SchedulerType=sched/builtin\n") == -1);
}

TEST_CASE("a start beyond bf_window is not planned, so it holds no nodes back") {
  // No time limits: a running job is taken to run for a year.
  Harness h(backfillConf("", false, "UNLIMITED"));
  h.registerNodes();
  h.submit(job(2, 0));
  h.submit(job(2, 0));
  uint64_t wide = h.submit(job(4, 0, 2));
  CHECK(h.job(wide).reason() == "Resources");
  uint64_t later = h.submit(job(1, 0));
  CHECK(h.job(later).state() == v1::RUNNING);
  // A window of more than a year plans it, and the next job waits.
  Harness wider(backfillConf("SchedulerParameters=bf_window=600000\n", false, "UNLIMITED"));
  wider.registerNodes();
  wider.submit(job(2, 0));
  wider.submit(job(2, 0));
  wider.submit(job(4, 0, 2));
  uint64_t held = wider.submit(job(1, 0));
  CHECK(wider.job(held).reason() == "Priority");
}

TEST_CASE("a job whose planned nodes go down is planned again on the nodes left") {
  Harness h(backfillConf("", true));
  h.registerNodes({"n1", "n2", "n3"});
  const int64_t now = toUnixSeconds(h.clock.now());
  h.submit(job(4, 20));  // n1, ends in 20 minutes
  h.submit(job(4, 40));  // n2, 40 minutes
  h.submit(job(4, 90));  // n3, 90 minutes
  uint64_t pair = h.submit(job(4, 30, 2));
  REQUIRE(h.job(pair).planned_nodes() == "n[1-2]");
  // n2 goes down (its job is lost with it): the pair can have n1 and n3
  // only, once the 90-minute job ends.
  v1::UpdateNodeRequest down;
  down.set_node_names("n2");
  down.set_state("DOWN");
  down.set_reason("fan");
  const auth::Identity root{.uid = 0, .gid = 0, .user = "root"};
  REQUIRE(h.await<v1::UpdateNodeResponse>([&](auto reply) { h.core->updateNode(down, root, reply); }).ok());
  h.settle();
  v1::Job replanned = h.job(pair);
  CHECK(replanned.planned_nodes() == "n[1,3]");
  CHECK(replanned.planned_start() == core::roundUpTo(now + 90 * 60, 60));
}

TEST_CASE("under backfill no job starts later than a strict first-in-first-out run would start it") {
  // Four whole-node nodes; each job takes `nodes` whole nodes for its
  // full time limit (ended by the limit). Strict FIFO starts each job at
  // the earliest time enough nodes are free once every job ahead of it
  // has started; backfill may start jobs earlier, never later. (Under
  // sched/builtin two of these jobs start up to an hour late.)
  struct Work {
    int nodes;
    int minutes;
  };
  const std::vector<Work> queue = {{2, 30}, {1, 50}, {4, 20}, {1, 10}, {3, 40}, {1, 15}, {2, 25},
                                   {1, 60}, {4, 10}, {2, 5},  {1, 35}, {3, 15}, {1, 5},  {2, 45}};
  Harness h(testing::parseConf("ClusterName=unit\nSlurmdTimeout=65535\nNodeName=n[1-4] CPUs=4 CoresPerSocket=4 "
                               "RealMemory=1000\nPartitionName=debug Nodes=n[1-4] Default=YES MaxTime=120\n"));
  h.registerNodes({"n1", "n2", "n3", "n4"});
  const int64_t t0 = toUnixSeconds(h.clock.now());
  std::vector<uint64_t> ids;
  for (const Work& w : queue) ids.push_back(h.submit(job(4, w.minutes, w.nodes)));

  // Strict FIFO, worked out by hand: running jobs as (end, nodes).
  std::vector<int64_t> fifoStart;
  std::vector<std::pair<int64_t, int>> running;
  int64_t previous = t0;
  for (const Work& w : queue) {
    int64_t at = previous;
    auto freeAt = [&](int64_t t) {
      int used = 0;
      for (const auto& [end, nodes] : running) used += end > t ? nodes : 0;
      return 4 - used;
    };
    while (freeAt(at) < w.nodes) {
      int64_t next = std::numeric_limits<int64_t>::max();
      for (const auto& [end, nodes] : running) {
        if (end > at) next = std::min(next, end);
      }
      at = next;
    }
    fifoStart.push_back(at);
    running.emplace_back(at + w.minutes * 60, w.nodes);
    previous = at;
  }

  std::map<uint64_t, int64_t> started;
  for (int step = 0; step < 12 * 60 && started.size() < ids.size(); ++step) {
    for (uint64_t id : ids) {
      if (started.count(id) != 0) continue;
      v1::ListJobsRequest request;
      request.add_job_ids(id);
      auto listed = h.await<v1::ListJobsResponse>([&](auto reply) { h.core->listJobs(request, reply); });
      REQUIRE(listed.ok());
      if (listed->jobs_size() == 1 && listed->jobs(0).start_time() > 0) started[id] = listed->jobs(0).start_time();
    }
    h.advance(std::chrono::seconds(30));
  }
  REQUIRE(started.size() == ids.size());
  int earlier = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    CAPTURE(i);
    // A job that ends by its limit frees its nodes at the next tick: a
    // second's slack.
    CHECK(started[ids[i]] <= fifoStart[i] + 1);
    earlier += started[ids[i]] + 1 < fifoStart[i] ? 1 : 0;
  }
  CHECK(earlier > 0);  // and backfill did start some earlier
}
