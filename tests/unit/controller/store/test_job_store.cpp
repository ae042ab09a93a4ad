#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <vector>

#include "controller/store/job_store.h"

using gantry::store::JobStore;

namespace {
std::string tempDb(const char* name) {
  auto dir = std::filesystem::temp_directory_path() / ("gantry-store-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto path = dir / name;
  std::filesystem::remove(path);
  return path.string();
}

gantry::v1::Job job(uint64_t id, gantry::v1::JobState state, int64_t endTime = 0) {
  gantry::v1::Job j;
  j.set_job_id(id);
  j.set_state(state);
  j.set_end_time(endTime);
  j.mutable_spec()->set_name("job" + std::to_string(id));
  return j;
}
}  // namespace

TEST_CASE("a saved job is durable once its callback ran and comes back after reopening") {
  auto path = tempDb("durable.db");
  {
    JobStore store;
    REQUIRE(store.open(path).ok());
    std::atomic<int> acked{0};
    for (uint64_t id = 1; id <= 100; ++id) {
      store.saveJob(job(id, gantry::v1::PENDING), [&](const gantry::Status& s) {
        REQUIRE(s.ok());
        ++acked;
      });
    }
    store.flush();
    REQUIRE(acked == 100);
    // Group commit: far fewer transactions than records.
    CHECK(store.transactions() <= 100);
  }
  JobStore reopened;
  REQUIRE(reopened.open(path).ok());
  auto snapshot = reopened.load(0, 0);
  REQUIRE(snapshot.ok());
  CHECK(snapshot->jobs.size() == 100);
  CHECK(snapshot->maxJobId == 100);
  CHECK(snapshot->jobs[41].spec().name() == "job42");
}

TEST_CASE("later writes of a job replace earlier ones") {
  auto path = tempDb("replace.db");
  JobStore store;
  REQUIRE(store.open(path).ok());
  store.saveJob(job(7, gantry::v1::PENDING));
  store.saveJob(job(7, gantry::v1::RUNNING));
  store.flush();
  auto snapshot = store.load(0, 0);
  REQUIRE(snapshot.ok());
  REQUIRE(snapshot->jobs.size() == 1);
  CHECK(snapshot->jobs[0].state() == gantry::v1::RUNNING);
}

TEST_CASE("long-finished jobs are left out of the snapshot but keep the id counter") {
  auto path = tempDb("finished.db");
  JobStore store;
  REQUIRE(store.open(path).ok());
  store.saveJob(job(1, gantry::v1::COMPLETED, 1000));
  store.saveJob(job(2, gantry::v1::COMPLETED, 1900));
  store.saveJob(job(3, gantry::v1::RUNNING));
  store.flush();
  auto snapshot = store.load(2000, 300);
  REQUIRE(snapshot.ok());
  REQUIRE(snapshot->jobs.size() == 2);
  CHECK(snapshot->jobs[0].job_id() == 2);
  CHECK(snapshot->maxJobId == 3);
}

TEST_CASE("MinJobAge=0: every ended job stays in the snapshot, however old") {
  auto path = tempDb("keep-all.db");
  JobStore store;
  REQUIRE(store.open(path).ok());
  store.saveJob(job(1, gantry::v1::COMPLETED, 10));
  store.saveJob(job(2, gantry::v1::FAILED, 20));
  store.saveJob(job(3, gantry::v1::CANCELLED, 1'000'000));
  store.saveJob(job(4, gantry::v1::PENDING));
  store.flush();
  auto snapshot = store.load(5'000'000, 0);
  REQUIRE(snapshot.ok());
  REQUIRE(snapshot->jobs.size() == 4);
  CHECK(snapshot->jobs[0].job_id() == 1);
  CHECK(snapshot->maxJobId == 4);
}

TEST_CASE("MinJobAge=N: ended jobs older than N seconds are dropped, younger ones and live ones kept") {
  auto path = tempDb("keep-recent.db");
  JobStore store;
  REQUIRE(store.open(path).ok());
  store.saveJob(job(1, gantry::v1::COMPLETED, 900));   // ended 100 s ago
  store.saveJob(job(2, gantry::v1::TIMEOUT, 959));     // 41 s ago
  store.saveJob(job(3, gantry::v1::NODE_FAIL, 960));   // exactly 40 s ago: still kept
  store.saveJob(job(4, gantry::v1::COMPLETED, 990));   // 10 s ago
  store.saveJob(job(5, gantry::v1::RUNNING));          // not ended, never dropped
  store.flush();
  auto snapshot = store.load(1000, 40);
  REQUIRE(snapshot.ok());
  std::vector<uint64_t> ids;
  for (const auto& j : snapshot->jobs) ids.push_back(j.job_id());
  CHECK(ids == std::vector<uint64_t>{3, 4, 5});
  CHECK(snapshot->maxJobId == 5);
}

TEST_CASE("administrator node states are stored and replaced") {
  auto path = tempDb("nodes.db");
  JobStore store;
  REQUIRE(store.open(path).ok());
  store.saveNode({.name = "n1", .state = "DRAIN", .reason = "bad fan", .user = "root", .reasonTime = 5});
  store.saveNode({.name = "n1", .state = "", .reason = "", .user = "root", .reasonTime = 6});
  store.flush();
  auto snapshot = store.load(0, 0);
  REQUIRE(snapshot.ok());
  REQUIRE(snapshot->nodes.size() == 1);
  CHECK(snapshot->nodes[0].state.empty());
}

TEST_CASE("opening a path in a missing directory fails with the path in the message") {
  JobStore store;
  auto status = store.open("/nonexistent-dir-for-gantry/x.db");
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().find("/nonexistent-dir-for-gantry/x.db") != std::string::npos);
}
