// The accounting store on both backends (durability, idempotent writes,
// refused input), and what only the SQLite file has: damaged files, file
// modes. PostgreSQL's own cases are in test_postgres_store.cpp.
#include <catch2/catch.hpp>

#include <sqlite3.h>
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <iterator>

#include "controller/accounting/sqlite_accounting_store.h"
#include "tests/unit/controller/accounting/backend_fixtures.h"
#include "tests/unit/controller/accounting/accounting_fixtures.h"

using namespace gantry::accounting;
using namespace gantry::accounting::testing;

namespace {

std::vector<JobRecord> allJobs(const AccountingStore& store) {
  auto found = store.jobs({});
  REQUIRE(found.ok());
  return *found;
}

std::vector<NodeEvent> allEvents(const AccountingStore& store) {
  auto found = store.events({});
  REQUIRE(found.ok());
  return *found;
}

// Every field set, and to values unlike its neighbours', so a column read
// into the wrong field shows.
JobRecord fullRecord() {
  JobRecord r = jobRecord({.cluster = "west", .id = 9001, .step = "3", .uid = 4100, .account = "astro",
                           .submit = kT0 + 1, .eligible = kT0 + 2, .start = kT0 + 3, .end = kT0 + 4,
                           .state = "CANCELLED"});
  r.name = "sweep";
  r.user = "ada";
  r.group = "stars";
  r.gid = 4200;
  r.partition = "h200";
  r.timeLimitMinutes = 90;
  r.cancelledByUid = 4100;
  r.exitCode = {.code = 3, .signal = 0};
  r.derivedExitCode = {.code = 0, .signal = 9};
  r.nodeCount = 2;
  r.nodeList = "gx[01-02]";
  r.allocCpus = 48;
  r.reqTres = "billing=48,cpu=48,gres/gpu=6,mem=96G,node=2";
  r.allocTres = "billing=48,cpu=48,gres/gpu:h200=6,gres/gpu=6,mem=96G,node=2";
  r.usageIn = {.min = "cpu=00:01:05,gres/gpumem=1024M,gres/gpuutil=40,mem=1000K",
               .minNode = "cpu=gx01,gres/gpumem=gx02,gres/gpuutil=gx01,mem=gx02",
               .minTask = "cpu=0,gres/gpumem=5,gres/gpuutil=1,mem=4",
               .max = "cpu=00:02:10,gres/gpumem=2048M,gres/gpuutil=90,mem=2000K",
               .maxNode = "cpu=gx02,gres/gpumem=gx01,gres/gpuutil=gx02,mem=gx01",
               .maxTask = "cpu=3,gres/gpumem=0,gres/gpuutil=2,mem=1",
               .ave = "cpu=00:01:30,gres/gpumem=1536M,gres/gpuutil=65,mem=1500K",
               .tot = "cpu=00:09:00,gres/gpumem=9216M,gres/gpuutil=390,mem=9000K"};
  r.reason = "None";
  r.workDir = "/home/ada/sweep";
  r.comment = "lr=3e-4";
  r.arrayJobId = 8990;
  r.arrayTaskId = 11;
  r.arrayTasks = "12-40:2";
  return r;
}

// Runs one statement on the store's database behind its back.
void execRaw(Backend backend, const std::string& name, const std::string& statement) {
  if (backend == Backend::Postgresql) {
    REQUIRE(postgres().execute(postgresName(name), statement).ok());
    return;
  }
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(storeAt(backend, name, false).path.c_str(), &db) == SQLITE_OK);
  char* message = nullptr;
  int rc = sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &message);
  INFO(statement << ": " << (message ? message : ""));
  sqlite3_free(message);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
}

NodeEvent event(std::string node, int64_t start, int64_t end, std::string reason = "xid 79") {
  return NodeEvent{.cluster = "north", .node = std::move(node), .startTime = start, .endTime = end,
                   .state = "DRAIN", .reason = std::move(reason), .user = "root",
                   .tres = "cpu=96,mem=1000000M,gres/gpu=4", .tresReference = "gres/gpu=1"};
}

std::string fileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

ACCOUNTING_BACKEND_TEST("every field of a job record comes back as it was written, after reopening") {
  const char* name = "fields.db";
  JobRecord written = fullRecord();
  // A step is found through its job's record.
  JobRecord job = written;
  job.stepId = "";
  JobRecord unlimited = jobRecord({.id = 9002});  // no time limit, not cancelled
  {
    auto store = openFresh(backend, name);
    REQUIRE(store->appendJobs({written, job, unlimited}).ok());
    store->flush();
  }
  auto reopened = reopen(backend, name);
  auto jobs = allJobs(*reopened);
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0] == job);
  CHECK(jobs[1] == written);
  CHECK(jobs[2] == unlimited);
  CHECK_FALSE(jobs[2].timeLimitMinutes.has_value());
  CHECK_FALSE(jobs[2].cancelledByUid.has_value());
}

ACCOUNTING_BACKEND_TEST("a database of schema version 1 is migrated at open: its records stay, arrays can be written") {
  const char* name = "migrate.db";
  JobRecord old = jobRecord({.id = 7001, .start = kT0 + 5, .state = "RUNNING"});
  {
    auto store = openFresh(backend, name);
    REQUIRE(store->appendJobs({old}).ok());
    store->flush();
    store->close();
  }
  // Back to version 1's tables: no array columns.
  execRaw(backend, name, "DROP INDEX job_records_by_array");
  for (const char* column : {"array_job_id", "array_task_id", "array_tasks"}) {
    execRaw(backend, name, std::string("ALTER TABLE job_records DROP COLUMN ") + column);
  }
  execRaw(backend, name, "UPDATE meta SET value = 1 WHERE key = 'schema_version'");
  auto migrated = reopen(backend, name);
  auto jobs = allJobs(*migrated);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0] == old);  // no array: id 0, no task, no list
  JobRecord task = jobRecord({.id = 7003, .arrayJob = 7002, .arrayTask = 1});
  REQUIRE(migrated->appendJobs({task}).ok());
  migrated->flush();
  auto found = migrated->jobs({.ids = {{.jobId = 7002, .arrayTask = 1}}});
  REQUIRE(found.ok());
  REQUIRE(found->size() == 1);
  CHECK(found->at(0) == task);
  migrated->close();
  // Opened again, it is at the current version: nothing is migrated twice.
  auto again = reopen(backend, name);
  CHECK(allJobs(*again).size() == 2);
}

ACCOUNTING_BACKEND_TEST("the callback runs once the records are durable, one transaction for many calls") {
  const char* name = "callbacks.db";
  std::atomic<int> durable{0};
  {
    auto store = openFresh(backend, name);
    for (uint64_t id = 1; id <= 200; ++id) {
      REQUIRE(store
                  ->appendJobs({jobRecord({.id = id})},
                              [&](const gantry::Status& status) {
                                CHECK(status.ok());
                                ++durable;
                              })
                  .ok());
    }
    store->flush();
    CHECK(durable == 200);
    CHECK(store->transactions() < 200);
  }
  auto reopened = reopen(backend, name);
  CHECK(allJobs(*reopened).size() == 200);
}

ACCOUNTING_BACKEND_TEST("idempotent writes: a record delivered twice is stored once") {
  auto store = openFresh(backend, "twice.db");
  JobRecord record = jobRecord({.id = 55, .start = kT0 + 5, .state = "RUNNING"});
  JobRecord step = jobRecord({.id = 55, .step = "batch", .start = kT0 + 5, .state = "RUNNING"});
  REQUIRE(store->appendJobs({record, step, record}).ok());  // twice in one transaction
  store->flush();
  REQUIRE(store->appendJobs({step, record}).ok());  // and again in another
  store->flush();
  CHECK(labels(allJobs(*store)) == std::vector<std::string>{"55", "55.batch"});
}

ACCOUNTING_BACKEND_TEST("idempotent writes: a later version of a record replaces the earlier") {
  auto store = openFresh(backend, "later.db");
  JobRecord atStart = jobRecord({.id = 56, .start = kT0 + 5, .state = "RUNNING"});
  JobRecord atEnd = jobRecord({.id = 56, .start = kT0 + 5, .end = kT0 + 65, .state = "FAILED"});
  atEnd.exitCode = {.code = 2, .signal = 0};
  atEnd.usageIn.tot = "cpu=00:01:00,mem=2048K";
  REQUIRE(store->appendJobs({atStart}).ok());
  store->flush();
  REQUIRE(store->appendJobs({atEnd}).ok());
  store->flush();
  auto jobs = allJobs(*store);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0] == atEnd);
}

ACCOUNTING_BACKEND_TEST("idempotent writes: a late duplicate of an earlier version changes nothing") {
  auto store = openFresh(backend, "late.db");
  JobRecord pending = jobRecord({.id = 57, .state = "PENDING"});
  JobRecord running = jobRecord({.id = 57, .start = kT0 + 5, .state = "RUNNING"});
  JobRecord ended = jobRecord({.id = 57, .start = kT0 + 5, .end = kT0 + 9, .state = "COMPLETED"});
  SECTION("running after ended") {
    REQUIRE(store->appendJobs({pending, running, ended, running}).ok());
    store->flush();
    CHECK(allJobs(*store) == std::vector<JobRecord>{ended});
  }
  SECTION("pending after running") {
    REQUIRE(store->appendJobs({running}).ok());
    store->flush();
    REQUIRE(store->appendJobs({pending}).ok());
    store->flush();
    CHECK(allJobs(*store) == std::vector<JobRecord>{running});
  }
}

ACCOUNTING_BACKEND_TEST("a requeued job, with a new submit time, keeps a record per run") {
  auto store = openFresh(backend, "requeue.db");
  JobRecord first = jobRecord({.id = 58, .submit = kT0, .start = kT0 + 5, .end = kT0 + 7, .state = "REQUEUED"});
  JobRecord second = jobRecord({.id = 58, .submit = kT0 + 8, .eligible = kT0 + 8, .state = "PENDING"});
  REQUIRE(store->appendJobs({first, second}).ok());
  store->flush();
  CHECK(allJobs(*store) == std::vector<JobRecord>{first, second});
}

ACCOUNTING_BACKEND_TEST("idempotent events: closing replaces the open event; a late open duplicate does not reopen it") {
  auto store = openFresh(backend, "events.db");
  NodeEvent open = event("rack2-3", kT0, 0);
  NodeEvent closed = event("rack2-3", kT0, kT0 + 600);
  REQUIRE(store->appendEvents({open, open}).ok());
  store->flush();
  CHECK(allEvents(*store) == std::vector<NodeEvent>{open});
  REQUIRE(store->appendEvents({closed}).ok());
  store->flush();
  CHECK(allEvents(*store) == std::vector<NodeEvent>{closed});
  REQUIRE(store->appendEvents({open}).ok());
  store->flush();
  CHECK(allEvents(*store) == std::vector<NodeEvent>{closed});
  // Another state from the same moment is another event.
  NodeEvent down = open;
  down.state = "DOWN";
  REQUIRE(store->appendEvents({down}).ok());
  store->flush();
  CHECK(allEvents(*store).size() == 2);
}

ACCOUNTING_BACKEND_TEST("a call with a record that breaks a rule is refused whole, naming the record") {
  auto store = openFresh(backend, "refused.db");
  bool called = false;
  auto status = store->appendJobs({jobRecord({.id = 60}), jobRecord({.id = 61, .step = "epilog"})},
                                 [&](const gantry::Status&) { called = true; });
  REQUIRE_FALSE(status.ok());
  CHECK(status.errorCode() == gantry::ErrorCode::Invalid);
  CHECK_THAT(status.error(), Catch::Contains("job record 61.epilog"));
  auto badEvent = store->appendEvents({event("", kT0, 0)});
  REQUIRE_FALSE(badEvent.ok());
  CHECK_THAT(badEvent.error(), Catch::Contains("no node name"));
  store->flush();
  CHECK_FALSE(called);
  CHECK(allJobs(*store).empty());
  CHECK(allEvents(*store).empty());
}

ACCOUNTING_BACKEND_TEST("appending to a store that was closed is refused") {
  auto store = openFresh(backend, "closed.db");
  store->close();
  auto status = store->appendJobs({jobRecord({.id = 63})});
  REQUIRE_FALSE(status.ok());
  CHECK(status.errorCode() == gantry::ErrorCode::Internal);
  CHECK_THAT(status.error(), Catch::Contains("not open"));
  CHECK_FALSE(store->jobs({}).ok());
}

TEST_CASE("sqlite: appending to a store that is not open is refused") {
  SqliteAccountingStore store;
  auto status = store.appendJobs({jobRecord({.id = 62})});
  REQUIRE_FALSE(status.ok());
  CHECK(status.errorCode() == gantry::ErrorCode::Internal);
  CHECK_THAT(status.error(), Catch::Contains("not open"));
}

TEST_CASE("sqlite: a file that is not a database is refused at open, naming the file, and left as it was") {
  auto path = freshDatabase("not-a-db.db");
  std::string garbage(8192, 'q');
  std::ofstream(path, std::ios::binary) << garbage;
  SqliteAccountingStore store;
  auto status = store.open(path);
  REQUIRE_FALSE(status.ok());
  CHECK(status.errorCode() == gantry::ErrorCode::Internal);
  CHECK_THAT(status.error(), Catch::Contains("accounting database " + path + " is damaged"));
  CHECK(fileBytes(path) == garbage);
}

TEST_CASE("sqlite: a database with a damaged page is refused at open, naming the file") {
  auto path = freshDatabase("damaged.db");
  {
    SqliteAccountingStore store;
    REQUIRE(store.open(path).ok());
    std::vector<JobRecord> records;
    for (uint64_t id = 1; id <= 2000; ++id) records.push_back(jobRecord({.id = id}));
    REQUIRE(store.appendJobs(std::move(records)).ok());
    store.flush();
  }
  // Overwrite pages in the middle of the file (not the header page).
  auto size = std::filesystem::file_size(path);
  REQUIRE(size > 16 * 4096);
  {
    std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
    file.seekp(static_cast<std::streamoff>(size / 2));
    std::string noise(3 * 4096, '\x5a');
    file.write(noise.data(), static_cast<std::streamsize>(noise.size()));
  }
  auto before = fileBytes(path);
  SqliteAccountingStore store;
  auto status = store.open(path);
  REQUIRE_FALSE(status.ok());
  CHECK_THAT(status.error(), Catch::Contains("accounting database " + path + " is damaged"));
  CHECK(fileBytes(path) == before);
}

TEST_CASE("sqlite: a database of a newer schema version is refused at open, naming the file") {
  auto path = freshDatabase("newer.db");
  {
    SqliteAccountingStore store;
    REQUIRE(store.open(path).ok());
  }
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "UPDATE meta SET value = 1000 WHERE key = 'schema_version'", nullptr, nullptr,
                       nullptr) == SQLITE_OK);
  sqlite3_close(db);
  SqliteAccountingStore store;
  auto status = store.open(path);
  REQUIRE_FALSE(status.ok());
  CHECK_THAT(status.error(), Catch::Contains("accounting database " + path + " has schema version 1000"));
}

TEST_CASE("sqlite: the database and its -wal and -shm files are mode 0600, whatever the umask") {
  auto path = freshDatabase("modes.db");
  mode_t previous = ::umask(0);
  SqliteAccountingStore store;
  auto status = store.open(path);
  ::umask(previous);
  REQUIRE(status.ok());
  REQUIRE(store.appendJobs({jobRecord({.id = 70})}).ok());
  store.flush();
  for (const char* suffix : {"", "-wal", "-shm"}) {
    struct stat info {};
    INFO(path + suffix);
    REQUIRE(::stat((path + suffix).c_str(), &info) == 0);
    CHECK((info.st_mode & 0777) == 0600);
  }
}

ACCOUNTING_BACKEND_TEST("queries read while the writer writes, and see whole transactions only") {
  auto store = openFresh(backend, "concurrent.db");
  constexpr uint64_t kBatch = 500;
  for (uint64_t batch = 0; batch < 20; ++batch) {
    std::vector<JobRecord> records;
    for (uint64_t i = 1; i <= kBatch; ++i) records.push_back(jobRecord({.id = batch * kBatch + i}));
    REQUIRE(store->appendJobs(std::move(records)).ok());
  }
  size_t previous = 0;
  for (int read = 0; read < 50; ++read) {
    auto found = store->jobs({.allocationsOnly = true});
    REQUIRE(found.ok());
    CHECK(found->size() % kBatch == 0);
    CHECK(found->size() >= previous);
    previous = found->size();
  }
  store->flush();
  CHECK(allJobs(*store).size() == 20 * kBatch);
}

ACCOUNTING_BACKEND_TEST("many versions of many records in one call: each keeps its furthest-on version") {
  auto store = openFresh(backend, "many-versions.db");
  // More records than one statement carries, and versions of one record
  // far apart in the call.
  std::vector<JobRecord> records;
  for (uint64_t id = 1; id <= 150; ++id) records.push_back(jobRecord({.id = id, .start = kT0 + 1, .state = "RUNNING"}));
  for (uint64_t id = 1; id <= 150; id += 2) {
    records.push_back(jobRecord({.id = id, .start = kT0 + 1, .end = kT0 + 2, .state = "COMPLETED"}));
  }
  for (uint64_t id = 1; id <= 150; ++id) records.push_back(jobRecord({.id = id, .state = "PENDING"}));
  REQUIRE(store->appendJobs(records).ok());
  store->flush();
  auto jobs = allJobs(*store);
  REQUIRE(jobs.size() == 150);
  for (const auto& job : jobs) {
    INFO(job.jobId);
    CHECK(job.state == (job.jobId % 2 == 1 ? "COMPLETED" : "RUNNING"));
  }
}
