// The accounting store on SQLite: job and step records and node events,
// kept for sacct and `sacctmgr show event`. Its own database file, apart
// from the controller's state (controller/store), because it grows with
// every job ever run while the state holds only live ones.
//
// Writes never block the caller: appendJobs()/appendEvents() check the
// records and queue them; a writer thread takes everything queued since its
// last transaction and writes it in one transaction (group commit; WAL,
// synchronous=FULL, so COMMIT means fsync), then runs each call's callback.
// Writes are idempotent (accounting_sql.h): delivering a record again, as
// an at-least-once journal does after a crash, stores it once.
//
// Queries (queries.h for the rules) run on the caller's thread on a
// connection of their own; WAL lets them read while the writer writes.
//
// open() never starts from a file it cannot read whole (PRAGMA quick_check)
// or of a newer schema, and fails naming the file. The database and its
// -wal and -shm files are mode 0600.
//
// The SQL lives in accounting_sql.cpp, so a PostgreSQL backend can follow
// the same schema and statements.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/util/result.h"
#include "controller/accounting/queries.h"
#include "controller/accounting/records.h"

struct sqlite3;

namespace gantry::accounting {

// Thread-safe: append*, flush and the queries may be called from any
// thread; callbacks run on the writer thread and must not call back into
// the store's flush() or close().
class AccountingStore {
 public:
  using Callback = std::function<void(const Status&)>;

  AccountingStore() = default;
  ~AccountingStore();
  AccountingStore(const AccountingStore&) = delete;
  AccountingStore& operator=(const AccountingStore&) = delete;

  // Opens the database file (creating it, mode 0600, when absent), checks
  // it, creates what is missing of the schema and starts the writer. Fails
  // Internal with a message naming the file and what is wrong; a damaged
  // file is left as it was.
  Status open(const std::string& path);

  // Queue records; `done` runs once they are durable, or with the error of
  // the failed transaction (which stored none of its records). A record
  // that breaks a rule (record_checks.h) fails the whole call with Invalid
  // naming it, nothing is queued and `done` is not called; so does a store
  // that is not open (Internal).
  Status appendJobs(std::vector<JobRecord> records, Callback done = {});
  Status appendEvents(std::vector<NodeEvent> events, Callback done = {});

  // A bad query (record_checks.h) is Invalid; a failed read is Internal.
  Result<std::vector<JobRecord>> jobs(const JobQuery& query) const;
  Result<std::vector<NodeEvent>> events(const EventQuery& query) const;

  // Blocks until everything queued so far is written. For shutdown, tests
  // and benchmarks.
  void flush();
  void close();

  // Transactions committed so far (for benchmarks).
  uint64_t transactions() const { return transactions_; }

 private:
  struct Pending {
    std::vector<JobRecord> jobs;
    std::vector<NodeEvent> events;
    Callback done;
  };

  Status enqueue(Pending pending);
  void writerLoop();
  Status writeBatch(const std::deque<Pending>& batch);
  Status check(sqlite3* db) const;
  Status checkSchemaVersion(sqlite3* db) const;
  Error failure(sqlite3* db, const std::string& what) const;

  std::string path_;
  sqlite3* writeDb_ = nullptr;  // the writer thread's once open() returned
  sqlite3* readDb_ = nullptr;   // guarded by readMutex_
  mutable std::mutex readMutex_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable drained_;
  std::deque<Pending> queue_;
  bool stopping_ = false;
  bool writing_ = false;
  std::thread writer_;
  std::atomic<uint64_t> transactions_{0};
};

}  // namespace gantry::accounting
