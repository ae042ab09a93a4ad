#include "controller/accounting/sqlite_rows.h"

#include <sqlite3.h>

#include "controller/accounting/record_fields.h"

namespace gantry::accounting::detail {
namespace {

// Binds values to consecutive placeholders. Text is copied by SQLite
// (SQLITE_TRANSIENT) so a row never points into a record that has gone.
class Binder {
 public:
  explicit Binder(sqlite3_stmt* stmt) : stmt_(stmt) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  Binder& text(const std::string& value) {
    sqlite3_bind_text(stmt_, next_++, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Binder& integer(int64_t value) {
    sqlite3_bind_int64(stmt_, next_++, value);
    return *this;
  }
  template <typename T>
  Binder& optional(const std::optional<T>& value) {
    if (value) return integer(static_cast<int64_t>(*value));
    sqlite3_bind_null(stmt_, next_++);
    return *this;
  }

 private:
  sqlite3_stmt* stmt_;
  int next_ = 1;
};

// Reads consecutive columns.
class Reader {
 public:
  explicit Reader(sqlite3_stmt* stmt) : stmt_(stmt) {}
  std::string text() {
    const unsigned char* value = sqlite3_column_text(stmt_, next_);
    int size = sqlite3_column_bytes(stmt_, next_++);
    return value ? std::string(reinterpret_cast<const char*>(value), static_cast<size_t>(size)) : "";
  }
  int64_t integer() { return sqlite3_column_int64(stmt_, next_++); }
  template <typename T>
  std::optional<T> optional() {
    if (sqlite3_column_type(stmt_, next_) == SQLITE_NULL) {
      ++next_;
      return std::nullopt;
    }
    return static_cast<T>(integer());
  }

 private:
  sqlite3_stmt* stmt_;
  int next_ = 0;
};

}  // namespace

Statement::Statement(sqlite3* db, const std::string& sql) {
  sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &stmt_, nullptr);
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void bindJob(sqlite3_stmt* stmt, const JobRecord& record) {
  Binder binder(stmt);
  writeJobFields(binder, record);
}

void bindEvent(sqlite3_stmt* stmt, const NodeEvent& event) {
  Binder binder(stmt);
  writeEventFields(binder, event);
}

void bindQuery(sqlite3_stmt* stmt, const sql::BoundQuery& query) {
  Binder binder(stmt);
  writeQueryFields(binder, query);
}

JobRecord readJob(sqlite3_stmt* stmt) {
  Reader row(stmt);
  return readJobFields(row);
}

NodeEvent readEvent(sqlite3_stmt* stmt) {
  Reader row(stmt);
  return readEventFields(row);
}

}  // namespace gantry::accounting::detail
