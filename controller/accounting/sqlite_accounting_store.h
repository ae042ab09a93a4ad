// The accounting store on SQLite: one database file of its own (WAL,
// synchronous=FULL, so COMMIT means fsync). The writer and the queries each
// have a connection; WAL lets the queries read while the writer writes.
//
// open() never starts from a file it cannot read whole (PRAGMA quick_check)
// or of a newer schema, and fails naming the file. The database and its
// -wal and -shm files are mode 0600.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "controller/accounting/accounting_store.h"
#include "controller/accounting/group_commit_writer.h"

struct sqlite3;

namespace gantry::accounting {

// Thread-safe as AccountingStore says.
class SqliteAccountingStore final : public AccountingStore {
 public:
  SqliteAccountingStore();
  ~SqliteAccountingStore() override;

  // Opens the database file (creating it, mode 0600, when absent), checks
  // it, creates what is missing of the schema and starts the writer. Fails
  // Internal with a message naming the file and what is wrong; a damaged
  // file is left as it was.
  Status open(const std::string& path);

  void flush() override;
  void close() override;
  uint64_t transactions() const override { return transactions_; }

 protected:
  Status queueWrite(AccountingWrite write, Callback done) override;
  Result<std::vector<JobRecord>> readJobs(const JobQuery& query) const override;
  Result<std::vector<NodeEvent>> readEvents(const EventQuery& query) const override;

 private:
  Status writeBatch(const std::vector<AccountingWrite>& batch);
  Status check(sqlite3* db) const;
  Result<int64_t> storedSchemaVersion(sqlite3* db) const;
  Error failure(sqlite3* db, const std::string& what) const;

  std::string path_;
  sqlite3* writeDb_ = nullptr;  // the writer thread's once open() returned
  sqlite3* readDb_ = nullptr;   // guarded by readMutex_
  mutable std::mutex readMutex_;
  GroupCommitWriter<AccountingWrite> writer_;
  std::atomic<uint64_t> transactions_{0};
};

}  // namespace gantry::accounting
