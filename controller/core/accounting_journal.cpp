#include "controller/core/accounting_journal.h"

#include <algorithm>
#include <spdlog/spdlog.h>

#include "controller/rpc/views.h"

namespace gantry::core {
namespace {

constexpr int kFirstRetrySeconds = 2;
constexpr int kLongestRetrySeconds = 60;
constexpr uint64_t kForgetBatch = 512;
constexpr int kForgetDelaySeconds = 2;

bool ended(const accounting::JobRecord& record) { return record.endTime != 0; }

std::string describe(const AccountingEntry& entry) {
  if (const auto* job = std::get_if<accounting::JobRecord>(&entry)) {
    return "the record of job " + std::to_string(job->jobId) + (job->stepId.empty() ? "" : "." + job->stepId);
  }
  const auto& event = std::get<accounting::NodeEvent>(entry);
  return "the " + event.state + " event of node " + event.node;
}

}  // namespace

AccountingJournal::AccountingJournal(store::JobStore& store, accounting::AccountingStore& accounting,
                                     TimerQueue& timers, std::function<void(std::function<void()>)> post,
                                     AccountingScope scope)
    : store_(store), accounting_(accounting), timers_(timers), post_(std::move(post)), scope_(std::move(scope)) {}

AccountingJournal::Persist AccountingJournal::persistOf(const JobRecord& job, const select::Cluster& cluster,
                                                       v1::Job stored) {
  // One allocation for everything both callbacks share.
  struct Work {
    v1::Job stored;
    JobHeldTres held;
    std::vector<JournalRow> rows;
  };
  auto work = std::make_shared<Work>();
  work->stored = std::move(stored);
  work->held = jobHeldTresOf(job, cluster);
  Persist persist;
  persist.stored = std::shared_ptr<const v1::Job>(work, &work->stored);
  persist.encoder = [this, work] {
    // The stored form holds all the records need but the cluster's
    // counts, which came along: the grants' node indexes are not used.
    JobRecord job = views::jobFromWire(work->stored, [](const std::string&) { return 0; });
    work->rows = rowsFor(job, work->held);
    store::JobStore::JournalRows out;
    out.reserve(work->rows.size());
    for (const auto& row : work->rows) out.emplace_back(row.sequence, encodeAccountingEntry(row.entry));
    return out;
  };
  persist.committed = [this, id = job.id, work](const Status& status) {
    // The records are durable with the change; only then do they go on.
    if (status) deliver(std::move(work->rows));
    else persistFailed(id, work->rows);
  };
  return persist;
}

void AccountingJournal::forgetJob(uint64_t job) {
  store_.journal([this, job] {
    lastWritten_.erase(job);
    unwritten_.erase(job);
    return store::JobStore::JournalRows{};
  });
}

std::vector<JournalRow> AccountingJournal::rowsFor(const JobRecord& job, const JobHeldTres& held) {
  std::vector<accounting::JobRecord>& last = lastWritten_[job.id];
  std::vector<accounting::JobRecord> now = accountingRecordsOf(job, held, scope_);
  std::vector<JournalRow> rows;
  // A run the job has left (requeued): close what was left open of it.
  if (!last.empty() && last.front().submitTime != now.front().submitTime) {
    for (const auto& record : last) {
      if (ended(record)) continue;
      accounting::JobRecord closed = requeuedRun(record, job.requeueTime);
      if (!record.stepId.empty()) closed.state = "CANCELLED";
      rows.push_back({nextSequence(), closed});
    }
    last.clear();
  }
  if (auto carried = unwritten_.find(job.id); carried != unwritten_.end()) {
    for (const auto& record : carried->second) {
      bool thisRun = std::any_of(now.begin(), now.end(), [&](const auto& r) {
        return r.stepId == record.stepId && r.submitTime == record.submitTime;
      });
      if (!thisRun) rows.push_back({nextSequence(), record});
    }
    unwritten_.erase(carried);
  }
  for (const auto& record : now) {
    auto same = std::find_if(last.begin(), last.end(), [&](const auto& r) { return r.stepId == record.stepId; });
    if (same != last.end() && *same == record) continue;
    rows.push_back({nextSequence(), record});
  }
  last = std::move(now);
  return rows;
}

uint64_t AccountingJournal::nextSequence() {
  std::lock_guard lock(mutex_);
  uint64_t sequence = nextSequence_++;
  outstanding_.insert(sequence);
  highestNumbered_ = sequence;
  return sequence;
}

void AccountingJournal::persistFailed(uint64_t job, const std::vector<JournalRow>& rows) {
  lastWritten_.erase(job);
  // Records of a run the job has left (a requeue's closing rows) are not
  // built again from the job: they go with its next persist.
  for (const auto& row : rows) {
    const auto* record = std::get_if<accounting::JobRecord>(&row.entry);
    if (record != nullptr && record->endTime != 0) unwritten_[job].push_back(*record);
  }
  settled(rows);
}

void AccountingJournal::settled(const std::vector<JournalRow>& rows) {
  bool now = false, later = false;
  {
    std::lock_guard lock(mutex_);
    for (const auto& row : rows) outstanding_.erase(row.sequence);
    uint64_t through = outstanding_.empty() ? highestNumbered_ : *outstanding_.begin() - 1;
    if (through > forgottenThrough_) {
      now = through - forgottenThrough_ >= kForgetBatch;
      later = !now && !forgetScheduled_;
      if (later) forgetScheduled_ = true;
    }
  }
  if (now) forgetSettled();
  if (later) {
    post_([this] { timers_.after(std::chrono::seconds(kForgetDelaySeconds), [this] { forgetSettled(); }); });
  }
}

void AccountingJournal::forgetSettled() {
  uint64_t through;
  {
    std::lock_guard lock(mutex_);
    forgetScheduled_ = false;
    through = outstanding_.empty() ? highestNumbered_ : *outstanding_.begin() - 1;
    if (through <= forgottenThrough_) return;
    forgottenThrough_ = through;
  }
  store_.forgetJournalThrough(through);
}

void AccountingJournal::rememberUnlessWritten(const std::map<uint64_t, JobRecord>& jobs,
                                              const select::Cluster& cluster) {
  auto records = std::make_shared<std::map<uint64_t, std::vector<accounting::JobRecord>>>();
  for (const auto& [id, job] : jobs) (*records)[id] = accountingRecordsOf(job, cluster, scope_);
  // After the persists recovery queued: those journaled what they changed.
  store_.journal([this, records] {
    for (auto& [id, written] : *records) lastWritten_.try_emplace(id, std::move(written));
    return store::JobStore::JournalRows{};
  });
}

void AccountingJournal::journalEvents(const std::vector<accounting::NodeEvent>& events) {
  if (events.empty()) return;
  auto rows = std::make_shared<std::vector<JournalRow>>();
  for (const auto& event : events) rows->push_back({nextSequence(), event});
  store_.journal(encoderOf(rows), [this, rows](const Status& status) {
    if (!status) {
      spdlog::error("accounting: node events could not be journaled: {}", status.error());
      settled(*rows);
      return;
    }
    deliver(*rows);
  });
}

store::JobStore::JournalEncoder AccountingJournal::encoderOf(std::shared_ptr<const std::vector<JournalRow>> rows) {
  return [rows = std::move(rows)] {
    store::JobStore::JournalRows out;
    out.reserve(rows->size());
    for (const auto& row : *rows) out.emplace_back(row.sequence, encodeAccountingEntry(row.entry));
    return out;
  };
}

void AccountingJournal::deliver(std::vector<JournalRow> rows) {
  if (rows.empty()) return;
  std::vector<accounting::JobRecord> jobs;
  std::vector<accounting::NodeEvent> events;
  for (const auto& row : rows) {
    if (const auto* job = std::get_if<accounting::JobRecord>(&row.entry)) jobs.push_back(*job);
    else events.push_back(std::get<accounting::NodeEvent>(row.entry));
  }
  {
    std::lock_guard lock(mutex_);
    // Older rows wait for a retry: these go after them, so the store sees
    // every record's versions in the order they were made.
    if (!failed_.empty()) {
      failed_.insert(failed_.end(), rows.begin(), rows.end());
      return;
    }
    ++inFlight_;
  }
  // Jobs and events may be written in two transactions: the rows are
  // delivered once both are, and failed if either failed.
  struct Outcome {
    std::mutex mutex;
    int waiting = 0;
    Status first = okStatus();
  };
  auto outcome = std::make_shared<Outcome>();
  outcome->waiting = (jobs.empty() ? 0 : 1) + (events.empty() ? 0 : 1);
  accounting::AccountingStore::Callback done = [this, rows, outcome](const Status& status) {
    Status result = okStatus();
    {
      std::lock_guard lock(outcome->mutex);
      if (!status && outcome->first) outcome->first = status;
      if (--outcome->waiting > 0) return;
      result = outcome->first;
    }
    {
      std::lock_guard lock(mutex_);
      --inFlight_;
    }
    delivered(rows, result);
  };
  Status queued = okStatus();
  if (!jobs.empty()) queued = accounting_.appendJobs(std::move(jobs), done);
  if (queued && !events.empty()) {
    queued = accounting_.appendEvents(std::move(events), done);
    // The jobs are queued and will report; the events' refusal is theirs.
    if (!queued) done(queued);
    return;
  }
  if (queued) return;
  {
    std::lock_guard lock(mutex_);
    --inFlight_;
  }
  if (rows.size() > 1 && queued.failure().code == ErrorCode::Invalid) {
    // One record breaks a rule: deliver each alone, so only it is lost.
    for (auto& row : rows) deliver({std::move(row)});
    return;
  }
  delivered(rows, queued);
}

void AccountingJournal::delivered(const std::vector<JournalRow>& rows, const Status& status) {
  bool hopeless = !status && status.failure().code == ErrorCode::Invalid;
  {
    std::lock_guard lock(mutex_);
    if (!status && !hopeless) {
      failed_.insert(failed_.end(), rows.begin(), rows.end());
    } else {
      retryDelaySeconds_ = 0;
    }
  }
  if (hopeless) {
    // A record the accounting store can never take is dropped, not retried
    // for ever; the log says which.
    spdlog::error("accounting: {} was refused and is dropped: {}", describe(rows.front().entry), status.error());
  } else if (!status) {
    spdlog::warn("accounting: {} record(s) not stored yet, retrying: {}", rows.size(), status.error());
    post_([this] { scheduleRetry(); });
    return;
  }
  settled(rows);
}

void AccountingJournal::scheduleRetry() {
  int delay;
  {
    std::lock_guard lock(mutex_);
    if (retryScheduled_ || failed_.empty()) return;
    retryScheduled_ = true;
    retryDelaySeconds_ = std::clamp(retryDelaySeconds_ * 2, kFirstRetrySeconds, kLongestRetrySeconds);
    delay = retryDelaySeconds_;
  }
  timers_.after(std::chrono::seconds(delay), [this] { retry(); });
}

void AccountingJournal::retry() {
  std::vector<JournalRow> rows;
  {
    std::lock_guard lock(mutex_);
    retryScheduled_ = false;
    rows.swap(failed_);
  }
  deliver(std::move(rows));
}

void AccountingJournal::recover(const std::map<uint64_t, std::string>& journal) {
  std::vector<JournalRow> rows;
  {
    // Numbering goes on above the rows left; below them nothing is left.
    std::lock_guard lock(mutex_);
    if (!journal.empty()) {
      forgottenThrough_ = journal.begin()->first - 1;
      nextSequence_ = std::max(nextSequence_, journal.rbegin()->first + 1);
      highestNumbered_ = nextSequence_ - 1;
    }
  }
  for (const auto& [sequence, text] : journal) {
    auto entry = decodeAccountingEntry(text);
    if (!entry) {
      // Cut with the rows around it once those are delivered.
      spdlog::error("accounting: journal row {} cannot be read and is dropped: {}", sequence, entry.error());
      continue;
    }
    std::lock_guard lock(mutex_);
    outstanding_.insert(sequence);
    rows.push_back({sequence, std::move(*entry)});
  }
  if (rows.empty() && !journal.empty()) forgetSettled();
  if (!rows.empty()) spdlog::info("accounting: delivering {} journaled record(s) left from before the restart", rows.size());
  // In batches, so one refused record costs little.
  constexpr size_t kBatch = 500;
  for (size_t i = 0; i < rows.size(); i += kBatch) {
    size_t end = std::min(rows.size(), i + kBatch);
    deliver(std::vector<JournalRow>(rows.begin() + static_cast<long>(i), rows.begin() + static_cast<long>(end)));
  }
}

size_t AccountingJournal::inFlight() const {
  std::lock_guard lock(mutex_);
  return inFlight_;
}

size_t AccountingJournal::awaitingRetry() const {
  std::lock_guard lock(mutex_);
  return failed_.size();
}

}  // namespace gantry::core
