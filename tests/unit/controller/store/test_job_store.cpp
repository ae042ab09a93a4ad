#include <catch2/catch.hpp>

#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <vector>

#include "controller/store/job_store.h"
#include "controller/store/salvage.h"

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

// ---------------------------------------------------------------- damage
//
// A database written by the store, then pages of it overwritten with
// garbage as a failing disk or a bad copy would leave it.

namespace {

constexpr uint64_t kJobs = 400;

// 400 pending jobs with a script each: about twenty pages of `jobs`.
std::string writeJobs(const char* name) {
  auto path = tempDb(name);
  JobStore store;
  REQUIRE(store.open(path).ok());
  for (uint64_t id = 1; id <= kJobs; ++id) {
    auto j = job(id, gantry::v1::PENDING);
    j.mutable_spec()->set_script("#!/bin/sh\n# job " + std::to_string(id) + "\n" + std::string(120, 'x') + "\n");
    store.saveJob(j);
  }
  store.saveNode({.name = "n1", .state = "DRAIN", .reason = "bad fan", .user = "root", .reasonTime = 5});
  store.flush();
  store.close();
  return path;
}

int pageSize(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char header[18] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  int size = header[16] << 8 | header[17];
  return size == 1 ? 65536 : size;
}

int pageCount(const std::string& path) {
  return static_cast<int>(std::filesystem::file_size(path) / static_cast<uintmax_t>(pageSize(path)));
}

// Overwrites bytes [from, to) of page `page` (numbered from 1) with
// pseudo-random garbage.
void corruptPage(const std::string& path, int page, int from, int to) {
  std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
  file.seekp(static_cast<std::streamoff>(page - 1) * pageSize(path) + from);
  uint32_t seed = 2166136261u ^ static_cast<uint32_t>(page * 131 + from);
  for (int i = from; i < to; ++i) {
    seed = seed * 1664525u + 1013904223u;
    file.put(static_cast<char>(seed >> 24));
  }
}

// A fresh copy of `source`, so each case damages an intact database.
std::string copyOf(const std::string& source, const std::string& name) {
  auto path = tempDb(name.c_str());
  for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(path + suffix);
  std::filesystem::copy_file(source, path, std::filesystem::copy_options::overwrite_existing);
  return path;
}

int rootPageOf(const std::string& path, const char* table) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_schema WHERE name = ?", -1, &stmt, nullptr) == SQLITE_OK);
  sqlite3_bind_text(stmt, 1, table, -1, SQLITE_STATIC);
  REQUIRE(sqlite3_step(stmt) == SQLITE_ROW);
  int page = sqlite3_column_int(stmt, 0);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return page;
}

void execRaw(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
}

int modeOf(const std::string& path) {
  return static_cast<int>(std::filesystem::status(path).permissions() & std::filesystem::perms::all);
}

}  // namespace

TEST_CASE("every page of the database overwritten with garbage stops open(), naming the file") {
  auto clean = writeJobs("pages-clean.db");
  const int size = pageSize(clean);
  const int pages = pageCount(clean);
  REQUIRE(pages >= 12);
  for (int page = 1; page <= pages; ++page) {
    CAPTURE(page, pages);
    auto path = copyOf(clean, "pages.db");
    corruptPage(path, page, 0, size);
    JobStore store;
    auto status = store.open(path);
    REQUIRE_FALSE(status.ok());
    CHECK(status.errorCode() == gantry::ErrorCode::Internal);
    CHECK_THAT(status.error(), Catch::Contains("state database " + path + " is damaged"));
    CHECK(store.damageFound());
  }
}

TEST_CASE("part of a page in the middle or of the last page overwritten stops open()") {
  auto clean = writeJobs("part-clean.db");
  const int size = pageSize(clean);
  const int pages = pageCount(clean);
  const int jobsRoot = rootPageOf(clean, "jobs");
  // Rows are laid from the end of a page towards its start, so every
  // range here ends at the page's end: each one hits stored rows.
  for (int page : {jobsRoot + 1, pages / 2, pages - 2, pages}) {
    for (int from : {0, 8, size / 4, size / 2, size - 200, size - 40}) {
      CAPTURE(page, from, pages);
      auto path = copyOf(clean, "part.db");
      corruptPage(path, page, from, size);
      JobStore store;
      auto status = store.open(path);
      REQUIRE_FALSE(status.ok());
      CHECK_THAT(status.error(), Catch::Contains(path));
      CHECK(store.damageFound());
    }
  }
}

TEST_CASE("quick_check's own words say what is wrong") {
  auto clean = writeJobs("words-clean.db");
  auto path = copyOf(clean, "words.db");
  corruptPage(path, pageCount(path) / 2, 0, pageSize(path));
  JobStore store;
  auto status = store.open(path);
  REQUIRE_FALSE(status.ok());
  CHECK_THAT(status.error(), Catch::Contains("quick_check: ") || Catch::Contains("malformed"));
}

TEST_CASE("a record that does not parse is an error naming the job") {
  auto clean = writeJobs("record-clean.db");
  auto path = copyOf(clean, "record.db");
  execRaw(path, "UPDATE jobs SET record = x'ffffffff' WHERE id = 17");
  JobStore store;
  auto status = store.open(path);
  REQUIRE_FALSE(status.ok());
  CHECK_THAT(status.error(), Catch::Contains(path) && Catch::Contains("job 17: the record does not parse"));
}

TEST_CASE("a record of another job under a row's id is an error naming the job") {
  auto clean = writeJobs("swapped-clean.db");
  auto path = copyOf(clean, "swapped.db");
  execRaw(path, "UPDATE jobs SET record = (SELECT record FROM jobs WHERE id = 3) WHERE id = 4");
  JobStore store;
  auto status = store.open(path);
  REQUIRE_FALSE(status.ok());
  CHECK_THAT(status.error(), Catch::Contains("job 4: the record does not match its row"));
}

TEST_CASE("the job id high-water mark survives deleting every job row") {
  auto clean = writeJobs("mark-clean.db");
  auto path = copyOf(clean, "mark.db");
  execRaw(path, "DELETE FROM jobs");
  JobStore store;
  REQUIRE(store.open(path).ok());
  auto snapshot = store.load(0, 0);
  REQUIRE(snapshot.ok());
  CHECK(snapshot->jobs.empty());
  CHECK(snapshot->maxJobId == kJobs);
  // A job written later moves the mark only upwards.
  store.saveJob(job(kJobs + 1, gantry::v1::PENDING));
  store.saveJob(job(5, gantry::v1::PENDING));
  store.flush();
  store.close();
  JobStore reopened;
  REQUIRE(reopened.open(path).ok());
  CHECK(reopened.load(0, 0)->maxJobId == kJobs + 1);
}

TEST_CASE("a database written before the high-water mark existed starts from its highest id") {
  auto path = tempDb("old-schema.db");
  for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(path + suffix);
  std::string record = job(41, gantry::v1::PENDING).SerializeAsString();
  std::string hex;
  for (unsigned char c : record) {
    static const char* digits = "0123456789abcdef";
    hex += digits[c >> 4];
    hex += digits[c & 15];
  }
  execRaw(path, ("CREATE TABLE jobs (id INTEGER PRIMARY KEY, state INTEGER NOT NULL, end_time INTEGER NOT NULL,"
                 " record BLOB NOT NULL); INSERT INTO jobs VALUES(41, 1, 0, x'" + hex + "')").c_str());
  JobStore store;
  REQUIRE(store.open(path).ok());
  auto snapshot = store.load(0, 0);
  REQUIRE(snapshot.ok());
  CHECK(snapshot->jobs.size() == 1);
  CHECK(snapshot->maxJobId == 41);
}

TEST_CASE("recovery from a lost page in the middle keeps every readable job and the id high-water mark") {
  auto clean = writeJobs("salvage-mid-clean.db");
  auto path = copyOf(clean, "salvage-mid.db");
  corruptPage(path, pageCount(path) / 2, 0, pageSize(path));
  {
    JobStore refused;
    REQUIRE_FALSE(refused.open(path).ok());
  }
  auto report = gantry::store::salvageDatabase(path, 1700000000);
  REQUIRE(report.ok());
  CHECK(report->movedTo == path + ".corrupt-1700000000");
  CHECK(std::filesystem::exists(report->movedTo));
  CHECK(report->maxJobIdRead);
  CHECK(report->maxJobId == kJobs);
  CHECK(report->jobs > kJobs / 2);
  CHECK(report->jobs < kJobs);
  CHECK(report->nodes == 1);
  REQUIRE_FALSE(report->losses.empty());
  CHECK_THAT(report->losses[0], Catch::StartsWith("table jobs: the rows after key ") && Catch::Contains(" and before key "));

  JobStore store;
  REQUIRE(store.open(path).ok());
  auto snapshot = store.load(0, 0);
  REQUIRE(snapshot.ok());
  CHECK(snapshot->jobs.size() == report->jobs);
  CHECK(snapshot->maxJobId == kJobs);
  // Jobs after the lost page were read too, not only those before it.
  CHECK(snapshot->jobs.back().job_id() == kJobs);
  CHECK(modeOf(path) == 0600);
  std::filesystem::remove(report->movedTo);
}

TEST_CASE("recovery from a lost last page: the next id is still above every id ever given") {
  auto clean = writeJobs("salvage-last-clean.db");
  auto path = copyOf(clean, "salvage-last.db");
  corruptPage(path, pageCount(path), 0, pageSize(path));
  {
    JobStore refused;
    REQUIRE_FALSE(refused.open(path).ok());
  }
  auto report = gantry::store::salvageDatabase(path, 1700000001);
  REQUIRE(report.ok());
  CHECK(report->jobs < kJobs);
  CHECK(report->maxJobIdRead);
  JobStore store;
  REQUIRE(store.open(path).ok());
  auto snapshot = store.load(0, 0);
  REQUIRE(snapshot.ok());
  CHECK(snapshot->jobs.back().job_id() < kJobs);
  CHECK(snapshot->maxJobId == kJobs);
  std::filesystem::remove(report->movedTo);
}

TEST_CASE("recovery when the high-water mark itself is lost continues after the highest id read") {
  auto clean = writeJobs("salvage-meta-clean.db");
  auto path = copyOf(clean, "salvage-meta.db");
  corruptPage(path, rootPageOf(path, "meta"), 0, pageSize(path));
  JobStore refused;
  REQUIRE_FALSE(refused.open(path).ok());
  auto report = gantry::store::salvageDatabase(path, 1700000002);
  REQUIRE(report.ok());
  CHECK(report->jobs == kJobs);
  CHECK_FALSE(report->maxJobIdRead);
  CHECK(report->maxJobId == kJobs);
  CHECK_THAT(report->losses.back(), Catch::Contains("may be handed out again"));
  std::filesystem::remove(report->movedTo);
}

TEST_CASE("recovery from a file that is not a database at all starts empty") {
  auto path = tempDb("garbage.db");
  for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(path + suffix);
  std::ofstream(path) << std::string(10000, 'g');
  JobStore refused;
  auto status = refused.open(path);
  REQUIRE_FALSE(status.ok());
  CHECK(refused.damageFound());
  auto report = gantry::store::salvageDatabase(path, 1700000003);
  REQUIRE(report.ok());
  CHECK(report->jobs == 0);
  CHECK_FALSE(report->losses.empty());
  JobStore store;
  REQUIRE(store.open(path).ok());
  std::filesystem::remove(report->movedTo);
}

TEST_CASE("a file that cannot be opened is not taken for damage") {
  JobStore store;
  REQUIRE_FALSE(store.open("/nonexistent-dir-for-gantry/x.db").ok());
  CHECK_FALSE(store.damageFound());
}

TEST_CASE("the store's files are private to the controller's user") {
  auto dir = std::filesystem::temp_directory_path() / ("gantry-store-modes-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  auto state = dir / "state" / "ctld";
  REQUIRE(gantry::store::createStateDirectory(state.string() + "/").ok());
  CHECK(modeOf(state.string()) == 0700);
  auto path = (state / "gantry.db").string();
  JobStore store;
  REQUIRE(store.open(path).ok());
  store.saveJob(job(1, gantry::v1::PENDING));
  store.flush();
  CHECK(modeOf(path) == 0600);
  CHECK(modeOf(path + "-wal") == 0600);
  CHECK(modeOf(path + "-shm") == 0600);
  store.close();
  // An existing directory is left as the administrator made it.
  std::filesystem::permissions(state, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                          std::filesystem::perms::group_exec);
  REQUIRE(gantry::store::createStateDirectory(state.string()).ok());
  CHECK(modeOf(state.string()) == 0750);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a node's drains and saved device order are stored, replaced and read back") {
  auto path = tempDb("drains.db");
  gantry::drain::DrainedTres first;
  first.devices.push_back(
      {.gres = "gpu", .type = "h100", .index = 1, .uuid = "GPU-77", .reason = "xid_79", .notFound = false});
  first.savedOrders.push_back({.gres = "gpu",
                               .slots = {{.uuid = "GPU-70", .type = "h100", .present = true},
                                         {.uuid = "GPU-77", .type = "h100", .present = false}}});
  gantry::drain::DrainedTres second = first;
  second.cpus.push_back({.cpu = 3, .reason = "mce"});
  {
    JobStore store;
    REQUIRE(store.open(path).ok());
    store.saveNodeDrains("gq4", first);
    store.saveNodeDrains("gq4", second);
    store.saveNodeDrains("gq5", {});
    store.flush();
  }
  JobStore store;
  REQUIRE(store.open(path).ok());
  auto snapshot = store.load(0, 0);
  REQUIRE(snapshot.ok());
  REQUIRE(snapshot->nodeDrains.size() == 2);
  CHECK(snapshot->nodeDrains.at("gq4") == second);
  CHECK(snapshot->nodeDrains.at("gq5") == gantry::drain::DrainedTres{});
}

TEST_CASE("a damaged drains record stops open(), naming the node, and salvage drops only that record") {
  auto path = tempDb("drains-damaged.db");
  {
    JobStore store;
    REQUIRE(store.open(path).ok());
    store.saveJob(job(8, gantry::v1::PENDING));
    store.saveNodeDrains("gq4", {});
    store.saveNodeDrains("gq6", {});
    store.flush();
  }
  execRaw(path, "UPDATE node_drains SET record = '{\"version\":1,\"devices\":7}' WHERE name = 'gq4'");
  {
    JobStore refused;
    auto status = refused.open(path);
    REQUIRE_FALSE(status.ok());
    CHECK_THAT(status.error(), Catch::Contains("node_drains: the record of node gq4"));
  }
  auto report = gantry::store::salvageDatabase(path, 1700000009);
  REQUIRE(report.ok());
  REQUIRE(report->losses.size() == 1);
  CHECK_THAT(report->losses[0], Catch::StartsWith("node_drains: the drains of node gq4 are damaged"));
  JobStore store;
  REQUIRE(store.open(path).ok());
  auto snapshot = store.load(0, 0);
  REQUIRE(snapshot.ok());
  CHECK(snapshot->jobs.size() == 1);
  CHECK(snapshot->nodeDrains.count("gq4") == 0);
  CHECK(snapshot->nodeDrains.count("gq6") == 1);
  std::filesystem::remove(report->movedTo);
}
