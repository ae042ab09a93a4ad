// What JobStore and the salvage share: the schema, statements that finalize
// themselves, and files created private to the controller's user. Internal
// to controller/store.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/util/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace gantry::store::detail {

// Runs SQL that returns no rows; the error names the statement.
Status exec(sqlite3* db, const char* sql);

// Creates every table and index that is missing (WAL, synchronous=FULL).
// Call only on a database that passed its check: this writes.
Status createSchema(sqlite3* db);

// Creates `path` with mode 0600 when it does not exist (an existing file
// keeps its mode). SQLite gives the -wal and -shm files the mode of the
// database file, so they are private too. The error names the path.
Status createPrivateFile(const std::string& path);

// Opens `path` read-write without creating it. The error names the path.
Result<sqlite3*> openDatabase(const std::string& path);

// The job id high-water mark (meta's `max_job_id`): nullopt when the row is absent, an error
// when it cannot be read.
Result<std::optional<uint64_t>> readMaxJobId(sqlite3* db);

// A prepared statement that finalizes itself.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() const { return stmt_; }
  explicit operator bool() const { return stmt_ != nullptr; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

// Column text as a string ("" for NULL).
std::string columnText(sqlite3_stmt* stmt, int column);

}  // namespace gantry::store::detail
