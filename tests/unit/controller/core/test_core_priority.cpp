// priority/multifactor through the core: the pending queue is ordered by
// each job's priority, fair share charges what jobs ran to their owners
// (and keeps it across a restart), nice lowers a job, and listings carry
// the priority and its parts (sprio) and the users' shares (sshare).
// Simulated time.
#include "tests/unit/controller/core/core_harness.h"

using namespace gantry;
using testing::tempDb;

namespace {

const auth::Identity kAna{.uid = 3001, .gid = 3001, .user = "ana"};
const auth::Identity kBen{.uid = 3002, .gid = 3002, .user = "ben"};
const auth::Identity kCai{.uid = 3003, .gid = 3003, .user = "cai"};
const auth::Identity kRoot{.uid = 0, .gid = 0, .user = "root"};

// One node of 8 CPUs that stays up for hours without heartbeats; fair
// share outweighs a day's age.
config::GantryConf multifactorConf(const std::string& extra = "") {
  return testing::parseConf(
      "ClusterName=unit\nSlurmdTimeout=65535\nPriorityType=priority/multifactor\n"
      "PriorityWeightFairshare=10000\nPriorityWeightAge=1000\nPriorityMaxAge=1-0\nPriorityCalcPeriod=1\n" +
      extra +
      "NodeName=p1 CPUs=8 CoresPerSocket=8 RealMemory=4000\n"
      "PartitionName=main Nodes=p1 Default=YES MaxTime=600\n");
}

v1::JobSpec wholeNode(int32_t nice = 0) {
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\nsleep 1000\n");
  spec.set_cpus_per_task(8);
  spec.set_nice(nice);
  return spec;
}

struct Harness : testing::CoreHarness {
  explicit Harness(config::GantryConf conf = multifactorConf(), std::string db = tempDb())
      : CoreHarness(std::move(conf), std::move(db)) {}
  uint64_t submit(v1::JobSpec spec, const auth::Identity& who) {
    auto id = CoreHarness::submit(std::move(spec), who);
    REQUIRE(id.ok());
    settle();
    return *id;
  }
  void complete(uint64_t id) {
    stepEnded(id, "batch", job(id).batch_host(), 0);
    settle();
  }
  std::map<std::string, v1::ShareRow> shares() {
    auto answer = await<v1::ListSharesResponse>(
        [&](auto reply) { core->listShares(v1::ListSharesRequest{}, kRoot, reply); });
    REQUIRE(answer.ok());
    std::map<std::string, v1::ShareRow> rows;
    for (const auto& row : answer->rows()) rows[row.user()] = row;
    return rows;
  }
  v1::Job listed(uint64_t id) {
    v1::ListJobsRequest request;
    request.add_job_ids(id);
    request.set_include_priority(true);
    auto answer = await<v1::ListJobsResponse>([&](auto reply) { core->listJobs(request, reply); });
    REQUIRE(answer.ok());
    REQUIRE(answer->jobs_size() == 1);
    return answer->jobs(0);
  }
};

}  // namespace

TEST_CASE("multifactor: the user who used less starts first, though they asked later") {
  Harness h;
  h.registerNodes({"p1"});
  uint64_t heavy = h.submit(wholeNode(), kAna);
  h.advance(std::chrono::minutes(30));  // ana runs 8 CPUs for half an hour
  h.complete(heavy);
  h.advance(std::chrono::minutes(1));
  auto shares = h.shares();
  REQUIRE(shares.count("ana") == 1);
  CHECK(shares.at("ana").raw_usage() == Approx(8 * 30 * 60).epsilon(0.02));
  uint64_t blocker = h.submit(wholeNode(), kCai);
  uint64_t anaJob = h.submit(wholeNode(), kAna);
  uint64_t benJob = h.submit(wholeNode(), kBen);
  CHECK(h.listed(benJob).priority() > h.listed(anaJob).priority());
  h.complete(blocker);
  h.advance(std::chrono::milliseconds(10));
  CHECK(h.job(benJob).state() == v1::RUNNING);
  CHECK(h.job(anaJob).state() == v1::PENDING);
}

TEST_CASE("multifactor: a listing carries the priority and its weighted and plain parts") {
  Harness h;
  h.registerNodes({"p1"});
  uint64_t blocker = h.submit(wholeNode(), kCai);
  uint64_t waiting = h.submit(wholeNode(), kBen);
  h.advance(std::chrono::hours(6));
  v1::Job job = h.listed(waiting);
  CHECK(job.priority_factors().normalized().age() == Approx(0.25).epsilon(0.01));
  CHECK(job.priority_factors().age() == Approx(250).epsilon(0.01));
  CHECK(job.priority_factors().normalized().fairshare() == Approx(1.0));  // ben has used nothing
  CHECK(job.priority() == static_cast<uint32_t>(job.priority_factors().age() + job.priority_factors().fairshare()));
  CHECK_FALSE(h.listed(blocker).has_priority_factors());  // only pending jobs have parts to explain
  h.complete(blocker);
}

TEST_CASE("multifactor: nice lowers a job below a later one; a negative nice is for administrators") {
  Harness h;
  h.registerNodes({"p1"});
  uint64_t blocker = h.submit(wholeNode(), kCai);
  uint64_t niced = h.submit(wholeNode(5000), kBen);
  uint64_t plain = h.submit(wholeNode(), kBen);
  h.complete(blocker);
  h.advance(std::chrono::milliseconds(10));
  CHECK(h.job(plain).state() == v1::RUNNING);
  CHECK(h.job(niced).state() == v1::PENDING);
  auto refused = h.CoreHarness::submit(wholeNode(-10), kBen);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().find("negative --nice") != std::string::npos);
  CHECK(h.CoreHarness::submit(wholeNode(-10), kRoot).ok());
  v1::UpdateJobRequest lower;
  lower.set_job_id(niced);
  lower.set_nice(-1);
  CHECK_FALSE(h.await<Ok>([&](auto reply) { h.core->updateJob(lower, kBen, reply); }).ok());
  lower.set_nice(0);
  CHECK(h.await<Ok>([&](auto reply) { h.core->updateJob(lower, kBen, reply); }).ok());
  CHECK(h.job(niced).spec().nice() == 0);
}

TEST_CASE("multifactor: an administrator's --priority is kept as given") {
  Harness h;
  h.registerNodes({"p1"});
  uint64_t blocker = h.submit(wholeNode(), kCai);
  v1::JobSpec pinned = wholeNode();
  pinned.set_priority(7);
  uint64_t low = h.submit(pinned, kRoot);
  uint64_t normal = h.submit(wholeNode(), kBen);
  CHECK(h.listed(low).priority() == 7);
  h.complete(blocker);
  h.advance(std::chrono::milliseconds(10));
  CHECK(h.job(normal).state() == v1::RUNNING);
  CHECK(h.job(low).state() == v1::PENDING);
}

TEST_CASE("multifactor: recorded usage survives a controller restart") {
  std::string db = tempDb();
  {
    Harness h(multifactorConf(), db);
    h.registerNodes({"p1"});
    uint64_t job = h.submit(wholeNode(), kAna);
    h.advance(std::chrono::minutes(10));
    h.complete(job);
    h.advance(std::chrono::minutes(1));
    REQUIRE(h.shares().at("ana").raw_usage() > 4000);
  }
  Harness again(multifactorConf(), db);
  CHECK(again.shares().at("ana").raw_usage() > 4000);
}

TEST_CASE("multifactor: TRESBillingWeights decide what a job is charged") {
  Harness h(testing::parseConf(
      "ClusterName=unit\nSlurmdTimeout=3600\nPriorityType=priority/multifactor\nPriorityCalcPeriod=1\n"
      "NodeName=p1 CPUs=8 CoresPerSocket=8 RealMemory=4000\n"
      "PartitionName=main Nodes=p1 Default=YES MaxTime=600 TRESBillingWeights=CPU=0.5,Mem=1G\n"));
  h.registerNodes({"p1"});
  v1::JobSpec spec = wholeNode();
  spec.set_cpus_per_task(4);
  spec.set_mem_per_node_mb(2048);
  uint64_t job = h.submit(spec, kAna);
  h.advance(std::chrono::minutes(10));
  h.complete(job);
  h.advance(std::chrono::minutes(1));
  // (4 CPUs * 0.5 + 2 GB * 1) billing units for 600 s.
  CHECK(h.shares().at("ana").raw_usage() == Approx(4 * 600).epsilon(0.02));
}

TEST_CASE("priority/basic: the queue is in submission order and no usage is recorded") {
  Harness h(testing::parseConf("ClusterName=unit\nSlurmdTimeout=3600\n"
                               "NodeName=p1 CPUs=8 CoresPerSocket=8 RealMemory=4000\n"
                               "PartitionName=main Nodes=p1 Default=YES MaxTime=600\n"));
  h.registerNodes({"p1"});
  uint64_t first = h.submit(wholeNode(), kAna);
  uint64_t second = h.submit(wholeNode(), kBen);
  h.advance(std::chrono::minutes(10));
  CHECK(h.job(first).state() == v1::RUNNING);
  CHECK(h.listed(second).priority() == 0);
  CHECK(h.shares().at("ana").raw_usage() == 0);
}

TEST_CASE("multifactor: under PrivateData=usage a plain user's sshare shows their own line only") {
  Harness h(multifactorConf("PrivateData=usage\n"));
  h.registerNodes({"p1"});
  uint64_t anaJob = h.submit(wholeNode(), kAna);
  uint64_t benJob = h.submit(wholeNode(), kBen);
  auto seenBy = [&](const auth::Identity& who) {
    auto answer = h.await<v1::ListSharesResponse>(
        [&](auto reply) { h.core->listShares(v1::ListSharesRequest{}, who, reply); });
    REQUIRE(answer.ok());
    std::set<std::string> users;
    for (const auto& row : answer->rows()) users.insert(row.user());
    return users;
  };
  CHECK(seenBy(kBen) == std::set<std::string>{"ben"});
  CHECK(seenBy(kRoot) == std::set<std::string>{"ana", "ben"});
  h.complete(anaJob);
  (void)benJob;
}
