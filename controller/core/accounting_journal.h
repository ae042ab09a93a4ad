// Accounting records on their way from the core to the accounting store.
//
// A record is journaled with the state change that produced it: the rows
// go into the state store in the same transaction as the job's record
// (JobStore::saveJob's `journal`), so a controller killed at any moment
// either has both the change and its record or neither. Once durable, the
// rows are handed to the accounting store; once that store has them, they
// are removed from the journal. After a restart whatever the journal still
// holds is handed over again. Delivery is therefore at least once, and
// the accounting store's idempotent writes make it exactly once in effect.
//
// Only records that changed are journaled: the journal remembers what it
// last wrote for each live job, and a persist of an unchanged job carries
// nothing. When a job's run ends by requeue, the record of that run is
// closed (REQUEUED) and the next run starts a record of its own.
//
// Threading: the records are built where the job's stored form is
// encoded, on the state store's writer thread, so accounting costs the
// core's strand only counting what the allocations hold (persistOf). What
// was last written (lastWritten_, unwritten_) belongs to the writer thread:
// the strand reaches it only through the store's queue (forgetJob,
// rememberUnlessWritten), which keeps it in order with the persists.
// nodeEvents() and recover() run on the strand; deliver() and the store
// callbacks run on the stores' writer threads. A delivery that fails is
// retried from the strand with a growing delay; the core never waits for
// either store.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "common/util/timer.h"
#include "controller/accounting/accounting_store.h"
#include "controller/core/accounting_codec.h"
#include "controller/core/accounting_view.h"
#include "controller/store/job_store.h"
#include "gantry/v1/types.pb.h"

namespace gantry::core {

struct JournalRow {
  uint64_t sequence = 0;
  AccountingEntry entry;
};

class AccountingJournal {
 public:
  AccountingJournal(store::JobStore& store, accounting::AccountingStore& accounting, TimerQueue& timers,
                    std::function<void(std::function<void()>)> post, AccountingScope scope);

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
  // At start (strand): the records last written for the recovered jobs
  // (not journaled again), unless recovery persisted them already.
  void rememberUnlessWritten(const std::map<uint64_t, JobRecord>& jobs, const select::Cluster& cluster);

  // The rows a persist must carry: the records of `job` that changed since
  // the last ones written for it (writer thread; public for tests).
  std::vector<JournalRow> rowsFor(const JobRecord& job, const JobHeldTres& held);
  // A persist that carried rows failed: write the job's records again
  // next time; the rows never reached the journal (writer thread).
  void persistFailed(uint64_t job, const std::vector<JournalRow>& rows);

  // Journals node events on their own and delivers them once durable.
  void journalEvents(const std::vector<accounting::NodeEvent>& events);

  // The stored form of rows, for JobStore::saveJob; the encoding runs on
  // the store's writer thread.
  static store::JobStore::JournalEncoder encoderOf(std::shared_ptr<const std::vector<JournalRow>> rows);
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
  void delivered(const std::vector<JournalRow>& rows, const Status& status);
  // The rows are done with (stored, dropped, or never journaled): the
  // journal may be cut back to below the oldest row still outstanding.
  void settled(const std::vector<JournalRow>& rows);
  void forgetSettled();
  void scheduleRetry();
  void retry();

  store::JobStore& store_;
  accounting::AccountingStore& accounting_;
  TimerQueue& timers_;
  std::function<void(std::function<void()>)> post_;
  AccountingScope scope_;
  uint64_t nextSequence_ = 1;
  std::map<uint64_t, std::vector<accounting::JobRecord>> lastWritten_;  // writer thread only
  // Ended records of an earlier run whose persist failed, for the job's next one (writer thread only).
  std::map<uint64_t, std::vector<accounting::JobRecord>> unwritten_;

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
