// --dependency and --begin through the core: a pending job waits for the
// jobs it names, its reason and what is left of its dependency are shown
// and stored, and scontrol update changes either while it is pending.
// Simulated time: the core's ticks run as the test moves the clock.
#include "tests/unit/controller/core/core_harness.h"

#include <functional>

using namespace gantry;
using testing::tempDb;

namespace {

const auth::Identity kOwner{.uid = 1000, .gid = 1000, .user = "u1000"};
const auth::Identity kOther{.uid = 2000, .gid = 2000, .user = "u2000"};

// Nodes that stay up while the tests move the clock by minutes without
// heartbeats (the harness's own configuration marks them down after 10 s).
config::GantryConf steadyConf(const std::string& extra = "") {
  return testing::parseConf("ClusterName=unit\nSlurmdTimeout=3600\n" + extra +
                            "NodeName=n[1-2] CPUs=4 CoresPerSocket=4 RealMemory=1000\n"
                            "PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=60\n");
}

struct Harness : testing::CoreHarness {
  explicit Harness(config::GantryConf conf = steadyConf(), std::string db = tempDb())
      : CoreHarness(std::move(conf), std::move(db)) {}

  Result<uint64_t> submit(v1::JobSpec spec, const auth::Identity& caller = kOwner) {
    return CoreHarness::submit(std::move(spec), caller);
  }
  void complete(uint64_t id, int exitCode) { stepEnded(id, "batch", job(id).batch_host(), exitCode); }
  Status update(uint64_t id, const std::function<void(v1::UpdateJobRequest&)>& fill,
                const auth::Identity& caller = kOwner) {
    v1::UpdateJobRequest request;
    request.set_job_id(id);
    fill(request);
    auto answer = await<Ok>([&](auto reply) { core->updateJob(request, caller, reply); });
    settle();
    return answer ? okStatus() : Status(Error{answer.failure()});
  }
  Status updateDependency(uint64_t id, const std::string& text, const auth::Identity& caller = kOwner) {
    return update(id, [&text](v1::UpdateJobRequest& r) { r.set_dependency(text); }, caller);
  }
};

// One CPU of a four-CPU node: everything here fits at once, so a job that
// waits does so for its dependency alone.
v1::JobSpec job(const std::string& dependency = "", const std::string& name = "work") {
  v1::JobSpec spec;
  spec.set_name(name);
  spec.set_script("#!/bin/sh\nsleep 100\n");
  spec.set_cpus_per_task(1);
  spec.set_dependency(dependency);
  return spec;
}

std::string id(uint64_t value) { return std::to_string(value); }

}  // namespace

TEST_CASE("an afterok job waits with reason Dependency and starts once its job completes cleanly") {
  Harness h;
  h.registerNodes();
  uint64_t first = *h.submit(job());
  auto second = h.submit(job("afterok:" + id(first)));
  REQUIRE(second.ok());
  h.settle();
  v1::Job waiting = h.job(*second);
  CHECK(waiting.state() == v1::PENDING);
  CHECK(waiting.reason() == "Dependency");
  CHECK(waiting.dependency() == "afterok:" + id(first) + "(unfulfilled)");
  h.complete(first, 0);
  h.advance(std::chrono::milliseconds(10));
  v1::Job started = h.job(*second);
  CHECK(started.state() == v1::RUNNING);
  CHECK(started.dependency().empty());
}

TEST_CASE("a dependency that can never be met waits as DependencyNeverSatisfied, showing what failed") {
  Harness h;
  h.registerNodes();
  uint64_t first = *h.submit(job());
  uint64_t second = *h.submit(job("afterok:" + id(first)));
  h.settle();
  h.complete(first, 2);
  h.advance(std::chrono::milliseconds(10));
  v1::Job stuck = h.job(second);
  CHECK(stuck.state() == v1::PENDING);
  CHECK(stuck.reason() == "DependencyNeverSatisfied");
  CHECK(stuck.dependency() == "afterok:" + id(first) + "(failed)");
  // The owner clears it, and the job runs.
  REQUIRE(h.updateDependency(second, "").ok());
  h.advance(std::chrono::milliseconds(10));
  CHECK(h.job(second).state() == v1::RUNNING);
}

TEST_CASE("kill_invalid_depend cancels a job whose dependency can never be met") {
  Harness h(steadyConf("SchedulerParameters=kill_invalid_depend\n"));
  h.registerNodes();
  uint64_t first = *h.submit(job());
  uint64_t second = *h.submit(job("afternotok:" + id(first)));
  h.settle();
  h.complete(first, 0);
  h.advance(std::chrono::milliseconds(10));
  v1::Job cancelled = h.job(second);
  CHECK(cancelled.state() == v1::CANCELLED);
  CHECK(cancelled.reason() == "DependencyNeverSatisfied");
}

TEST_CASE("after+minutes starts that long after its job started") {
  Harness h;
  h.registerNodes();
  uint64_t first = *h.submit(job());
  uint64_t second = *h.submit(job("after:" + id(first) + "+2"));
  h.settle();
  REQUIRE(h.job(first).state() == v1::RUNNING);
  h.advance(std::chrono::seconds(119));
  CHECK(h.job(second).state() == v1::PENDING);
  h.advance(std::chrono::seconds(2));
  CHECK(h.job(second).state() == v1::RUNNING);
}

TEST_CASE("any-of dependencies start on the first entry met") {
  Harness h;
  h.registerNodes();
  uint64_t a = *h.submit(job());
  uint64_t b = *h.submit(job());
  uint64_t waiting = *h.submit(job("afterok:" + id(a) + "?afterok:" + id(b)));
  h.settle();
  h.complete(a, 1);  // failed: the other may still come
  h.advance(std::chrono::milliseconds(10));
  CHECK(h.job(waiting).state() == v1::PENDING);
  CHECK(h.job(waiting).reason() == "Dependency");
  h.complete(b, 0);
  h.advance(std::chrono::milliseconds(10));
  CHECK(h.job(waiting).state() == v1::RUNNING);
}

TEST_CASE("singleton waits for the same user's running job of that name, not another user's") {
  Harness h;
  h.registerNodes();
  uint64_t running = *h.submit(job("", "solo"));
  h.settle();
  uint64_t otherUsers = *h.submit(job("singleton", "solo"), kOther);
  uint64_t mine = *h.submit(job("singleton", "solo"));
  uint64_t alsoMine = *h.submit(job("singleton", "solo"));
  h.settle();
  CHECK(h.job(otherUsers).state() == v1::RUNNING);
  CHECK(h.job(mine).state() == v1::PENDING);
  CHECK(h.job(mine).reason() == "Dependency");
  h.complete(running, 0);
  h.advance(std::chrono::milliseconds(10));
  // One at a time: the second singleton waits for the first.
  CHECK(h.job(mine).state() == v1::RUNNING);
  CHECK(h.job(alsoMine).state() == v1::PENDING);
  h.complete(mine, 0);
  h.advance(std::chrono::milliseconds(10));
  CHECK(h.job(alsoMine).state() == v1::RUNNING);
}

TEST_CASE("a dependency naming an unknown job or malformed is refused at submission and stores nothing") {
  Harness h;
  h.registerNodes();
  auto unknown = h.submit(job("afterok:4242"));
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.error(), Catch::StartsWith("Job dependency problem"));
  CHECK_THAT(unknown.error(), Catch::Contains("4242"));
  auto malformed = h.submit(job("afterwards:1"));
  REQUIRE_FALSE(malformed.ok());
  CHECK_THAT(malformed.error(), Catch::Contains("unknown type 'afterwards'"));
  v1::ListJobsRequest all;
  auto listed = h.await<v1::ListJobsResponse>([&](auto reply) { h.core->listJobs(all, reply); });
  CHECK(listed->jobs_size() == 0);
}

TEST_CASE("what is left of a dependency survives a controller restart") {
  std::string db = tempDb();
  uint64_t held = 0, done = 0, waiting = 0;
  {
    Harness h(steadyConf(), db);
    h.registerNodes();
    v1::JobSpec first = job();
    first.set_hold(true);
    held = *h.submit(first);
    done = *h.submit(job());
    waiting = *h.submit(job("afterany:" + id(done) + ",afterok:" + id(held)));
    h.settle();
    h.complete(done, 0);
    h.advance(std::chrono::milliseconds(10));
    REQUIRE(h.job(waiting).dependency() == "afterok:" + id(held) + "(unfulfilled)");
  }
  Harness again(steadyConf(), db);
  again.registerNodes();
  again.settle();
  v1::Job recovered = again.job(waiting);
  CHECK(recovered.state() == v1::PENDING);
  CHECK(recovered.dependency() == "afterok:" + id(held) + "(unfulfilled)");
  CHECK(recovered.reason() == "Dependency");
}

TEST_CASE("scontrol update Dependency= is the owner's, checked as at submission, and refuses a circle") {
  Harness h;
  h.registerNodes();
  v1::JobSpec heldSpec = job();
  heldSpec.set_hold(true);
  uint64_t a = *h.submit(heldSpec);
  uint64_t b = *h.submit(job("afterok:" + id(a)));
  h.settle();

  Status otherUser = h.updateDependency(b, "", kOther);
  REQUIRE_FALSE(otherUser.ok());
  CHECK(otherUser.error() == "Access/permission denied");
  CHECK(h.job(b).dependency() == "afterok:" + id(a) + "(unfulfilled)");

  Status unknown = h.updateDependency(b, "afterok:777");
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.error(), Catch::StartsWith("Job dependency problem"));

  Status itself = h.updateDependency(b, "afterany:" + id(b));
  REQUIRE_FALSE(itself.ok());
  CHECK(itself.error() == "Circular job dependency");

  Status circle = h.updateDependency(a, "afterany:" + id(b));
  REQUIRE_FALSE(circle.ok());
  CHECK(circle.error() == "Circular job dependency");
  CHECK(h.job(a).dependency().empty());

  // Nothing refused changed the job; a valid update replaces what was left.
  CHECK(h.job(b).dependency() == "afterok:" + id(a) + "(unfulfilled)");
  REQUIRE(h.updateDependency(b, "singleton").ok());
  h.advance(std::chrono::milliseconds(10));
  CHECK(h.job(b).state() == v1::RUNNING);

  Status running = h.updateDependency(b, "");
  REQUIRE_FALSE(running.ok());
  CHECK(running.error() == "Job is no longer pending execution");
}

TEST_CASE("--begin keeps a job pending as BeginTime until its time, and StartTime= moves it") {
  Harness h;
  h.registerNodes();
  const int64_t start = 1'000'000;  // the harness's clock, in seconds
  v1::JobSpec later = job();
  later.set_begin_time(start + 300);
  uint64_t deferred = *h.submit(later);
  h.settle();
  v1::Job waiting = h.job(deferred);
  CHECK(waiting.state() == v1::PENDING);
  CHECK(waiting.reason() == "BeginTime");
  CHECK(waiting.eligible_time() == start + 300);
  h.advance(std::chrono::seconds(299));
  CHECK(h.job(deferred).state() == v1::PENDING);
  h.advance(std::chrono::seconds(2));
  CHECK(h.job(deferred).state() == v1::RUNNING);

  // Another job moved earlier by its owner, and one moved by someone else.
  later.set_begin_time(start + 10'000);
  uint64_t moved = *h.submit(later);
  h.settle();
  REQUIRE(h.update(moved, [](v1::UpdateJobRequest& r) { r.set_begin_time(0); }).ok());
  h.advance(std::chrono::milliseconds(10));
  CHECK(h.job(moved).state() == v1::RUNNING);
  uint64_t notYours = *h.submit(later);
  Status refused = h.update(notYours, [](v1::UpdateJobRequest& r) { r.set_begin_time(0); }, kOther);
  REQUIRE_FALSE(refused.ok());
  CHECK(h.job(notYours).state() == v1::PENDING);
  CHECK(h.job(notYours).eligible_time() == start + 10'000);
}

TEST_CASE("a singleton met while there is no room is judged again, so namesakes never run together") {
  Harness h;
  h.registerNodes();
  // A namesake without a dependency runs beside a small job, a whole-node
  // job fills the other node; a big singleton comes, then a small one.
  uint64_t first = *h.submit(job("", "solo"));
  v1::JobSpec filler = job("", "filler");
  filler.set_cpus_per_task(4);
  uint64_t fill = *h.submit(filler);
  uint64_t pad = *h.submit(job("", "pad"));  // beside the namesake: its node keeps only 3 CPUs free
  h.settle();
  REQUIRE(h.job(pad).node_list() == h.job(first).node_list());
  v1::JobSpec bigSpec = job("singleton", "solo");
  bigSpec.set_cpus_per_task(4);
  uint64_t big = *h.submit(bigSpec);
  uint64_t small = *h.submit(job("singleton", "solo"));
  h.settle();
  REQUIRE(h.job(big).reason() == "Dependency");
  // The namesake ends: the big one is met but finds no room, the small
  // one takes its turn.
  h.complete(first, 0);
  h.advance(std::chrono::milliseconds(10));
  CHECK(h.job(small).state() == v1::RUNNING);
  CHECK(h.job(big).state() == v1::PENDING);
  // Room comes while the small one runs: the big one still waits for it.
  h.complete(fill, 0);
  h.advance(std::chrono::milliseconds(10));
  CHECK(h.job(big).state() == v1::PENDING);
  CHECK(h.job(big).reason() == "Dependency");
  h.complete(small, 0);
  h.advance(std::chrono::milliseconds(10));
  v1::Job started = h.job(big);
  CHECK(started.state() == v1::RUNNING);
  CHECK(started.dependency().empty());
}
