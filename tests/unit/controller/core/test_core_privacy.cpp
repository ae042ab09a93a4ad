// Who sees what through the core's listings (issue: no user reaches another's
// job): scripts and environments never travel in listings, PrivateData hides
// other users' jobs and the nodes, secrets of gantry.conf are for
// administrators, fields reserved to them are refused, oversized scripts are
// refused, and listings come in pages.
#include "tests/unit/controller/core/core_harness.h"

using namespace gantry;
using testing::CoreHarness;

namespace {

const auth::Identity kAlice{.uid = 2001, .gid = 2001, .user = "alice"};
const auth::Identity kBob{.uid = 2002, .gid = 2002, .user = "bob"};
const auth::Identity kRoot{.uid = 0, .gid = 0, .user = "root"};

v1::JobSpec secretJob() {
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\nexport TOKEN=hunter2\nsleep 600\n");
  (*spec.mutable_environment())["API_KEY"] = "s3cr3t";
  spec.set_hold(true);
  return spec;
}

std::vector<v1::Job> listAs(CoreHarness& h, const auth::Identity& caller, v1::ListJobsRequest request = {}) {
  auto answer = h.await<v1::ListJobsResponse>([&](auto reply) { h.core->listJobs(request, caller, reply); });
  REQUIRE(answer.ok());
  return {answer->jobs().begin(), answer->jobs().end()};
}

Result<v1::GetBatchScriptResponse> scriptAs(CoreHarness& h, uint64_t id, const auth::Identity& caller) {
  v1::GetBatchScriptRequest request;
  request.set_job_id(id);
  return h.await<v1::GetBatchScriptResponse>([&](auto reply) { h.core->getBatchScript(request, caller, reply); });
}

}  // namespace

TEST_CASE("listings never carry a script or an environment, not even to the owner") {
  CoreHarness h;
  uint64_t id = *h.submit(secretJob(), kAlice);
  for (const auto& caller : {kAlice, kBob, kRoot}) {
    auto jobs = listAs(h, caller);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].spec().script().empty());
    CHECK(jobs[0].spec().environment().empty());
    CHECK(jobs[0].batch_flag());
    CHECK(jobs[0].DebugString().find("hunter2") == std::string::npos);
  }
  // The owner and administrators read the script; others may not.
  CHECK_THAT(scriptAs(h, id, kAlice)->script(), Catch::Contains("hunter2"));
  CHECK_THAT(scriptAs(h, id, kRoot)->script(), Catch::Contains("hunter2"));
  auto refused = scriptAs(h, id, kBob);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.errorCode() == ErrorCode::Denied);
  CHECK(scriptAs(h, id + 100, kAlice).errorCode() == ErrorCode::NotFound);
}

TEST_CASE("PrivateData=jobs hides other users' jobs from plain users") {
  CoreHarness h(testing::twoNodeConf("PrivateData=jobs,usage\n"));
  uint64_t alices = *h.submit(secretJob(), kAlice);
  uint64_t bobs = *h.submit(secretJob(), kBob);
  auto seenByBob = listAs(h, kBob);
  REQUIRE(seenByBob.size() == 1);
  CHECK(seenByBob[0].job_id() == bobs);
  v1::ListJobsRequest byId;
  byId.add_job_ids(alices);
  CHECK(listAs(h, kBob, byId).empty());
  CHECK(listAs(h, kRoot).size() == 2);
  // Another user's job does not exist for bob, script included.
  CHECK(scriptAs(h, alices, kBob).errorCode() == ErrorCode::NotFound);
}

TEST_CASE("PrivateData=nodes refuses node listings to plain users") {
  CoreHarness h(testing::twoNodeConf("PrivateData=nodes\n"));
  v1::ListNodesRequest request;
  auto refused = h.await<v1::ListNodesResponse>([&](auto reply) { h.core->listNodes(request, kBob, reply); });
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.errorCode() == ErrorCode::Denied);
  auto shown = h.await<v1::ListNodesResponse>([&](auto reply) { h.core->listNodes(request, kRoot, reply); });
  REQUIRE(shown.ok());
  CHECK(shown->nodes_size() == 2);
}

TEST_CASE("secrets of gantry.conf are shown to administrators only") {
  CoreHarness h(testing::twoNodeConf("AccountingStoragePass=/var/run/munge/other.socket\nJobCompPass=opensesame\n"));
  auto valueOf = [&](const auth::Identity& caller, const std::string& key) {
    auto answer = h.await<v1::GetConfigResponse>([&](auto reply) { h.core->getConfig(caller, reply); });
    REQUIRE(answer.ok());
    for (const auto& entry : answer->entries()) {
      if (entry.key() == key) return entry.value();
    }
    return std::string("(absent)");
  };
  CHECK(valueOf(kBob, "JobCompPass") == "(hidden)");
  CHECK(valueOf(kBob, "AccountingStoragePass") == "(hidden)");
  CHECK(valueOf(kBob, "ClusterName") == "unit");
  CHECK(valueOf(kRoot, "JobCompPass") == "opensesame");
}

TEST_CASE("a plain user may not set a job's priority; an administrator may") {
  CoreHarness h;
  v1::JobSpec spec = secretJob();
  spec.set_priority(1000);
  auto refused = h.submit(spec, kAlice);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error(), Catch::Contains("priority"));
  CHECK(listAs(h, kRoot).empty());
  CHECK(h.submit(spec, kRoot).ok());
}

TEST_CASE("a script above max_script_size is refused at submission and nothing is stored") {
  CoreHarness h(testing::twoNodeConf("SchedulerParameters=max_script_size=1000\n"));
  v1::JobSpec spec = secretJob();
  spec.set_script("#!/bin/sh\n" + std::string(1200, '#') + "\n");
  auto refused = h.submit(spec, kAlice);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error(), Catch::Contains("too large") && Catch::Contains("max_script_size"));
  CHECK(listAs(h, kRoot).empty());
  spec.set_script("#!/bin/sh\ntrue\n");
  CHECK(h.submit(spec, kAlice).ok());
}

TEST_CASE("job listings come in pages that together hold every job once") {
  CoreHarness h;
  std::set<uint64_t> submitted;
  for (int i = 0; i < 2100; ++i) submitted.insert(*h.submit(secretJob(), kAlice));
  v1::ListJobsRequest request;
  std::set<uint64_t> seen;
  int pages = 0;
  for (;;) {
    auto answer = h.await<v1::ListJobsResponse>([&](auto reply) { h.core->listJobs(request, kRoot, reply); });
    REQUIRE(answer.ok());
    ++pages;
    CHECK(answer->jobs_size() <= 1000);
    for (const auto& job : answer->jobs()) CHECK(seen.insert(job.job_id()).second);
    if (answer->next_after_job_id() == 0) break;
    request.set_after_job_id(answer->next_after_job_id());
  }
  CHECK(pages == 3);
  CHECK(seen == submitted);
}

TEST_CASE("PrivateData=jobs hides another user's steps from a plain user") {
  CoreHarness h(testing::twoNodeConf("PrivateData=jobs\n"));
  h.registerNodes();
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\nsleep 600\n");
  uint64_t id = *h.submit(spec, kAlice);
  h.settle();
  v1::CreateStepRequest create;
  create.set_job_id(id);
  create.mutable_spec()->set_ntasks(1);
  create.add_argv("hostname");
  REQUIRE(h.await<v1::CreateStepResponse>([&](auto reply) { h.core->createStep(create, kAlice, reply); }).ok());
  v1::GetStepRequest request;
  request.set_job_id(id);
  request.set_step_id("0");
  auto own = h.await<v1::GetStepResponse>([&](auto reply) { h.core->getStep(request, kAlice, reply); });
  REQUIRE(own.ok());
  CHECK(own->running());
  auto other = h.await<v1::GetStepResponse>([&](auto reply) { h.core->getStep(request, kBob, reply); });
  REQUIRE_FALSE(other.ok());
  CHECK(other.errorCode() == ErrorCode::NotFound);
  CHECK(h.await<v1::GetStepResponse>([&](auto reply) { h.core->getStep(request, kRoot, reply); }).ok());
}

TEST_CASE("MaxJobCount counts every job the controller keeps, ended ones until they are purged") {
  CoreHarness h(testing::twoNodeConf("MaxJobCount=3\n"));
  v1::JobSpec spec = secretJob();
  spec.set_hold(true);
  std::vector<uint64_t> ids;
  for (int i = 0; i < 3; ++i) {
    auto id = h.submit(spec, kAlice);
    REQUIRE(id.ok());
    ids.push_back(*id);
  }
  auto refused = h.submit(spec, kAlice);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error() == "Slurm temporarily unable to accept job, sleeping and retrying");
  // A cancelled job still counts while the controller keeps it.
  v1::CancelJobRequest cancel;
  cancel.add_job_ids(ids.front());
  REQUIRE(h.await<v1::CancelJobResponse>([&](auto reply) { h.core->cancelJob(cancel, kAlice, reply); }).ok());
  CHECK_FALSE(h.submit(spec, kAlice).ok());
}
