// Accounting records on their way from the core to the accounting store.
//
// No record is lost across a controller kill -9, because each is durable
// with the state change that produced it before it is handed on. A record
// still open (a pending or running job, a running step) is built from the
// job's stored form, which that change wrote: it needs nothing else to be
// durable. A record that has ended may outlive the stored job (the job is
// purged, or a requeue starts a new run), so it is journaled: its rows go
// into the state store in the same transaction as the job's record
// (JobStore::saveJob's `journal`). Once the transaction is durable, the
// records are handed to the accounting store; once that store has the
// journaled ones, they are removed from the journal. After a restart the
// journal's rows are handed over again, and so are the open records of
// every recovered job. Delivery is therefore at least once, and the
// accounting store's idempotent writes make it exactly once in effect.
// Keeping open records out of the journal keeps a submission's state
// transaction the size it has without accounting.
//
// Only records that changed are handed on: the journal remembers what it
// last wrote for each live job, and a persist of an unchanged job carries
// nothing. When a job's run ends by requeue, the record of that run is
// closed (REQUEUED) and the next run starts a record of its own.
//
// Threading: the records are built from the job's stored form, so
// accounting costs the core's strand only counting what the allocations
// hold (persistOf). A persist that may end a record (the job or a step
// ended, a requeue) has its records built where the stored form is
// encoded, on the state store's writer thread, since its journal rows go
// into that transaction. Any other persist only leaves its stored form for
// the journal's builder thread, which builds the records once the persist
// is durable, at a lower CPU priority: when the cores are busy, the strand
// and the state store (which answer submissions) go first, and a job's
// later persist supersedes one not built yet. The two build in the order
// of the persists: each persist is numbered where it is encoded, and a
// build older than the last one written for the job is dropped. What was
// last written (lastWritten_, unwritten_, deferred_) is guarded by
// recordsMutex_; the strand reaches it only through the store's queue
// (forgetJob, rememberUnlessWritten), which keeps it in order with the
// persists. nodeEvents() and recover() run on the strand; deliver() and
// the store callbacks run on the stores' writer threads. A delivery that
// fails is retried from the strand with a growing delay; the core never
// waits for either store.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/util/timer.h"
#include "controller/accounting/accounting_store.h"
#include "controller/core/accounting_codec.h"
#include "controller/core/accounting_view.h"
#include "controller/store/job_store.h"
#include "gantry/v1/types.pb.h"

namespace gantry::core {

struct JournalRow {
  uint64_t sequence = 0;  // kNotJournaled: delivered without a journal row
  AccountingEntry entry;
};
inline constexpr uint64_t kNotJournaled = 0;

class AccountingJournal {
 public:
  AccountingJournal(store::JobStore& store, accounting::AccountingStore& accounting, TimerQueue& timers,
                    std::function<void(std::function<void()>)> post, AccountingScope scope);
  // Stops the builder; records it had not built yet are open ones, which
  // the next start delivers again.
  ~AccountingJournal();
  AccountingJournal(const AccountingJournal&) = delete;
  AccountingJournal& operator=(const AccountingJournal&) = delete;

  const AccountingScope& scope() const { return scope_; }

  // A persist of `job` (strand): `stored` is its stored form. The encoder
  // goes to JobStore::saveJob with it and builds, on the writer thread,
  // the job's records from `stored`, journaling those that changed since
  // the last ones written; `committed` is to run with the commit's status
  // (it hands the rows on, or takes back what the failed persist claimed).
  struct Persist {
    std::shared_ptr<const v1::Job> stored;
    store::JobStore::JournalEncoder encoder;
    std::function<void(const Status&)> committed;
  };
  Persist persistOf(const JobRecord& job, const select::Cluster& cluster, v1::Job stored);
  // The job left the controller's memory (strand).
  void forgetJob(uint64_t job);
  // At start (strand): the records of the recovered jobs are taken as last
  // written, unless recovery persisted them already, and their open
  // records are delivered again (they have no journal row).
  void rememberUnlessWritten(const std::map<uint64_t, JobRecord>& jobs, const select::Cluster& cluster);

  // The rows a persist must carry: the records of `job` that changed since
  // the last ones written for it (with recordsMutex_ held; public for tests).
  std::vector<JournalRow> rowsFor(const JobRecord& job, const JobHeldTres& held);
  // Blocks until the builder has handed on every durable persist left to
  // it (tests, benchmarks and shutdown; not from the builder's callbacks).
  void flush();
  // While one lives (a scheduling pass on the strand), the builder waits
  // before its next job, within its longest wait: on a machine with few
  // cores its work would otherwise slow the pass from the other core.
  class CoreBusy {
   public:
    explicit CoreBusy(AccountingJournal* journal) : journal_(journal) {
      if (journal_ != nullptr) journal_->coreBusy_.fetch_add(1, std::memory_order_relaxed);
    }
    ~CoreBusy() {
      if (journal_ != nullptr) journal_->coreBusy_.fetch_sub(1, std::memory_order_relaxed);
    }
    CoreBusy(const CoreBusy&) = delete;
    CoreBusy& operator=(const CoreBusy&) = delete;

   private:
    AccountingJournal* journal_;
  };
  // A persist that carried rows failed: write the job's records again
  // next time; the rows never reached the journal (recordsMutex_ held).
  void persistFailed(uint64_t job, const std::vector<JournalRow>& rows);

  // Journals node events on their own and delivers them once durable.
  void journalEvents(const std::vector<accounting::NodeEvent>& events);

  // The stored form of rows, for JobStore::saveJob; the encoding runs on
  // the store's writer thread. Rows not journaled are left out.
  static store::JobStore::JournalEncoder encoderOf(std::shared_ptr<const std::vector<JournalRow>> rows);
  static store::JobStore::JournalRows encodeRows(const std::vector<JournalRow>& rows);
  // Hands durable rows to the accounting store. Thread-safe.
  void deliver(std::vector<JournalRow> rows);
  // At start: delivers what the journal still held. Rows that cannot be
  // decoded are reported and dropped.
  void recover(const std::map<uint64_t, std::string>& journal);

  // For tests and diagnostics: rows handed over and not yet confirmed, and
  // rows waiting for a retry.
  size_t inFlight() const;
  size_t awaitingRetry() const;

 private:
  uint64_t nextSequence();
  // A row for `record`, numbered (journaled) only when it has ended.
  JournalRow rowOf(accounting::JobRecord record);
  void delivered(const std::vector<JournalRow>& rows, const Status& status);
  // The rows are done with (stored, dropped, or never journaled): the
  // journal may be cut back to below the oldest row still outstanding.
  void settled(const std::vector<JournalRow>& rows);
  void forgetSettled();
  void scheduleRetry();
  void retry();

  // One persist's stored form and counts, shared by its callbacks.
  struct PersistWork {
    v1::Job stored;
    JobHeldTres held;
    uint64_t order = 0;     // numbered where encoded, in the persists' order
    bool inline_ = false;   // its records were built on the writer thread
    std::vector<JournalRow> rows;
  };
  // A job's persists left to the builder: the newest durable one, and one
  // encoded whose commit has not reported yet.
  struct Deferred {
    std::shared_ptr<PersistWork> durable;
    std::shared_ptr<PersistWork> committing;
  };
  struct Written {
    uint64_t order = 0;  // of the persist these were built from
    std::vector<accounting::JobRecord> records;
  };
  // Whether the stored job may have a record that ended (so its persist
  // must journal rows).
  bool mayEndRecords(const v1::Job& stored) const;
  // The job's newest persist whose records are not built yet (encoded,
  // durable, or in the builder's hands), if any.
  std::shared_ptr<PersistWork> newestUnbuilt(uint64_t job) const;
  static constexpr int64_t kUnknownRun = -1;
  static int64_t runOf(const v1::Job& stored);  // the run's submit time
  int64_t lastWrittenRun(uint64_t job) const;   // kUnknownRun before the first
  static JobRecord fromStored(const PersistWork& work);
  // rowsFor with the job's records already built.
  std::vector<JournalRow> rowsFrom(const JobRecord& job, std::vector<accounting::JobRecord> now);
  void deferredCommitted(const std::shared_ptr<PersistWork>& work, const Status& status);
  void runBuilder();

  store::JobStore& store_;
  accounting::AccountingStore& accounting_;
  TimerQueue& timers_;
  std::function<void(std::function<void()>)> post_;
  AccountingScope scope_;
  uint64_t nextSequence_ = 1;

  std::mutex recordsMutex_;  // guards what follows, to the builder's thread
  std::map<uint64_t, Written> lastWritten_;
  // Ended records of an earlier run whose persist failed, for the job's next one.
  std::map<uint64_t, std::vector<accounting::JobRecord>> unwritten_;
  uint64_t encodedOrder_ = 0;
  std::map<uint64_t, Deferred> deferred_;
  std::deque<uint64_t> ready_;  // jobs whose durable persist waits for the builder
  std::map<uint64_t, std::shared_ptr<PersistWork>> inBuild_;  // what the builder builds now
  uint64_t arrivals_ = 0;  // durable persists left to the builder, ever
  bool building_ = false;
  bool stopping_ = false;
  int flushing_ = 0;  // callers waiting in flush(): build without waiting for a pause
  std::atomic<int> coreBusy_{0};  // CoreBusy guards alive
  std::condition_variable builderWake_;
  std::condition_variable builderIdle_;
  std::thread builder_;

  mutable std::mutex mutex_;  // guards what follows
  // Rows numbered and not yet settled; the journal is cut back through the
  // row before the oldest of them, in batches (kForgetBatch rows, or at the
  // latest kForgetDelaySeconds after a settle), so removing rows costs the
  // state store one statement per batch rather than one per record. Rows
  // settled but not yet cut are delivered again after a restart, which the
  // accounting store's idempotent writes absorb.
  std::set<uint64_t> outstanding_;
  uint64_t highestNumbered_ = 0;
  uint64_t forgottenThrough_ = 0;
  bool forgetScheduled_ = false;
  size_t inFlight_ = 0;
  std::vector<JournalRow> failed_;
  bool retryScheduled_ = false;
  int retryDelaySeconds_ = 0;
};

}  // namespace gantry::core
