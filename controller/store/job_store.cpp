#include "controller/store/job_store.h"

#include <sqlite3.h>

#include <atomic>

namespace gantry::store {
namespace {

Status exec(sqlite3* db, const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    return Error{ErrorCode::Internal, std::string("sqlite: ") + text + " (in: " + sql + ")"};
  }
  return okStatus();
}

bool isTerminal(int state) {
  return state == v1::COMPLETED || state == v1::FAILED || state == v1::CANCELLED ||
         state == v1::TIMEOUT || state == v1::NODE_FAIL;
}

// A prepared statement that finalizes itself.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Statement() { sqlite3_finalize(stmt_); }
  sqlite3_stmt* get() const { return stmt_; }
  explicit operator bool() const { return stmt_ != nullptr; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace

JobStore::~JobStore() { close(); }

Status JobStore::open(const std::string& path) {
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    return Error{ErrorCode::Internal, "cannot open state database " + path + ": " + message};
  }
  for (const char* sql : {
           "PRAGMA journal_mode=WAL",
           "PRAGMA synchronous=FULL",
           "CREATE TABLE IF NOT EXISTS jobs (id INTEGER PRIMARY KEY, state INTEGER NOT NULL,"
           " end_time INTEGER NOT NULL, record BLOB NOT NULL)",
           "CREATE INDEX IF NOT EXISTS jobs_by_end ON jobs(state, end_time)",
           "CREATE TABLE IF NOT EXISTS nodes (name TEXT PRIMARY KEY, state TEXT NOT NULL,"
           " reason TEXT NOT NULL, user TEXT NOT NULL, reason_time INTEGER NOT NULL)",
           "CREATE TABLE IF NOT EXISTS node_hardware (name TEXT PRIMARY KEY, record BLOB NOT NULL)",
       }) {
    if (auto status = exec(db_, sql); !status) return Error{ErrorCode::Internal, path + ": " + status.error()};
  }
  writer_ = std::thread([this] { writerLoop(); });
  return okStatus();
}

Result<Snapshot> JobStore::load(int64_t now, int64_t keepFinishedSeconds) const {
  Snapshot snapshot;
  {
    Statement max(db_, "SELECT COALESCE(MAX(id), 0) FROM jobs");
    if (max && sqlite3_step(max.get()) == SQLITE_ROW) {
      snapshot.maxJobId = static_cast<uint64_t>(sqlite3_column_int64(max.get(), 0));
    }
  }
  Statement jobs(db_, "SELECT id, state, end_time, record FROM jobs ORDER BY id");
  if (!jobs) return Error{ErrorCode::Internal, std::string("sqlite: ") + sqlite3_errmsg(db_)};
  while (sqlite3_step(jobs.get()) == SQLITE_ROW) {
    int state = sqlite3_column_int(jobs.get(), 1);
    int64_t endTime = sqlite3_column_int64(jobs.get(), 2);
    if (keepFinishedSeconds > 0 && isTerminal(state) && endTime + keepFinishedSeconds < now) continue;
    const void* blob = sqlite3_column_blob(jobs.get(), 3);
    int size = sqlite3_column_bytes(jobs.get(), 3);
    v1::Job job;
    if (!job.ParseFromArray(blob, size)) {
      return Error{ErrorCode::Internal, "state database: job " +
                                            std::to_string(sqlite3_column_int64(jobs.get(), 0)) +
                                            " has a record that does not parse"};
    }
    snapshot.jobs.push_back(std::move(job));
  }
  Statement nodes(db_, "SELECT name, state, reason, user, reason_time FROM nodes");
  while (nodes && sqlite3_step(nodes.get()) == SQLITE_ROW) {
    auto text = [&](int column) {
      const unsigned char* value = sqlite3_column_text(nodes.get(), column);
      return std::string(value ? reinterpret_cast<const char*>(value) : "");
    };
    snapshot.nodes.push_back(NodeAdminState{.name = text(0), .state = text(1), .reason = text(2),
                                            .user = text(3),
                                            .reasonTime = sqlite3_column_int64(nodes.get(), 4)});
  }
  Statement hardware(db_, "SELECT name, record FROM node_hardware");
  while (hardware && sqlite3_step(hardware.get()) == SQLITE_ROW) {
    const unsigned char* name = sqlite3_column_text(hardware.get(), 0);
    const char* blob = static_cast<const char*>(sqlite3_column_blob(hardware.get(), 1));
    int size = sqlite3_column_bytes(hardware.get(), 1);
    snapshot.nodeHardware[name ? reinterpret_cast<const char*>(name) : ""] =
        blob != nullptr ? std::string(blob, static_cast<size_t>(size)) : std::string();
  }
  return snapshot;
}

void JobStore::saveJob(const v1::Job& job, Callback done) {
  Pending pending;
  pending.kind = Pending::Kind::Job;
  pending.jobId = job.job_id();
  pending.jobBlob = job.SerializeAsString();
  pending.jobState = job.state();
  pending.endTime = job.end_time();
  pending.done = std::move(done);
  std::lock_guard lock(mutex_);
  queue_.push_back(std::move(pending));
  wake_.notify_one();
}

void JobStore::saveNode(const NodeAdminState& node, Callback done) {
  Pending pending;
  pending.kind = Pending::Kind::Node;
  pending.node = node;
  pending.done = std::move(done);
  std::lock_guard lock(mutex_);
  queue_.push_back(std::move(pending));
  wake_.notify_one();
}

void JobStore::saveNodeHardware(const std::string& node, std::string hardware, Callback done) {
  Pending pending;
  pending.kind = Pending::Kind::Hardware;
  pending.node.name = node;
  pending.hardware = std::move(hardware);
  pending.done = std::move(done);
  std::lock_guard lock(mutex_);
  queue_.push_back(std::move(pending));
  wake_.notify_one();
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
  if (!putJob || !putNode || !putHardware) {
    (void)exec(db_, "ROLLBACK");
    return Error{ErrorCode::Internal, std::string("sqlite: ") + sqlite3_errmsg(db_)};
  }
  for (const auto& pending : batch) {
    sqlite3_stmt* stmt = pending.kind == Pending::Kind::Job    ? putJob.get()
                         : pending.kind == Pending::Kind::Node ? putNode.get()
                                                               : putHardware.get();
    sqlite3_reset(stmt);
    if (pending.kind == Pending::Kind::Hardware) {
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
  if (auto status = exec(db_, "COMMIT"); !status) {
    (void)exec(db_, "ROLLBACK");
    return status;
  }
  ++transactions_;
  return okStatus();
}

}  // namespace gantry::store
