// The accounting store on PostgreSQL, for sites that keep accounting on a
// database server, possibly one database for several clusters (the cluster
// is part of every key). Same schema, statements and rules as the SQLite
// backend (accounting_sql.h). One writer connection, used by the
// group-commit writer thread, and one read connection for the queries,
// guarded by a mutex. Every COMMIT is durable (synchronous_commit=on for
// our sessions whatever the server's default).
//
// A connection that breaks (the server restarted or went away) fails the
// transaction or query in hand with an error naming host:port/database; the
// next write or query connects again. A query that meets a broken read
// connection is tried once more on a new one.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "controller/accounting/accounting_open.h"
#include "controller/accounting/accounting_store.h"
#include "controller/accounting/group_commit_writer.h"

namespace gantry::accounting {

namespace detail {
class PostgresSession;
}

// Thread-safe as AccountingStore says.
class PostgresAccountingStore final : public AccountingStore {
 public:
  // Connects, refuses a database of a newer schema version, creates what
  // is missing of the schema (stores opening the same database at once
  // take turns) and starts the writer. Errors as openAccountingStore says.
  static Result<std::unique_ptr<PostgresAccountingStore>> open(const AccountingConnection& where);
  ~PostgresAccountingStore() override;

  void flush() override;
  void close() override;
  uint64_t transactions() const override { return transactions_; }

 protected:
  Status queueWrite(AccountingWrite write, Callback done) override;
  Result<std::vector<JobRecord>> readJobs(const JobQuery& query) const override;
  Result<std::vector<NodeEvent>> readEvents(const EventQuery& query) const override;

 private:
  explicit PostgresAccountingStore(const AccountingConnection& where);
  Status prepareSchema();
  Status writeBatch(const std::vector<AccountingWrite>& batch);

  std::unique_ptr<detail::PostgresSession> writeSession_;  // the writer thread's once open() returned
  std::unique_ptr<detail::PostgresSession> readSession_;   // guarded by readMutex_
  mutable std::mutex readMutex_;
  bool open_ = false;                                      // guarded by readMutex_
  GroupCommitWriter<AccountingWrite> writer_;
  std::atomic<uint64_t> transactions_{0};
};

}  // namespace gantry::accounting
