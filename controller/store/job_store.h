// Durable controller state. Every accepted submission and every job state
// change is written here before the caller is answered. Every failure here
// (the database cannot be opened, read or written) is ErrorCode::Internal.
//
// Writes are group-committed: the JournalWriter thread takes every record
// queued since its last transaction, writes them in one SQLite transaction
// (WAL, synchronous=FULL, so COMMIT means fsync), then runs each record's
// completion callback. Throughput is therefore bounded by fsyncs per second
// times the batch size, not by one job per fsync, and the controller core
// never waits on the disk: it queues and moves on.
//
// The store never starts from a database it cannot read whole: open()
// checks the file (PRAGMA quick_check, then every row of every table read
// and every job record parsed) and fails naming the file and what is
// wrong. salvage.h makes a new database from what a damaged one still
// holds, for an administrator who chooses to go on. Job ids are never
// handed out twice: the highest id ever stored is kept in a table of its
// own, so it outlives the rows of ended jobs and a lost page of `jobs`.
//
// Files: the database and its -wal and -shm are created mode 0600, the
// state directory (createStateDirectory) 0700.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/util/result.h"
#include "controller/drain/drained_tres.h"
#include "gantry/v1/types.pb.h"

struct sqlite3;

namespace gantry::store {

// Node state set by an administrator (DRAIN, DOWN with a reason) survives
// controller restarts.
struct NodeAdminState {
  std::string name;
  std::string state;   // "", "DRAIN", "DOWN", "FAIL"
  std::string reason;
  std::string user;
  int64_t reasonTime = 0;
};

struct Snapshot {
  std::vector<v1::Job> jobs;
  std::vector<NodeAdminState> nodes;
  // The hardware of each node's last registration (a serialized
  // v1::NodeHardware), so recovered allocations land on the devices they held.
  std::map<std::string, std::string> nodeHardware;
  // Each node's per-device drains and saved device order (controller/drain).
  std::map<std::string, drain::DrainedTres> nodeDrains;
  // Accounting records journaled and not yet delivered, by sequence number.
  std::map<uint64_t, std::string> accountingJournal;
  // Fair share's usage ledger as it was last saved ("" when never).
  std::string usageLedger;
  // The highest job id ever stored (the high-water mark, or a row above
  // it): the next job gets a higher one.
  uint64_t maxJobId = 0;
};

// Creates the state directory and any missing parents; the directory
// itself is made mode 0700 when it is created here (an existing one keeps
// its mode). Fails Internal naming the directory.
Status createStateDirectory(const std::string& dir);

// Owned by the controller; thread-safe: append() may be called from any
// thread, callbacks run on the writer thread.
class JobStore {
 public:
  using Callback = std::function<void(const Status&)>;

  JobStore() = default;
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  // Opens the database file (creating it, mode 0600, when absent), checks
  // that all of it can be read and starts the writer. Fails Internal with
  // a message that names the file and says what is wrong (SQLite's first
  // quick_check messages, the table that cannot be read, the job whose
  // record does not parse); a damaged file is left as it was.
  Status open(const std::string& path);
  // After open() or load() failed: whether the file's content is damaged
  // (SQLite found corruption, or a record is not whole), as opposed to a
  // file that could not be opened or read at all (permissions, a lock, an
  // I/O error). Only damage is a case for salvageDatabase (salvage.h).
  bool damageFound() const { return damageFound_; }
  // Reads everything back; call after open(), before any append(). Fails
  // like open() when a row cannot be read: a snapshot is never partial.
  // Jobs that ended more than keepFinishedSeconds before `now` are left out;
  // keepFinishedSeconds == 0 (MinJobAge=0) keeps every ended job.
  Result<Snapshot> load(int64_t now, int64_t keepFinishedSeconds) const;

  // Accounting records to keep until they are delivered: each one's
  // sequence number (the caller's, increasing) and its encoded form. The
  // encoder runs on the writer thread, so encoding costs the caller nothing.
  using JournalRows = std::vector<std::pair<uint64_t, std::string>>;
  using JournalEncoder = std::function<JournalRows()>;

  // Queues a write; `done` runs once it is durable (or failed). The
  // `journal` rows are written in the same transaction as the job.
  void saveJob(const v1::Job& job, Callback done = {}, JournalEncoder journal = {});
  // Journal rows on their own (node events), and the removal of every row
  // up to a sequence number once the accounting store has them all.
  void journal(JournalEncoder rows, Callback done = {});
  void forgetJournalThrough(uint64_t sequence, Callback done = {});
  void saveNode(const NodeAdminState& node, Callback done = {});
  void saveNodeHardware(const std::string& node, std::string hardware, Callback done = {});
  void saveNodeDrains(const std::string& node, const drain::DrainedTres& drains, Callback done = {});
  // Fair share's usage ledger (its text form), replacing the last one.
  void saveUsageLedger(std::string ledger, Callback done = {});

  // Blocks until everything queued so far is durable. For shutdown and tests.
  void flush();
  void close();

  // Transactions and records written so far (for benchmarks).
  uint64_t transactions() const { return transactions_; }

 private:
  struct Pending {
    enum class Kind { Job, Node, Hardware, Drains, Journal, Usage } kind = Kind::Job;
    uint64_t jobId = 0;
    std::string jobBlob;
    int jobState = 0;
    int64_t endTime = 0;
    NodeAdminState node;
    std::string hardware;  // Hardware: the serialized record; Drains: the stored JSON
    JournalEncoder journal;   // Job, Journal: rows to add
    uint64_t forgetThrough = 0;  // Journal: rows up to this one to remove
    Callback done;
  };

  void enqueue(Pending pending);
  void saveNodeBlob(Pending::Kind kind, const std::string& node, std::string blob, Callback done);
  void writerLoop();
  Status writeBatch(std::deque<Pending>& batch);
  Status check() const;
  Status readJobs(int64_t now, int64_t keepFinishedSeconds, std::vector<v1::Job>* jobs) const;
  Status readNodes(Snapshot* snapshot) const;
  Status readJournal(Snapshot* snapshot) const;
  Error damaged(const std::string& what) const;
  Error sqliteFailure(const std::string& what) const;

  std::string path_;
  sqlite3* db_ = nullptr;
  // The high-water mark as stored; touched only by open() and the writer.
  uint64_t maxJobId_ = 0;
  mutable bool damageFound_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable drained_;
  std::deque<Pending> queue_;
  bool stopping_ = false;
  bool writing_ = false;
  std::thread writer_;
  std::atomic<uint64_t> transactions_{0};
};

}  // namespace gantry::store
