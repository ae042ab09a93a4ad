// The scheduling passes through the core, in simulated time: how deep an
// event's pass looks (default_queue_depth), the periodic full pass
// (bf_interval, sched_interval) that tests the rest a slice at a time,
// backfill's per-user limit and time grid (bf_max_job_user,
// bf_resolution), and a pass at a job's begin time.
#include "tests/unit/controller/core/core_harness.h"

#include "controller/core/running_ends.h"
#include "controller/core/scheduling_pass.h"

using namespace gantry;
using testing::tempDb;

namespace {

const auth::Identity kAnn{.uid = 1000, .gid = 1000, .user = "ann"};
const auth::Identity kBob{.uid = 2000, .gid = 2000, .user = "bob"};

// Two nodes of `cpus` CPUs; nodes stay up while the clock moves by hours.
config::GantryConf passConf(const std::string& parameters, int cpus = 6) {
  std::string c = std::to_string(cpus);
  return testing::parseConf("ClusterName=unit\nSlurmdTimeout=65535\n" +
                            (parameters.empty() ? std::string() : "SchedulerParameters=" + parameters + "\n") +
                            "NodeName=n[1-2] CPUs=" + c + " CoresPerSocket=" + c +
                            " RealMemory=100000\n"
                            "PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=120\n");
}

struct Harness : testing::CoreHarness {
  explicit Harness(config::GantryConf conf, std::chrono::milliseconds tick = std::chrono::milliseconds(1))
      : CoreHarness(std::move(conf), tempDb(), nullptr, {}, 300, nullptr, tick) {
    registerNodes();
  }
  uint64_t submit(v1::JobSpec spec, const auth::Identity& caller = kAnn) {
    auto id = CoreHarness::submit(std::move(spec), caller);
    REQUIRE(id.ok());
    settle();
    return *id;
  }
  int64_t nowSeconds() { return toUnixSeconds(clock.now()); }
};

v1::JobSpec job(int cpus, int minutes, int nodes = 1) { return testing::nodesJob(cpus, minutes, nodes); }

// A whole node runs for an hour; a job wanting both nodes whole is then
// planned at its end, and a short small job could backfill beside it.
uint64_t blockBothNodes(Harness& h, int cpus = 6) {
  REQUIRE(h.job(h.submit(job(cpus, 60))).state() == v1::RUNNING);
  uint64_t wide = h.submit(job(cpus, 30, 2));
  REQUIRE(h.job(wide).reason() == "Resources");
  return wide;
}

}  // namespace

TEST_CASE("an event's pass tests default_queue_depth jobs; the full pass at bf_interval starts the rest") {
  Harness h(passConf("default_queue_depth=2,bf_interval=20"));
  blockBothNodes(h);
  h.submit(job(6, 30, 2));                // second in the queue, blocked too
  uint64_t small = h.submit(job(2, 10));  // third: fits on the free node, and is gone in time
  CHECK(h.job(small).state() == v1::PENDING);
  h.advance(std::chrono::seconds(19));
  CHECK(h.job(small).state() == v1::PENDING);
  h.advance(std::chrono::seconds(2));
  CHECK(h.job(small).state() == v1::RUNNING);

  // The default depth (100) takes it at once.
  Harness deep(passConf(""));
  blockBothNodes(deep);
  deep.submit(job(6, 30, 2));
  CHECK(deep.job(deep.submit(job(2, 10))).state() == v1::RUNNING);
}

TEST_CASE("the full pass tests a queue longer than its slice, giving the strand back between slices") {
  // 250 one-CPU jobs behind a blocked wide one; events test only the first.
  Harness h(passConf("default_queue_depth=1,bf_interval=10", 256), std::chrono::hours(1));
  blockBothNodes(h, 256);  // the second node stays free for the small ones
  std::vector<uint64_t> smalls;
  for (int i = 0; i < 250; ++i) smalls.push_back(h.submit(job(1, 10)));
  REQUIRE(static_cast<size_t>(250) > 2 * core::kFullPassSlice);
  CHECK(h.job(smalls.back()).state() == v1::PENDING);
  h.advance(std::chrono::seconds(10));
  for (uint64_t id : smalls) CHECK(h.job(id).state() == v1::RUNNING);
}

TEST_CASE("sched_interval=-1: only the backfill pass starts jobs, every bf_interval") {
  Harness h(passConf("sched_interval=-1,bf_interval=15"));
  uint64_t one = h.submit(job(1, 10));
  CHECK(h.job(one).state() == v1::PENDING);
  h.advance(std::chrono::seconds(15));
  CHECK(h.job(one).state() == v1::RUNNING);
}

TEST_CASE("bf_max_job_user: only that many of one user's waiting jobs are planned") {
  Harness h(passConf("bf_max_job_user=1"));
  blockBothNodes(h);  // ann's wide job, planned
  uint64_t annsSecond = h.submit(job(5, 30, 2));
  uint64_t bobs = h.submit(job(4, 30, 2), kBob);
  CHECK(h.job(annsSecond).planned_start() == 0);
  CHECK(h.job(annsSecond).reason() == "Resources");
  CHECK(h.job(bobs).planned_start() > 0);

  Harness unlimited(passConf(""));
  blockBothNodes(unlimited);
  CHECK(unlimited.job(unlimited.submit(job(5, 30, 2))).planned_start() > 0);
}

TEST_CASE("bf_resolution: running jobs' ends, and so planned starts, fall on its grid") {
  for (int resolution : {1, 60, 900}) {
    CAPTURE(resolution);
    Harness h(passConf("bf_resolution=" + std::to_string(resolution)));
    const int64_t now = h.nowSeconds();
    uint64_t wide = blockBothNodes(h);
    int64_t planned = h.job(wide).planned_start();
    CHECK(planned == core::roundUpTo(now + 3600, resolution));
    CHECK(planned % resolution == 0);
  }
}

TEST_CASE("a job's begin time starts a pass at that time, not at the next tick") {
  Harness h(passConf(""), std::chrono::hours(1));
  v1::JobSpec later = job(1, 10);
  later.set_begin_time(h.nowSeconds() + 300);
  uint64_t deferred = h.submit(later);
  CHECK(h.job(deferred).reason() == "BeginTime");
  h.advance(std::chrono::seconds(299));
  CHECK(h.job(deferred).state() == v1::PENDING);
  h.advance(std::chrono::seconds(2));
  CHECK(h.job(deferred).state() == v1::RUNNING);
}

TEST_CASE("a pass that gave the strand back goes on only while nothing it relies on changed", "[core][passes]") {
  struct Case {
    const char* rule;
    size_t tested;  // jobs of the pass already tested
    uint64_t epochThen, epochNow;
    uint64_t configurationThen, configurationNow;
    bool bfContinue;
    bool goesOn;
  };
  const Case cases[] = {
      {"nothing changed: it goes on", 100, 7, 7, 1, 1, false, true},
      {"jobs or nodes changed: it ends (Slurm's rule)", 100, 7, 8, 1, 1, false, false},
      {"bf_continue: it goes on after changes", 100, 7, 8, 1, 1, true, true},
      {"a reconfigure ends it, even under bf_continue", 100, 7, 7, 1, 2, true, false},
      {"a pass that has not begun goes on", 0, 7, 9, 1, 1, false, true},
  };
  for (const Case& c : cases) {
    SECTION(c.rule) {
      core::SchedulingPass pass;
      pass.next = c.tested;
      pass.epoch = c.epochThen;
      pass.configuration = c.configurationThen;
      CHECK(core::passGoesOn(pass, c.epochNow, c.configurationNow, c.bfContinue) == c.goesOn);
    }
  }
}
