// Allocations held by salloc/srun (allocation_clients.cpp), in simulated
// time: a client that keeps calling KeepAllocation keeps its allocation;
// one that stops has it ended, running or pending, and its resources go
// to the next job.
#include "tests/unit/controller/core/core_harness.h"

#include <algorithm>

using namespace gantry;

namespace {

const auth::Identity kOwner{.uid = 2000, .gid = 2000, .user = "carol"};
const auth::Identity kOther{.uid = 2001, .gid = 2001, .user = "dave"};

// One six-core node; agents that never miss a heartbeat in these tests.
struct Harness : testing::CoreHarness {
  Harness()
      : CoreHarness(testing::parseConf("ClusterName=unit\nSlurmdTimeout=600\n"
                                       "NodeName=solo CPUs=6 CoresPerSocket=6 RealMemory=3000\n"
                                       "PartitionName=main Nodes=solo Default=YES MaxTime=120\n")) {
    registerNodes({"solo"});
  }

  Result<v1::KeepAllocationResponse> keep(uint64_t jobId, const auth::Identity& caller = kOwner) {
    v1::KeepAllocationRequest request;
    request.set_job_id(jobId);
    return await<v1::KeepAllocationResponse>([&](auto reply) { core->keepAllocation(request, caller, reply); });
  }

  // Moves time by `seconds`, with the given allocations' clients calling
  // every 2 s as salloc and srun do.
  void run(int seconds, std::vector<uint64_t> kept) {
    for (int t = 0; t < seconds; t += 2) {
      for (uint64_t id : kept) REQUIRE(keep(id).ok());
      advance(std::chrono::seconds(2));
    }
  }

  std::string stateOf(uint64_t id) { return v1::JobState_Name(job(id).state()); }
};

v1::JobSpec allocation(int ntasks, bool keepalive = true) {
  v1::JobSpec spec;
  spec.set_name("shell");
  spec.set_ntasks(ntasks);
  spec.set_client_keepalive(keepalive);
  return spec;
}

}  // namespace

TEST_CASE("an allocation whose client keeps calling runs on; once the calls stop it ends and frees its cores",
          "[core][allocation]") {
  Harness h;
  auto first = h.submit(allocation(6), kOwner);
  REQUIRE(first.ok());
  h.settle();
  REQUIRE(h.stateOf(*first) == "RUNNING");
  auto second = h.submit(allocation(5), kOwner);  // waits for the node
  REQUIRE(second.ok());
  h.run(40, {*first, *second});
  CHECK(h.stateOf(*first) == "RUNNING");
  CHECK(h.stateOf(*second) == "PENDING");

  // The first client dies; the second one goes on calling.
  h.run(6, {*second});
  CHECK(h.stateOf(*first) == "RUNNING");  // a few missed calls are tolerated
  h.run(6, {*second});
  v1::Job ended = h.job(*first);
  CHECK(ended.state() == v1::TIMEOUT);
  CHECK(ended.reason() == "InactiveLimit");
  {
    std::lock_guard lock(h.agents.mutex);
    CHECK(std::find(h.agents.terminated.begin(), h.agents.terminated.end(),
                    std::pair<std::string, uint64_t>{"solo", *first}) != h.agents.terminated.end());
  }
  h.run(2, {*second});
  CHECK(h.stateOf(*second) == "RUNNING");
}

TEST_CASE("a pending allocation whose client stops calling is cancelled", "[core][allocation]") {
  Harness h;
  v1::JobSpec blocker = allocation(6, false);
  blocker.set_script("#!/bin/sh\nsleep 1000\n");
  auto busy = h.submit(blocker, kOwner);
  REQUIRE(busy.ok());
  auto waiting = h.submit(allocation(2), kOwner);
  REQUIRE(waiting.ok());
  h.run(12, {});
  v1::Job cancelled = h.job(*waiting);
  CHECK(cancelled.state() == v1::CANCELLED);
  CHECK(cancelled.reason() == "InactiveLimit");
  CHECK(h.stateOf(*busy) == "RUNNING");  // batch jobs have no client to lose
}

TEST_CASE("an allocation submitted without client_keepalive is never ended for silence", "[core][allocation]") {
  Harness h;
  auto id = h.submit(allocation(3, false), kOwner);
  REQUIRE(id.ok());
  h.run(60, {});
  CHECK(h.stateOf(*id) == "RUNNING");
}

TEST_CASE("only the owner, root or SlurmUser may keep an allocation alive", "[core][allocation]") {
  Harness h;
  auto id = h.submit(allocation(1), kOwner);
  REQUIRE(id.ok());
  h.settle();
  auto denied = h.keep(*id, kOther);
  REQUIRE_FALSE(denied.ok());
  CHECK(denied.errorCode() == ErrorCode::Denied);
  auto unknown = h.keep(*id + 100);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.errorCode() == ErrorCode::NotFound);
  auto kept = h.keep(*id, auth::Identity{.uid = 0, .gid = 0, .user = "root"});
  REQUIRE(kept.ok());
  CHECK(kept->job_state() == v1::RUNNING);
}
