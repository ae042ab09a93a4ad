// The accounting store: job and step records and node events, kept for
// sacct and `sacctmgr show event`. A store of its own, apart from the
// controller's state (controller/store), because it grows with every job
// ever run while the state holds only live ones. Two backends implement it:
// SqliteAccountingStore (a file beside the state) and
// PostgresAccountingStore (a server several clusters may share);
// openAccountingStore() (accounting_open.h) picks one.
//
// Writes never block the caller: appendJobs()/appendEvents() check the
// records and queue them; a writer thread takes everything queued since its
// last transaction and writes it in one transaction (group commit), then
// runs each call's callback. A callback with ok means the records are
// durable. Writes are idempotent (accounting_sql.h): delivering a record
// again, as an at-least-once journal does after a crash, stores it once.
//
// Queries (queries.h for the rules) run on the caller's thread on a
// connection of their own, apart from the writer's.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "common/util/result.h"
#include "controller/accounting/queries.h"
#include "controller/accounting/records.h"

namespace gantry::accounting {

// What one append call queues.
struct AccountingWrite {
  std::vector<JobRecord> jobs;
  std::vector<NodeEvent> events;
};

// Thread-safe: append*, flush and the queries may be called from any
// thread; callbacks run on the writer thread and must not call back into
// the store's flush() or close().
class AccountingStore {
 public:
  using Callback = std::function<void(const Status&)>;

  AccountingStore() = default;
  virtual ~AccountingStore() = default;
  AccountingStore(const AccountingStore&) = delete;
  AccountingStore& operator=(const AccountingStore&) = delete;

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
  virtual void flush() = 0;
  // Writes what is queued, then closes; later appends are refused.
  virtual void close() = 0;

  // Transactions committed so far (for benchmarks).
  virtual uint64_t transactions() const = 0;

 protected:
  // The backend's part, called with checked input only. queueWrite fails
  // (Internal) when the store is not open.
  virtual Status queueWrite(AccountingWrite write, Callback done) = 0;
  virtual Result<std::vector<JobRecord>> readJobs(const JobQuery& query) const = 0;
  virtual Result<std::vector<NodeEvent>> readEvents(const EventQuery& query) const = 0;
};

}  // namespace gantry::accounting
