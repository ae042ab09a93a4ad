// What only the PostgreSQL backend has: connection errors that name
// host:port/database, a newer schema refused, several clusters in one
// database, a server that dies under the writer, COMMIT durable whatever
// the server's default, text PostgreSQL cannot hold. On this executable's
// throwaway server (postgres_server.h); skipped, saying so, without one.
#include <catch2/catch.hpp>

#include <thread>

#include "controller/accounting/accounting_open.h"
#include "tests/unit/controller/accounting/backend_fixtures.h"

using namespace gantry::accounting;
using namespace gantry::accounting::testing;

namespace {

// The cases below need the server; without PostgreSQL they say so.
#define REQUIRE_POSTGRES() \
  if (skipWithoutPostgres()) return

std::string where(const AccountingConnection& connection) {
  return "accounting database 127.0.0.1:" + std::to_string(connection.port) + "/" + connection.database;
}

// Starts the shared server again when a case that killed it ends, passed
// or not, so the cases after it still have one.
struct RestartAtEnd {
  ~RestartAtEnd() {
    auto status = postgres().restart();
    if (!status) FAIL_CHECK("restarting the test server: " << status.error());
  }
};

std::vector<JobRecord> allJobs(const AccountingStore& store, JobQuery query = {}) {
  auto found = store.jobs(query);
  INFO((found.ok() ? "" : found.error()));
  REQUIRE(found.ok());
  return *found;
}

}  // namespace

TEST_CASE("opening: a connection without its file or database name is refused, naming the backend") {
  auto sqlite = openAccountingStore({.backend = AccountingConnection::Backend::Sqlite});
  REQUIRE_FALSE(sqlite.ok());
  CHECK(sqlite.errorCode() == gantry::ErrorCode::Invalid);
  CHECK_THAT(sqlite.error(), Catch::Contains("no file given for the SQLite backend"));
  auto postgresql = openAccountingStore(
      {.backend = AccountingConnection::Backend::Postgresql, .host = "acct.example", .port = 6543});
  REQUIRE_FALSE(postgresql.ok());
  CHECK(postgresql.errorCode() == gantry::ErrorCode::Invalid);
  CHECK_THAT(postgresql.error(), Catch::Contains("acct.example:6543/") && Catch::Contains("no database name"));
  auto badPort = openAccountingStore({.backend = AccountingConnection::Backend::Postgresql,
                                      .host = "acct.example", .port = 70000, .database = "jobs"});
  REQUIRE_FALSE(badPort.ok());
  CHECK_THAT(badPort.error(), Catch::Contains("port 70000 is not between 1 and 65535"));
}

TEST_CASE("errors name the file, or the server as host:port/database, never the password") {
  using B = AccountingConnection::Backend;
  CHECK(describe({.backend = B::Sqlite, .path = "/srv/acct/jobs.db"}) == "/srv/acct/jobs.db");
  CHECK(describe({.backend = B::Postgresql, .host = "db7", .port = 5433, .password = "s3cret", .database = "jobs"}) ==
        "db7:5433/jobs");
  CHECK(describe({.backend = B::Postgresql, .port = 5432, .database = "jobs"}) == "(local socket):5432/jobs");
}

TEST_CASE("postgresql: a server that refuses the connection: cannot connect, naming host:port/database",
          "[postgresql]") {
  REQUIRE_POSTGRES();
  // The test server's port while it is down: nobody listens there.
  AccountingConnection connection = postgres().connection("ledger_east");
  RestartAtEnd restart;
  REQUIRE(postgres().killNow().ok());
  auto store = openAccountingStore(connection);
  REQUIRE_FALSE(store.ok());
  CHECK(store.errorCode() == gantry::ErrorCode::Unavailable);
  CHECK_THAT(store.error(), Catch::StartsWith(where(connection) + ": cannot connect"));
  CHECK_THAT(store.error(), !Catch::Contains(connection.password));
}

TEST_CASE("postgresql: a database that does not exist is named, and not created", "[postgresql]") {
  REQUIRE_POSTGRES();
  AccountingConnection connection = postgres().connection("no_ledger_here");
  auto store = openAccountingStore(connection);
  REQUIRE_FALSE(store.ok());
  CHECK_THAT(store.error(), Catch::StartsWith(where(connection) + ": no such database"));
  CHECK_FALSE(openAccountingStore(connection).ok());
}

TEST_CASE("postgresql: a wrong password: authentication failed, and the password is not printed",
          "[postgresql]") {
  REQUIRE_POSTGRES();
  REQUIRE(postgres().freshDatabase("ledger_auth").ok());
  AccountingConnection connection = postgres().connection("ledger_auth");
  connection.password = "Tr0ub4dor-wrong";
  auto store = openAccountingStore(connection);
  REQUIRE_FALSE(store.ok());
  CHECK_THAT(store.error(), Catch::StartsWith(where(connection) + ": authentication failed for user gantry"));
  CHECK_THAT(store.error(), !Catch::Contains("Tr0ub4dor"));
}

TEST_CASE("postgresql: a database of a newer schema version is refused at open, and left as it was",
          "[postgresql]") {
  REQUIRE_POSTGRES();
  auto store = openFresh(Backend::Postgresql, "ledger_newer");
  REQUIRE(store->appendJobs({jobRecord({.id = 31})}).ok());
  store->close();
  REQUIRE(postgres().execute("ledger_newer", "UPDATE meta SET value = 42 WHERE key = 'schema_version'").ok());
  AccountingConnection connection = postgres().connection("ledger_newer");
  auto refused = openAccountingStore(connection);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error(), Catch::Contains(where(connection) + " has schema version 42, newer than"));
  // Still 42: the refused open wrote nothing.
  auto again = openAccountingStore(connection);
  REQUIRE_FALSE(again.ok());
  CHECK_THAT(again.error(), Catch::Contains("schema version 42"));
}

TEST_CASE("postgresql: stores opening one new database at once all succeed", "[postgresql]") {
  REQUIRE_POSTGRES();
  REQUIRE(postgres().freshDatabase("ledger_race").ok());
  AccountingConnection connection = postgres().connection("ledger_race");
  std::vector<std::string> failures(4);
  std::vector<std::thread> openers;
  for (size_t i = 0; i < failures.size(); ++i) {
    openers.emplace_back([&, i] {
      auto store = openAccountingStore(connection);
      if (!store) failures[i] = store.error();
    });
  }
  for (auto& opener : openers) opener.join();
  CHECK(failures == std::vector<std::string>(4));
}

TEST_CASE("postgresql: two clusters sharing one database keep their records apart", "[postgresql]") {
  REQUIRE_POSTGRES();
  auto east = openFresh(Backend::Postgresql, "ledger_shared");
  auto west = reopen(Backend::Postgresql, "ledger_shared");
  // The same job ids, steps, submit times, nodes and event starts in both.
  JobRecord eastJob = jobRecord({.cluster = "east", .id = 77, .uid = 5100, .start = kT0 + 10, .state = "RUNNING"});
  JobRecord eastStep = jobRecord({.cluster = "east", .id = 77, .step = "0", .uid = 5100, .start = kT0 + 10,
                                  .state = "RUNNING"});
  JobRecord westJob = jobRecord({.cluster = "west", .id = 77, .uid = 5200, .start = kT0 + 10, .end = kT0 + 90,
                                 .state = "TIMEOUT"});
  NodeEvent eastDown{.cluster = "east", .node = "gn04", .startTime = kT0, .endTime = 0, .state = "DOWN",
                     .reason = "psu", .user = "root", .tres = "cpu=32", .tresReference = ""};
  NodeEvent westDown = eastDown;
  westDown.cluster = "west";
  westDown.endTime = kT0 + 300;
  westDown.reason = "bios";
  REQUIRE(east->appendJobs({eastJob, eastStep}).ok());
  REQUIRE(east->appendEvents({eastDown}).ok());
  REQUIRE(west->appendJobs({westJob}).ok());
  REQUIRE(west->appendEvents({westDown}).ok());
  east->flush();
  west->flush();
  // The west job's end did not end the east job of the same id.
  CHECK(allJobs(*west, {.clusters = {"east"}}) == std::vector<JobRecord>{eastJob, eastStep});
  CHECK(allJobs(*east, {.clusters = {"west"}}) == std::vector<JobRecord>{westJob});
  CHECK(labels(allJobs(*east, {.ids = {{.jobId = 77}}})) ==
        std::vector<std::string>{"77@east", "77.0@east", "77@west"});
  auto events = east->events({.openOnly = true});
  REQUIRE(events.ok());
  CHECK(*events == std::vector<NodeEvent>{eastDown});
}

TEST_CASE("postgresql: a killed server fails the queued writes in their callbacks; once back, writes go on",
          "[postgresql]") {
  REQUIRE_POSTGRES();
  auto store = openFresh(Backend::Postgresql, "ledger_killed");
  AccountingConnection connection = postgres().connection("ledger_killed");
  REQUIRE(store->appendJobs({jobRecord({.id = 1})}).ok());
  store->flush();
  {
    RestartAtEnd restart;
    REQUIRE(postgres().killNow().ok());
    std::vector<gantry::Status> outcomes;
    std::mutex outcomesMutex;
    for (uint64_t id = 2; id <= 5; ++id) {
      REQUIRE(store
                  ->appendJobs({jobRecord({.id = id})},
                               [&](const gantry::Status& status) {
                                 std::lock_guard lock(outcomesMutex);
                                 outcomes.push_back(status);
                               })
                  .ok());
    }
    store->flush();  // returns: the writer does not hang on a dead server
    REQUIRE(outcomes.size() == 4);
    for (const auto& outcome : outcomes) {
      REQUIRE_FALSE(outcome.ok());
      CHECK(outcome.errorCode() == gantry::ErrorCode::Unavailable);
      CHECK_THAT(outcome.error(), Catch::StartsWith(where(connection) + ": "));
    }
    auto query = store->jobs({});
    REQUIRE_FALSE(query.ok());
    CHECK_THAT(query.error(), Catch::StartsWith(where(connection) + ": "));
  }
  // The server is back: the store connects again by itself.
  bool stored = false;
  REQUIRE(store->appendJobs({jobRecord({.id = 6})}, [&](const gantry::Status& status) { stored = status.ok(); })
              .ok());
  store->flush();
  CHECK(stored);
  CHECK(labels(allJobs(*store)) == std::vector<std::string>{"1", "6"});
}

TEST_CASE("postgresql: what a callback called durable survives a crash, whatever the server's synchronous_commit",
          "[postgresql]") {
  REQUIRE_POSTGRES();
  REQUIRE(postgres().freshDatabase("ledger_durable").ok());
  // A server whose default would let COMMIT return before the WAL is written.
  REQUIRE(postgres().execute("postgres", "ALTER DATABASE ledger_durable SET synchronous_commit = off").ok());
  std::atomic<int> durable{0};
  {
    auto store = reopen(Backend::Postgresql, "ledger_durable");
    for (uint64_t id = 1; id <= 300; ++id) {
      REQUIRE(store->appendJobs({jobRecord({.id = id})}, [&](const gantry::Status& status) {
        if (status.ok()) ++durable;
      }).ok());
    }
    store->flush();
    RestartAtEnd restart;
    REQUIRE(postgres().killNow().ok());  // at once, no checkpoint
  }
  REQUIRE(durable == 300);
  auto reopened = reopen(Backend::Postgresql, "ledger_durable");
  CHECK(allJobs(*reopened, {.allocationsOnly = true}).size() == 300);
}

TEST_CASE("postgresql: bytes that are not UTF-8 are stored as U+FFFD instead of failing the transaction",
          "[postgresql]") {
  REQUIRE_POSTGRES();
  auto store = openFresh(Backend::Postgresql, "ledger_bytes");
  JobRecord latin1 = jobRecord({.id = 12});
  latin1.workDir = "/home/jos\xe9/run";
  latin1.comment = std::string("a\0b", 3) + "\xc3\xa9t\xc3\xa9";  // a NUL, then valid UTF-8
  JobRecord plain = jobRecord({.id = 13});
  bool ok = false;
  REQUIRE(store->appendJobs({latin1, plain}, [&](const gantry::Status& status) { ok = status.ok(); }).ok());
  store->flush();
  REQUIRE(ok);
  auto jobs = allJobs(*store);
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].workDir == "/home/jos\xef\xbf\xbd/run");
  CHECK(jobs[0].comment == "a\xef\xbf\xbd" "b\xc3\xa9t\xc3\xa9");
  CHECK(jobs[1] == plain);
}
