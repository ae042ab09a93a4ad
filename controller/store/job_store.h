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
#include "gantry/v1/types.pb.h"

struct sqlite3;

namespace gantry::store {

// Node state set by an administrator (DRAIN, DOWN with a reason) survives
// controller restarts.
struct NodeAdminState {
  std::string name;
  std::string state;   // "", "DRAIN", "DOWN"
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
  uint64_t maxJobId = 0;
};

// Owned by the controller; thread-safe: append() may be called from any
// thread, callbacks run on the writer thread.
class JobStore {
 public:
  using Callback = std::function<void(const Status&)>;

  JobStore() = default;
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  // Opens (creating when needed) the database file and starts the writer.
  Status open(const std::string& path);
  // Reads everything back; call after open(), before any append().
  // Jobs that ended more than keepFinishedSeconds before `now` are left out;
  // keepFinishedSeconds == 0 (MinJobAge=0) keeps every ended job.
  Result<Snapshot> load(int64_t now, int64_t keepFinishedSeconds) const;

  // Queues a write; `done` runs once it is durable (or failed).
  void saveJob(const v1::Job& job, Callback done = {});
  void saveNode(const NodeAdminState& node, Callback done = {});
  void saveNodeHardware(const std::string& node, std::string hardware, Callback done = {});

  // Blocks until everything queued so far is durable. For shutdown and tests.
  void flush();
  void close();

  // Transactions and records written so far (for benchmarks).
  uint64_t transactions() const { return transactions_; }

 private:
  struct Pending {
    enum class Kind { Job, Node, Hardware } kind = Kind::Job;
    uint64_t jobId = 0;
    std::string jobBlob;
    int jobState = 0;
    int64_t endTime = 0;
    NodeAdminState node;
    std::string hardware;
    Callback done;
  };

  void writerLoop();
  Status writeBatch(std::deque<Pending>& batch);

  sqlite3* db_ = nullptr;
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
