#include "controller/accounting/sqlite_accounting_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "controller/accounting/accounting_sql.h"
#include "controller/accounting/sqlite_rows.h"

namespace gantry::accounting {
namespace {

using detail::Statement;

// quick_check answers "ok" or lines saying what is wrong; the first few
// tell an administrator enough.
constexpr int kQuickCheckLines = 3;

Status exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    return Error{ErrorCode::Internal, "sqlite: " + text};
  }
  return okStatus();
}

// SQLite gives the -wal and -shm files the mode of the database file, so
// making the database private makes them private too.
Status createPrivateFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Error{ErrorCode::Internal, "cannot open accounting database " + path + ": " + std::strerror(errno)};
  }
  ::close(fd);
  return okStatus();
}

Result<sqlite3*> openConnection(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Error{ErrorCode::Internal, "cannot open accounting database " + path + ": " + message};
  }
  // A reader and the writer may meet on a lock for an instant (WAL
  // checkpoints); wait instead of failing.
  sqlite3_busy_timeout(db, 5000);
  return db;
}

}  // namespace

SqliteAccountingStore::SqliteAccountingStore()
    : writer_([this](const std::vector<AccountingWrite>& batch) { return writeBatch(batch); }, kAccountingGatherWindow) {}

SqliteAccountingStore::~SqliteAccountingStore() { close(); }

Error SqliteAccountingStore::failure(sqlite3* db, const std::string& what) const {
  int code = sqlite3_errcode(db) & 0xff;
  std::string text = what + ": " + sqlite3_errmsg(db);
  if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) {
    return Error{ErrorCode::Internal, "accounting database " + path_ + " is damaged: " + text};
  }
  return Error{ErrorCode::Internal, "accounting database " + path_ + " cannot be read: " + text};
}

Status SqliteAccountingStore::open(const std::string& path) {
  if (writeDb_ != nullptr) return Error{ErrorCode::Internal, "accounting database " + path_ + " is already open"};
  path_ = path;
  if (auto status = createPrivateFile(path); !status) return status;
  auto writer = openConnection(path);
  if (!writer) return writer.failure();
  writeDb_ = *writer;
  // Nothing is written before the file is known to be whole and ours.
  Status status = check(writeDb_);
  int64_t stored = 0;
  if (status) {
    auto version = storedSchemaVersion(writeDb_);
    if (version) stored = *version;
    else status = version.failure();
  }
  for (const char* statement : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL"}) {
    if (status && !exec(writeDb_, statement)) status = failure(writeDb_, statement);
  }
  // The tables, an older file's migration and the new version are one
  // transaction: a file is never left half migrated.
  if (status && !exec(writeDb_, "BEGIN IMMEDIATE")) status = failure(writeDb_, "creating the tables");
  for (const char* statement : sql::schema()) {
    if (status && !exec(writeDb_, statement)) status = failure(writeDb_, "creating the tables");
  }
  for (const char* statement : sql::migrations(stored)) {
    if (status && !exec(writeDb_, statement)) {
      status = failure(writeDb_, "migrating from schema version " + std::to_string(stored));
    }
  }
  if (status) {
    Statement version(writeDb_, sql::kWriteSchemaVersion);
    if (version) sqlite3_bind_int64(version.get(), 1, sql::kSchemaVersion);
    if (!version || sqlite3_step(version.get()) != SQLITE_DONE) status = failure(writeDb_, "table meta");
  }
  if (status && !exec(writeDb_, "COMMIT")) status = failure(writeDb_, "creating the tables");
  if (!status) exec(writeDb_, "ROLLBACK");
  if (status) {
    auto reader = openConnection(path);
    if (!reader) status = reader.failure();
    else readDb_ = *reader;
  }
  if (!status) {
    sqlite3_close(writeDb_);
    writeDb_ = nullptr;
    return status;
  }
  writer_.start();
  return okStatus();
}

Status SqliteAccountingStore::check(sqlite3* db) const {
  std::string pragma = "PRAGMA quick_check(" + std::to_string(kQuickCheckLines) + ")";
  Statement quickCheck(db, pragma);
  if (!quickCheck) return failure(db, "quick_check");
  std::vector<std::string> lines;
  int rc;
  while ((rc = sqlite3_step(quickCheck.get())) == SQLITE_ROW) {
    const unsigned char* line = sqlite3_column_text(quickCheck.get(), 0);
    lines.emplace_back(line ? reinterpret_cast<const char*>(line) : "");
  }
  if (rc != SQLITE_DONE) return failure(db, "quick_check");
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
  return Error{ErrorCode::Internal, "accounting database " + path_ + " is damaged: quick_check: " +
                                        (text.empty() ? std::string("no answer") : text)};
}

// 0 for a new file. A file written by a newer Gantry has tables this one
// does not know, and is refused.
Result<int64_t> SqliteAccountingStore::storedSchemaVersion(sqlite3* db) const {
  Statement hasMeta(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
  if (!hasMeta) return failure(db, "sqlite_master");
  int rc = sqlite3_step(hasMeta.get());
  if (rc == SQLITE_DONE) return int64_t{0};
  if (rc != SQLITE_ROW) return failure(db, "sqlite_master");
  Statement version(db, sql::kReadSchemaVersion);
  if (!version) return failure(db, "table meta");
  rc = sqlite3_step(version.get());
  if (rc == SQLITE_DONE) return int64_t{0};
  if (rc != SQLITE_ROW) return failure(db, "table meta");
  int64_t stored = sqlite3_column_int64(version.get(), 0);
  if (stored > sql::kSchemaVersion) {
    return Error{ErrorCode::Internal, "accounting database " + path_ + " has schema version " +
                                          std::to_string(stored) + ", newer than this Gantry's " +
                                          std::to_string(sql::kSchemaVersion)};
  }
  return stored;
}

Status SqliteAccountingStore::queueWrite(AccountingWrite write, Callback done) {
  if (!writer_.enqueue(std::move(write), std::move(done))) {
    return Error{ErrorCode::Internal, "the accounting database is not open"};
  }
  return okStatus();
}

void SqliteAccountingStore::flush() { writer_.flush(); }

void SqliteAccountingStore::close() {
  writer_.stop();
  sqlite3_close(writeDb_);
  writeDb_ = nullptr;
  std::lock_guard readLock(readMutex_);
  sqlite3_close(readDb_);
  readDb_ = nullptr;
}

Status SqliteAccountingStore::writeBatch(const std::vector<AccountingWrite>& batch) {
  if (auto status = exec(writeDb_, "BEGIN IMMEDIATE"); !status) return failure(writeDb_, "BEGIN");
  Statement putJob(writeDb_, sql::kPutJob);
  Statement putEvent(writeDb_, sql::kPutEvent);
  auto abandon = [this](const std::string& what) {
    Error error = failure(writeDb_, what);
    (void)exec(writeDb_, "ROLLBACK");
    return error;
  };
  if (!putJob || !putEvent) return abandon("preparing the writes");
  for (const auto& pending : batch) {
    for (const auto& record : pending.jobs) {
      detail::bindJob(putJob.get(), record);
      if (sqlite3_step(putJob.get()) != SQLITE_DONE) return abandon("writing job records");
    }
    for (const auto& event : pending.events) {
      detail::bindEvent(putEvent.get(), event);
      if (sqlite3_step(putEvent.get()) != SQLITE_DONE) return abandon("writing node events");
    }
  }
  if (!exec(writeDb_, "COMMIT")) return abandon("COMMIT");
  ++transactions_;
  return okStatus();
}

Result<std::vector<JobRecord>> SqliteAccountingStore::readJobs(const JobQuery& query) const {
  sql::BoundQuery select = sql::selectJobs(query);
  std::lock_guard lock(readMutex_);
  if (readDb_ == nullptr) return Error{ErrorCode::Internal, "the accounting database is not open"};
  Statement statement(readDb_, select.text);
  if (!statement) return failure(readDb_, "table job_records");
  detail::bindQuery(statement.get(), select);
  std::vector<JobRecord> records;
  int rc;
  while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) records.push_back(detail::readJob(statement.get()));
  if (rc != SQLITE_DONE) return failure(readDb_, "table job_records");
  return records;
}

Result<std::vector<NodeEvent>> SqliteAccountingStore::readEvents(const EventQuery& query) const {
  sql::BoundQuery select = sql::selectEvents(query);
  std::lock_guard lock(readMutex_);
  if (readDb_ == nullptr) return Error{ErrorCode::Internal, "the accounting database is not open"};
  Statement statement(readDb_, select.text);
  if (!statement) return failure(readDb_, "table node_events");
  detail::bindQuery(statement.get(), select);
  std::vector<NodeEvent> events;
  int rc;
  while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) events.push_back(detail::readEvent(statement.get()));
  if (rc != SQLITE_DONE) return failure(readDb_, "table node_events");
  return events;
}

}  // namespace gantry::accounting
