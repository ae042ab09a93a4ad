#include "controller/core/accounting_journal.h"

#include <algorithm>
#include <chrono>
#include <spdlog/spdlog.h>
#include <pthread.h>
#include <sched.h>

#include "controller/rpc/views.h"

namespace gantry::core {
namespace {

constexpr int kFirstRetrySeconds = 2;
constexpr int kLongestRetrySeconds = 60;
constexpr uint64_t kForgetBatch = 512;
constexpr int kForgetDelaySeconds = 2;
// The builder waits for this long a pause in the persists, but never
// longer than the second: what sacct shows lags a busy controller by at
// most about that (and the accounting store's gather window).
constexpr auto kBuilderQuietPeriod = std::chrono::milliseconds(20);
constexpr auto kBuilderLongestWait = std::chrono::seconds(1);

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
    : store_(store), accounting_(accounting), timers_(timers), post_(std::move(post)), scope_(std::move(scope)) {
  builder_ = std::thread([this] { runBuilder(); });
}

AccountingJournal::~AccountingJournal() {
  {
    std::lock_guard lock(recordsMutex_);
    stopping_ = true;
  }
  builderWake_.notify_one();
  builder_.join();
}

AccountingJournal::Persist AccountingJournal::persistOf(const JobRecord& job, const select::Cluster& cluster,
                                                       v1::Job stored) {
  auto work = std::make_shared<PersistWork>();
  work->stored = std::move(stored);
  work->held = jobHeldTresOf(job, cluster);
  Persist persist;
  persist.stored = std::shared_ptr<const v1::Job>(work, &work->stored);
  persist.encoder = [this, work] {
    uint64_t id = work->stored.job_id();
    std::lock_guard lock(recordsMutex_);
    work->order = ++encodedOrder_;
    std::shared_ptr<PersistWork> unbuilt = newestUnbuilt(id);
    int64_t lastRun = unbuilt ? runOf(unbuilt->stored) : lastWrittenRun(id);
    bool requeued = lastRun != kUnknownRun && lastRun != runOf(work->stored);
    if (!requeued && !mayEndRecords(work->stored)) {
      // Nothing to journal: the builder makes the records once durable.
      deferred_[id].committing = work;
      return store::JobStore::JournalRows{};
    }
    // This persist's records cover every change before it, but for the
    // run a requeue ended: its last state, if not built yet, is built
    // first, so that the run is recorded and then closed.
    deferred_.erase(id);
    work->inline_ = true;
    if (requeued && unbuilt) work->rows = rowsFor(fromStored(*unbuilt), unbuilt->held);
    for (auto& row : rowsFor(fromStored(*work), work->held)) work->rows.push_back(std::move(row));
    lastWritten_[id].order = work->order;
    return encodeRows(work->rows);
  };
  persist.committed = [this, work](const Status& status) {
    if (!work->inline_) return deferredCommitted(work, status);
    // The records are durable with the change; only then do they go on.
    if (status) return deliver(std::move(work->rows));
    std::lock_guard lock(recordsMutex_);
    persistFailed(work->stored.job_id(), work->rows);
  };
  return persist;
}

JobRecord AccountingJournal::fromStored(const PersistWork& work) {
  // The stored form holds all the records need but the cluster's counts,
  // which came along: the grants' node indexes are not used.
  return views::jobFromWire(work.stored, [](const std::string&) { return 0; });
}

int64_t AccountingJournal::runOf(const v1::Job& stored) {
  return stored.requeue_time() != 0 ? stored.requeue_time() : stored.submit_time();
}

int64_t AccountingJournal::lastWrittenRun(uint64_t job) const {
  auto last = lastWritten_.find(job);
  if (last == lastWritten_.end() || last->second.records.empty()) return kUnknownRun;
  return last->second.records.front().submitTime;
}

std::shared_ptr<AccountingJournal::PersistWork> AccountingJournal::newestUnbuilt(uint64_t job) const {
  if (auto entry = deferred_.find(job); entry != deferred_.end()) {
    if (entry->second.committing) return entry->second.committing;
    if (entry->second.durable) return entry->second.durable;
  }
  if (auto building = inBuild_.find(job); building != inBuild_.end()) return building->second;
  return nullptr;
}

bool AccountingJournal::mayEndRecords(const v1::Job& stored) const {
  JobState state = views::fromWire(stored.state());
  if (isEnded(state) || state == JobState::Completing) return true;
  if (unwritten_.count(stored.job_id()) != 0) return true;
  for (const auto& step : stored.steps()) {
    if (step.start_time() >= stored.requeue_time() && step.nodes_left().empty()) return true;
  }
  return false;
}

void AccountingJournal::deferredCommitted(const std::shared_ptr<PersistWork>& work, const Status& status) {
  uint64_t id = work->stored.job_id();
  {
    std::lock_guard lock(recordsMutex_);
    auto entry = deferred_.find(id);
    // Superseded meanwhile by a persist built on the writer thread.
    if (entry == deferred_.end() || entry->second.committing != work) return;
    entry->second.committing.reset();
    if (!status) {
      // The store still holds the persist before it, if any waits here.
      if (!entry->second.durable) deferred_.erase(entry);
      return;
    }
    bool queued = entry->second.durable != nullptr;
    entry->second.durable = work;
    ++arrivals_;
    if (queued) return;
    ready_.push_back(id);
    if (ready_.size() > 1) return;
  }
  builderWake_.notify_one();
}

void AccountingJournal::runBuilder() {
  // Background work: it runs only on a core nothing else wants.
  sched_param idle{};
  pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
  std::unique_lock lock(recordsMutex_);
  for (;;) {
    builderWake_.wait(lock, [this] { return stopping_ || !ready_.empty(); });
    // A burst of persists (submissions, a pass starting jobs) is left to
    // end first, within a bound: a job persisted again meanwhile is then
    // built once, and the burst's own threads have the cores to themselves.
    auto firstReady = std::chrono::steady_clock::now();
    while (!stopping_ && flushing_ == 0) {
      uint64_t seen = arrivals_;
      builderWake_.wait_for(lock, kBuilderQuietPeriod, [this] { return stopping_ || flushing_ > 0; });
      if (arrivals_ == seen || std::chrono::steady_clock::now() - firstReady >= kBuilderLongestWait) break;
    }
    if (stopping_) return;
    std::vector<std::shared_ptr<PersistWork>> works;
    for (uint64_t id : ready_) {
      auto entry = deferred_.find(id);
      if (entry == deferred_.end() || !entry->second.durable) continue;
      inBuild_[id] = entry->second.durable;
      works.push_back(std::move(entry->second.durable));
      if (!entry->second.committing) deferred_.erase(entry);
    }
    ready_.clear();
    building_ = true;
    lock.unlock();
    // The costly part, outside the lock the writer thread takes.
    std::vector<std::pair<JobRecord, std::vector<accounting::JobRecord>>> built;
    built.reserve(works.size());
    for (const auto& work : works) {
      while (coreBusy_.load(std::memory_order_relaxed) > 0 &&
             std::chrono::steady_clock::now() - firstReady < kBuilderLongestWait) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      JobRecord job = fromStored(*work);
      std::vector<accounting::JobRecord> records = accountingRecordsOf(job, work->held, scope_);
      built.emplace_back(std::move(job), std::move(records));
    }
    lock.lock();
    std::vector<JournalRow> rows;
    for (size_t i = 0; i < works.size(); ++i) {
      Written& last = lastWritten_[works[i]->stored.job_id()];
      // A persist built on the writer thread since covers this one.
      if (last.order >= works[i]->order) continue;
      for (auto& row : rowsFrom(built[i].first, std::move(built[i].second))) rows.push_back(std::move(row));
      last.order = works[i]->order;
    }
    // Under the lock: in order with the writer thread's deliveries.
    deliver(std::move(rows));
    inBuild_.clear();
    building_ = false;
    if (ready_.empty()) builderIdle_.notify_all();
  }
}

void AccountingJournal::flush() {
  std::unique_lock lock(recordsMutex_);
  ++flushing_;
  builderWake_.notify_one();
  builderIdle_.wait(lock, [this] { return stopping_ || (ready_.empty() && !building_); });
  --flushing_;
}

void AccountingJournal::forgetJob(uint64_t job) {
  store_.journal([this, job] {
    std::lock_guard lock(recordsMutex_);
    lastWritten_.erase(job);
    unwritten_.erase(job);
    deferred_.erase(job);
    return store::JobStore::JournalRows{};
  });
}

std::vector<JournalRow> AccountingJournal::rowsFor(const JobRecord& job, const JobHeldTres& held) {
  return rowsFrom(job, accountingRecordsOf(job, held, scope_));
}

std::vector<JournalRow> AccountingJournal::rowsFrom(const JobRecord& job, std::vector<accounting::JobRecord> now) {
  std::vector<accounting::JobRecord>& last = lastWritten_[job.id].records;
  std::vector<JournalRow> rows;
  // A run the job has left (requeued): close what was left open of it.
  if (!last.empty() && last.front().submitTime != now.front().submitTime) {
    for (const auto& record : last) {
      if (ended(record)) continue;
      accounting::JobRecord closed = requeuedRun(record, job.requeueTime);
      if (!record.stepId.empty()) closed.state = "CANCELLED";
      rows.push_back(rowOf(std::move(closed)));
    }
    last.clear();
  }
  if (auto carried = unwritten_.find(job.id); carried != unwritten_.end()) {
    for (const auto& record : carried->second) {
      bool thisRun = std::any_of(now.begin(), now.end(), [&](const auto& r) {
        return r.stepId == record.stepId && r.submitTime == record.submitTime;
      });
      if (!thisRun) rows.push_back(rowOf(record));
    }
    unwritten_.erase(carried);
  }
  for (const auto& record : now) {
    auto same = std::find_if(last.begin(), last.end(), [&](const auto& r) { return r.stepId == record.stepId; });
    if (same != last.end() && *same == record) continue;
    rows.push_back(rowOf(record));
  }
  last = std::move(now);
  return rows;
}

JournalRow AccountingJournal::rowOf(accounting::JobRecord record) {
  // An open record can be built again from the stored job, which the same
  // transaction writes; an ended one may outlive the stored job (a job's
  // purge, a requeue's new run), so only it takes a journal row.
  uint64_t sequence = ended(record) ? nextSequence() : kNotJournaled;
  return {sequence, std::move(record)};
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
  auto open = std::make_shared<std::vector<JournalRow>>();
  // After the persists recovery queued: those delivered what they changed.
  store_.journal(
      [this, records, open] {
        std::lock_guard lock(recordsMutex_);
        for (auto& [id, written] : *records) {
          // One left to the builder delivers all its records itself.
          if (deferred_.count(id) != 0) continue;
          auto [at, fresh] = lastWritten_.try_emplace(id, Written{.order = 0, .records = std::move(written)});
          if (!fresh) continue;
          // Open records were never journaled: whether they reached the
          // accounting store before the stop is unknown, so they go again
          // (its writes are idempotent). Ended ones are in the journal, or
          // were delivered before it was cut.
          for (const auto& record : at->second.records) {
            if (!ended(record)) open->push_back({kNotJournaled, record});
          }
        }
        return store::JobStore::JournalRows{};
      },
      [this, open](const Status&) { deliver(std::move(*open)); });
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
  return [rows = std::move(rows)] { return encodeRows(*rows); };
}

store::JobStore::JournalRows AccountingJournal::encodeRows(const std::vector<JournalRow>& rows) {
  store::JobStore::JournalRows out;
  for (const auto& row : rows) {
    if (row.sequence != kNotJournaled) out.emplace_back(row.sequence, encodeAccountingEntry(row.entry));
  }
  return out;
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
