#include "controller/store/job_store.h"

#include <sys/stat.h>

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "controller/drain/drained_tres_json.h"
#include "controller/store/sqlite_helpers.h"

namespace gantry::store {
namespace {

using detail::columnText;
using detail::exec;
using detail::Statement;

bool isTerminal(int state) {
  return state == v1::COMPLETED || state == v1::FAILED || state == v1::CANCELLED ||
         state == v1::TIMEOUT || state == v1::NODE_FAIL;
}

// quick_check answers "ok" or up to this many lines saying what is wrong;
// the first few are enough to tell an administrator what happened.
constexpr int kQuickCheckLines = 3;

}  // namespace

Status createStateDirectory(const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return okStatus();
  std::filesystem::path path(dir);
  if (!path.has_filename()) path = path.parent_path();  // "dir/"
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return Error{ErrorCode::Internal, "cannot create StateSaveLocation " + dir + ": " + ec.message()};
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    return Error{ErrorCode::Internal, "cannot create StateSaveLocation " + dir + ": " + std::strerror(errno)};
  }
  return okStatus();
}

JobStore::~JobStore() { close(); }

Status JobStore::open(const std::string& path) {
  path_ = path;
  damageFound_ = false;
  if (auto status = detail::createPrivateFile(path); !status) return status;
  auto db = detail::openDatabase(path);
  if (!db) return Error{db.failure()};
  db_ = *db;
  // Nothing is written before the file is known to be whole.
  Status status = check();
  if (status) {
    if (auto schema = detail::createSchema(db_); !schema) status = sqliteFailure("creating the tables");
  }
  if (status) status = readJobs(0, 0, nullptr);
  if (status) {
    Snapshot unused;
    status = readNodes(&unused);
    if (status) status = readJournal(&unused);
  }
  if (status) {
    auto stored = detail::readMaxJobId(db_);
    if (!stored) status = sqliteFailure("table meta");
    else maxJobId_ = stored->value_or(0);
  }
  if (!status) {
    sqlite3_close(db_);
    db_ = nullptr;
    return status;
  }
  writer_ = std::thread([this] { writerLoop(); });
  return okStatus();
}

Error JobStore::damaged(const std::string& what) const {
  damageFound_ = true;
  return Error{ErrorCode::Internal, "state database " + path_ + " is damaged: " + what};
}

Error JobStore::sqliteFailure(const std::string& what) const {
  int code = sqlite3_errcode(db_) & 0xff;
  std::string text = what + ": " + sqlite3_errmsg(db_);
  if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) return damaged(text);
  return Error{ErrorCode::Internal, "state database " + path_ + " cannot be read: " + text};
}

Status JobStore::check() const {
  std::string pragma = "PRAGMA quick_check(" + std::to_string(kQuickCheckLines) + ")";
  Statement quickCheck(db_, pragma.c_str());
  if (!quickCheck) return sqliteFailure("quick_check");
  std::vector<std::string> lines;
  int rc;
  while ((rc = sqlite3_step(quickCheck.get())) == SQLITE_ROW) lines.push_back(columnText(quickCheck.get(), 0));
  if (rc != SQLITE_DONE) return sqliteFailure("quick_check");
  if (lines.size() == 1 && lines[0] == "ok") return okStatus();
  // One line of text: SQLite's answer may hold several lines per row, and
  // the heading naming the schema says nothing here.
  std::string text;
  for (const auto& row : lines) {
    std::istringstream split(row);
    for (std::string line; std::getline(split, line);) {
      if (line.empty() || line.rfind("*** in database", 0) == 0) continue;
      text += (text.empty() ? "" : "; ") + line;
    }
  }
  return damaged("quick_check: " + (text.empty() ? std::string("no answer") : text));
}

Result<Snapshot> JobStore::load(int64_t now, int64_t keepFinishedSeconds) const {
  Snapshot snapshot;
  {
    Statement max(db_, "SELECT COALESCE(MAX(id), 0) FROM jobs");
    if (!max || sqlite3_step(max.get()) != SQLITE_ROW) {
      return sqliteFailure("table jobs");
    }
    snapshot.maxJobId = static_cast<uint64_t>(sqlite3_column_int64(max.get(), 0));
  }
  auto stored = detail::readMaxJobId(db_);
  if (!stored) return sqliteFailure("table meta");
  snapshot.maxJobId = std::max(snapshot.maxJobId, stored->value_or(0));
  if (auto status = readJobs(now, keepFinishedSeconds, &snapshot.jobs); !status) return status.failure();
  if (auto status = readNodes(&snapshot); !status) return status.failure();
  if (auto status = readJournal(&snapshot); !status) return status.failure();
  return snapshot;
}

// Every row of `jobs`, in id order; with `jobs` null, only checked.
Status JobStore::readJobs(int64_t now, int64_t keepFinishedSeconds, std::vector<v1::Job>* jobs) const {
  Statement select(db_, "SELECT id, state, end_time, record FROM jobs ORDER BY id");
  if (!select) return sqliteFailure("table jobs");
  sqlite3_stmt* row = select.get();
  int64_t lastId = 0;
  int rc;
  while ((rc = sqlite3_step(row)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(row, 0);
    int state = sqlite3_column_int(row, 1);
    int64_t endTime = sqlite3_column_int64(row, 2);
    std::string job = "job " + std::to_string(id);
    if (sqlite3_column_type(row, 3) != SQLITE_BLOB) return damaged(job + ": the record is not a blob");
    v1::Job parsed;
    if (!parsed.ParseFromArray(sqlite3_column_blob(row, 3), sqlite3_column_bytes(row, 3))) {
      return damaged(job + ": the record does not parse");
    }
    if (static_cast<int64_t>(parsed.job_id()) != id || parsed.state() != state || parsed.end_time() != endTime) {
      return damaged(job + ": the record does not match its row (record of job " +
                     std::to_string(parsed.job_id()) + ")");
    }
    lastId = id;
    if (jobs == nullptr) continue;
    // An ended job whose switch/lua calls are still outstanding stays: a
    // restarted controller runs its held teardown again (switch_lua.md,
    // "Restarts"), however long ago the job ended.
    bool switchCallsOutstanding = parsed.switch_state().calls_size() > 0;
    if (keepFinishedSeconds > 0 && isTerminal(state) && endTime + keepFinishedSeconds < now &&
        !switchCallsOutstanding) {
      continue;
    }
    jobs->push_back(std::move(parsed));
  }
  if (rc != SQLITE_DONE) {
    return sqliteFailure("table jobs, " + (lastId == 0 ? std::string("from its start")
                                                       : "after job " + std::to_string(lastId)));
  }
  return okStatus();
}

Status JobStore::readNodes(Snapshot* snapshot) const {
  Statement nodes(db_, "SELECT name, state, reason, user, reason_time FROM nodes");
  if (!nodes) return sqliteFailure("table nodes");
  int rc;
  while ((rc = sqlite3_step(nodes.get())) == SQLITE_ROW) {
    snapshot->nodes.push_back(NodeAdminState{.name = columnText(nodes.get(), 0),
                                             .state = columnText(nodes.get(), 1),
                                             .reason = columnText(nodes.get(), 2),
                                             .user = columnText(nodes.get(), 3),
                                             .reasonTime = sqlite3_column_int64(nodes.get(), 4)});
  }
  if (rc != SQLITE_DONE) return sqliteFailure("table nodes");
  Statement hardware(db_, "SELECT name, record FROM node_hardware");
  if (!hardware) return sqliteFailure("table node_hardware");
  while ((rc = sqlite3_step(hardware.get())) == SQLITE_ROW) {
    const char* blob = static_cast<const char*>(sqlite3_column_blob(hardware.get(), 1));
    int size = sqlite3_column_bytes(hardware.get(), 1);
    snapshot->nodeHardware[columnText(hardware.get(), 0)] =
        blob != nullptr ? std::string(blob, static_cast<size_t>(size)) : std::string();
  }
  if (rc != SQLITE_DONE) return sqliteFailure("table node_hardware");
  Statement ledger(db_, "SELECT record FROM usage_ledger WHERE key = 'users'");
  if (!ledger) return sqliteFailure("table usage_ledger");
  while ((rc = sqlite3_step(ledger.get())) == SQLITE_ROW) snapshot->usageLedger = columnText(ledger.get(), 0);
  if (rc != SQLITE_DONE) return sqliteFailure("table usage_ledger");
  Statement drains(db_, "SELECT name, record FROM node_drains");
  if (!drains) return sqliteFailure("table node_drains");
  while ((rc = sqlite3_step(drains.get())) == SQLITE_ROW) {
    std::string name = columnText(drains.get(), 0);
    auto record = drain::fromStoredJson(columnText(drains.get(), 1));
    if (!record) return damaged("node_drains: the record of node " + name + ": " + record.error());
    snapshot->nodeDrains[name] = std::move(*record);
  }
  if (rc != SQLITE_DONE) return sqliteFailure("table node_drains");
  return okStatus();
}

// The rows are the core's to decode: one it cannot read is its to report.
Status JobStore::readJournal(Snapshot* snapshot) const {
  Statement rows(db_, "SELECT seq, record FROM accounting_journal ORDER BY seq");
  if (!rows) return sqliteFailure("table accounting_journal");
  int rc;
  while ((rc = sqlite3_step(rows.get())) == SQLITE_ROW) {
    const char* blob = static_cast<const char*>(sqlite3_column_blob(rows.get(), 1));
    int size = sqlite3_column_bytes(rows.get(), 1);
    snapshot->accountingJournal[static_cast<uint64_t>(sqlite3_column_int64(rows.get(), 0))] =
        blob != nullptr ? std::string(blob, static_cast<size_t>(size)) : std::string();
  }
  if (rc != SQLITE_DONE) return sqliteFailure("table accounting_journal");
  return okStatus();
}

void JobStore::enqueue(Pending pending) {
  std::lock_guard lock(mutex_);
  queue_.push_back(std::move(pending));
  wake_.notify_one();
}

void JobStore::saveJob(const v1::Job& job, Callback done, JournalEncoder journal) {
  Pending pending;
  pending.kind = Pending::Kind::Job;
  pending.journal = std::move(journal);
  pending.jobId = job.job_id();
  pending.jobBlob = job.SerializeAsString();
  pending.jobState = job.state();
  pending.endTime = job.end_time();
  pending.done = std::move(done);
  enqueue(std::move(pending));
}

void JobStore::journal(JournalEncoder rows, Callback done) {
  Pending pending;
  pending.kind = Pending::Kind::Journal;
  pending.journal = std::move(rows);
  pending.done = std::move(done);
  enqueue(std::move(pending));
}

void JobStore::forgetJournalThrough(uint64_t sequence, Callback done) {
  Pending pending;
  pending.kind = Pending::Kind::Journal;
  pending.forgetThrough = sequence;
  pending.done = std::move(done);
  enqueue(std::move(pending));
}

void JobStore::saveNode(const NodeAdminState& node, Callback done) {
  Pending pending;
  pending.kind = Pending::Kind::Node;
  pending.node = node;
  pending.done = std::move(done);
  enqueue(std::move(pending));
}

// Node-keyed blobs: the hardware record, or the drains' stored JSON.
void JobStore::saveNodeBlob(Pending::Kind kind, const std::string& node, std::string blob, Callback done) {
  Pending pending;
  pending.kind = kind;
  pending.node.name = node;
  pending.hardware = std::move(blob);
  pending.done = std::move(done);
  enqueue(std::move(pending));
}

void JobStore::saveNodeHardware(const std::string& node, std::string hardware, Callback done) {
  saveNodeBlob(Pending::Kind::Hardware, node, std::move(hardware), std::move(done));
}

void JobStore::saveNodeDrains(const std::string& node, const drain::DrainedTres& drains, Callback done) {
  saveNodeBlob(Pending::Kind::Drains, node, drain::toStoredJson(drains), std::move(done));
}

void JobStore::saveUsageLedger(std::string ledger, Callback done) {
  saveNodeBlob(Pending::Kind::Usage, "users", std::move(ledger), std::move(done));
}

void JobStore::flush() {
  std::unique_lock lock(mutex_);
  drained_.wait(lock, [this] { return queue_.empty() && !writing_; });
}

void JobStore::close() {
  {
    std::lock_guard lock(mutex_);
    if (!writer_.joinable()) {
      if (db_) sqlite3_close(db_);
      db_ = nullptr;
      return;
    }
    stopping_ = true;
    wake_.notify_one();
  }
  writer_.join();
  sqlite3_close(db_);
  db_ = nullptr;
}

void JobStore::writerLoop() {
  for (;;) {
    std::deque<Pending> batch;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty() && stopping_) return;
      batch.swap(queue_);
      writing_ = true;
    }
    Status status = writeBatch(batch);
    for (auto& pending : batch) {
      if (pending.done) pending.done(status);
    }
    {
      std::lock_guard lock(mutex_);
      writing_ = false;
      if (queue_.empty()) drained_.notify_all();
    }
  }
}

Status JobStore::writeBatch(std::deque<Pending>& batch) {
  if (auto status = exec(db_, "BEGIN IMMEDIATE"); !status) return status;
  Statement putJob(db_,
                   "INSERT INTO jobs(id, state, end_time, record) VALUES(?,?,?,?) "
                   "ON CONFLICT(id) DO UPDATE SET state=excluded.state, "
                   "end_time=excluded.end_time, record=excluded.record");
  Statement putNode(db_,
                    "INSERT INTO nodes(name, state, reason, user, reason_time) VALUES(?,?,?,?,?) "
                    "ON CONFLICT(name) DO UPDATE SET state=excluded.state, "
                    "reason=excluded.reason, user=excluded.user, reason_time=excluded.reason_time");
  Statement putHardware(db_,
                        "INSERT INTO node_hardware(name, record) VALUES(?,?) "
                        "ON CONFLICT(name) DO UPDATE SET record=excluded.record");
  Statement putDrains(db_,
                      "INSERT INTO node_drains(name, record) VALUES(?,?) "
                      "ON CONFLICT(name) DO UPDATE SET record=excluded.record");
  Statement putMaxJobId(db_,
                        "INSERT INTO meta(key, value) VALUES('max_job_id', ?) "
                        "ON CONFLICT(key) DO UPDATE SET value=MAX(value, excluded.value)");
  Statement putUsage(db_,
                     "INSERT INTO usage_ledger(key, record) VALUES(?,?) "
                     "ON CONFLICT(key) DO UPDATE SET record=excluded.record");
  Statement putJournal(db_, "INSERT OR REPLACE INTO accounting_journal(seq, record) VALUES(?,?)");
  Statement dropJournal(db_, "DELETE FROM accounting_journal WHERE seq <= ?");
  if (!putJob || !putNode || !putHardware || !putDrains || !putUsage || !putMaxJobId || !putJournal || !dropJournal) {
    (void)exec(db_, "ROLLBACK");
    return Error{ErrorCode::Internal, std::string("sqlite: ") + sqlite3_errmsg(db_)};
  }
  uint64_t batchMaxJobId = maxJobId_;
  auto fail = [&]() {
    std::string message = sqlite3_errmsg(db_);
    (void)exec(db_, "ROLLBACK");
    return Error{ErrorCode::Internal, "sqlite: " + message};
  };
  for (const auto& pending : batch) {
    if (pending.journal) {
      for (const auto& [sequence, record] : pending.journal()) {
        sqlite3_reset(putJournal.get());
        sqlite3_bind_int64(putJournal.get(), 1, static_cast<int64_t>(sequence));
        sqlite3_bind_blob(putJournal.get(), 2, record.data(), static_cast<int>(record.size()), SQLITE_TRANSIENT);
        if (sqlite3_step(putJournal.get()) != SQLITE_DONE) return fail();
      }
    }
    if (pending.forgetThrough != 0) {
      sqlite3_reset(dropJournal.get());
      sqlite3_bind_int64(dropJournal.get(), 1, static_cast<int64_t>(pending.forgetThrough));
      if (sqlite3_step(dropJournal.get()) != SQLITE_DONE) return fail();
    }
    if (pending.kind == Pending::Kind::Journal) continue;
    if (pending.kind == Pending::Kind::Job) batchMaxJobId = std::max(batchMaxJobId, pending.jobId);
    sqlite3_stmt* stmt = pending.kind == Pending::Kind::Job        ? putJob.get()
                         : pending.kind == Pending::Kind::Node     ? putNode.get()
                         : pending.kind == Pending::Kind::Hardware ? putHardware.get()
                         : pending.kind == Pending::Kind::Usage    ? putUsage.get()
                                                                   : putDrains.get();
    sqlite3_reset(stmt);
    if (pending.kind == Pending::Kind::Drains || pending.kind == Pending::Kind::Usage) {
      sqlite3_bind_text(stmt, 1, pending.node.name.c_str(), -1, SQLITE_STATIC);
      sqlite3_bind_text(stmt, 2, pending.hardware.c_str(), -1, SQLITE_STATIC);
    } else if (pending.kind == Pending::Kind::Hardware) {
      sqlite3_bind_text(stmt, 1, pending.node.name.c_str(), -1, SQLITE_STATIC);
      sqlite3_bind_blob(stmt, 2, pending.hardware.data(), static_cast<int>(pending.hardware.size()), SQLITE_STATIC);
    } else if (pending.kind == Pending::Kind::Job) {
      sqlite3_bind_int64(stmt, 1, static_cast<int64_t>(pending.jobId));
      sqlite3_bind_int(stmt, 2, pending.jobState);
      sqlite3_bind_int64(stmt, 3, pending.endTime);
      sqlite3_bind_blob(stmt, 4, pending.jobBlob.data(), static_cast<int>(pending.jobBlob.size()),
                        SQLITE_STATIC);
    } else {
      const auto& node = pending.node;
      sqlite3_bind_text(stmt, 1, node.name.c_str(), -1, SQLITE_STATIC);
      sqlite3_bind_text(stmt, 2, node.state.c_str(), -1, SQLITE_STATIC);
      sqlite3_bind_text(stmt, 3, node.reason.c_str(), -1, SQLITE_STATIC);
      sqlite3_bind_text(stmt, 4, node.user.c_str(), -1, SQLITE_STATIC);
      sqlite3_bind_int64(stmt, 5, node.reasonTime);
    }
    if (sqlite3_step(stmt) != SQLITE_DONE) {
      std::string message = sqlite3_errmsg(db_);
      (void)exec(db_, "ROLLBACK");
      return Error{ErrorCode::Internal, "sqlite: " + message};
    }
  }
  // The high-water mark moves in the same transaction as the job rows, so
  // no committed id is ever above it.
  if (batchMaxJobId > maxJobId_) {
    sqlite3_bind_int64(putMaxJobId.get(), 1, static_cast<int64_t>(batchMaxJobId));
    if (sqlite3_step(putMaxJobId.get()) != SQLITE_DONE) {
      std::string message = sqlite3_errmsg(db_);
      (void)exec(db_, "ROLLBACK");
      return Error{ErrorCode::Internal, "sqlite: " + message};
    }
  }
  if (auto status = exec(db_, "COMMIT"); !status) {
    (void)exec(db_, "ROLLBACK");
    return status;
  }
  maxJobId_ = batchMaxJobId;
  ++transactions_;
  return okStatus();
}

}  // namespace gantry::store
