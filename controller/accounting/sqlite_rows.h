// The SQLite side of accounting_sql.h: a statement that finalizes itself,
// and records bound to and read from the columns in the order of
// kJobColumns / kEventColumns. Internal to controller/accounting.
#pragma once

#include <string>

#include "controller/accounting/accounting_sql.h"
#include "controller/accounting/records.h"

struct sqlite3;
struct sqlite3_stmt;

namespace gantry::accounting::detail {

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() const { return stmt_; }
  explicit operator bool() const { return stmt_ != nullptr; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

// Binds a record for kPutJob / kPutEvent (the statement is reset first).
void bindJob(sqlite3_stmt* stmt, const JobRecord& record);
void bindEvent(sqlite3_stmt* stmt, const NodeEvent& event);
// Binds a query's values from the first placeholder on.
void bindQuery(sqlite3_stmt* stmt, const sql::BoundQuery& query);

// Reads the current row of a SELECT of kJobColumns / kEventColumns.
JobRecord readJob(sqlite3_stmt* stmt);
NodeEvent readEvent(sqlite3_stmt* stmt);

}  // namespace gantry::accounting::detail
