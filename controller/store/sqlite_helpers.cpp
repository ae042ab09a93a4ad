#include "controller/store/sqlite_helpers.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gantry::store::detail {

Status exec(sqlite3* db, const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    return Error{ErrorCode::Internal, std::string("sqlite: ") + text + " (in: " + sql + ")"};
  }
  return okStatus();
}

Status createSchema(sqlite3* db) {
  for (const char* sql : {
           "PRAGMA journal_mode=WAL",
           "PRAGMA synchronous=FULL",
           "CREATE TABLE IF NOT EXISTS jobs (id INTEGER PRIMARY KEY, state INTEGER NOT NULL,"
           " end_time INTEGER NOT NULL, record BLOB NOT NULL)",
           "CREATE INDEX IF NOT EXISTS jobs_by_end ON jobs(state, end_time)",
           "CREATE TABLE IF NOT EXISTS nodes (name TEXT PRIMARY KEY, state TEXT NOT NULL,"
           " reason TEXT NOT NULL, user TEXT NOT NULL, reason_time INTEGER NOT NULL)",
           "CREATE TABLE IF NOT EXISTS node_hardware (name TEXT PRIMARY KEY, record BLOB NOT NULL)",
           // Per-device drains and the saved device order, as JSON text.
           "CREATE TABLE IF NOT EXISTS node_drains (name TEXT PRIMARY KEY, record TEXT NOT NULL)",
           // Accounting records not yet delivered to the accounting store,
           // written in the transaction of the change that produced them
           // (controller/core/accounting_journal.h).
           "CREATE TABLE IF NOT EXISTS accounting_journal (seq INTEGER PRIMARY KEY, record BLOB NOT NULL)",
           // Fair share's usage ledger (controller/core/fair_share.h), as text.
           "CREATE TABLE IF NOT EXISTS usage_ledger (key TEXT PRIMARY KEY, record TEXT NOT NULL)",
           // Values that outlive any row of the other tables: the job id
           // high-water mark, so an id is never handed out twice.
           "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)",
           // A database written before `meta` existed starts from its rows.
           "INSERT OR IGNORE INTO meta(key, value) SELECT 'max_job_id', COALESCE(MAX(id), 0) FROM jobs",
       }) {
    if (auto status = exec(db, sql); !status) return status;
  }
  return okStatus();
}

Status createPrivateFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Error{ErrorCode::Internal, "cannot open state database " + path + ": " + std::strerror(errno)};
  }
  ::close(fd);
  return okStatus();
}

Result<sqlite3*> openDatabase(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Error{ErrorCode::Internal, "cannot open state database " + path + ": " + message};
  }
  return db;
}

Result<std::optional<uint64_t>> readMaxJobId(sqlite3* db) {
  Statement select(db, "SELECT value FROM meta WHERE key = 'max_job_id'");
  if (!select) return Error{ErrorCode::Internal, std::string("table meta: ") + sqlite3_errmsg(db)};
  switch (sqlite3_step(select.get())) {
    case SQLITE_ROW: return std::optional<uint64_t>(static_cast<uint64_t>(sqlite3_column_int64(select.get(), 0)));
    case SQLITE_DONE: return std::optional<uint64_t>();
    default: return Error{ErrorCode::Internal, std::string("table meta: ") + sqlite3_errmsg(db)};
  }
}

Statement::Statement(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }

Statement::~Statement() { sqlite3_finalize(stmt_); }

std::string columnText(sqlite3_stmt* stmt, int column) {
  const unsigned char* value = sqlite3_column_text(stmt, column);
  return value ? reinterpret_cast<const char*>(value) : "";
}

}  // namespace gantry::store::detail
