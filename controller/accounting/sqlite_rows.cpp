#include "controller/accounting/sqlite_rows.h"

#include <sqlite3.h>

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

void bindJob(sqlite3_stmt* stmt, const JobRecord& r) {
  Binder(stmt)
      .text(r.cluster)
      .integer(static_cast<int64_t>(r.jobId))
      .text(r.stepId)
      .integer(r.submitTime)
      .text(r.name)
      .text(r.user)
      .integer(r.uid)
      .text(r.group)
      .integer(r.gid)
      .text(r.account)
      .text(r.partition)
      .integer(r.eligibleTime)
      .integer(r.startTime)
      .integer(r.endTime)
      .optional(r.timeLimitMinutes)
      .text(r.state)
      .optional(r.cancelledByUid)
      .integer(r.exitCode.code)
      .integer(r.exitCode.signal)
      .integer(r.derivedExitCode.code)
      .integer(r.derivedExitCode.signal)
      .integer(r.nodeCount)
      .text(r.nodeList)
      .integer(r.allocCpus)
      .text(r.reqTres)
      .text(r.allocTres)
      .text(r.usageIn.min)
      .text(r.usageIn.minNode)
      .text(r.usageIn.minTask)
      .text(r.usageIn.max)
      .text(r.usageIn.maxNode)
      .text(r.usageIn.maxTask)
      .text(r.usageIn.ave)
      .text(r.usageIn.tot)
      .text(r.reason)
      .text(r.workDir)
      .text(r.comment)
      .integer(sql::jobProgress(r.startTime, r.endTime))
      .integer(sql::windowEnd(r.endTime));
}

void bindEvent(sqlite3_stmt* stmt, const NodeEvent& e) {
  Binder(stmt)
      .text(e.cluster)
      .text(e.node)
      .integer(e.startTime)
      .integer(e.endTime)
      .text(e.state)
      .text(e.reason)
      .text(e.user)
      .text(e.tres)
      .text(e.tresReference);
}

void bindQuery(sqlite3_stmt* stmt, const sql::BoundQuery& query) {
  Binder binder(stmt);
  for (const auto& value : query.binds) {
    if (const auto* number = std::get_if<int64_t>(&value)) binder.integer(*number);
    else binder.text(std::get<std::string>(value));
  }
}

JobRecord readJob(sqlite3_stmt* stmt) {
  Reader row(stmt);
  JobRecord r;
  r.cluster = row.text();
  r.jobId = static_cast<uint64_t>(row.integer());
  r.stepId = row.text();
  r.submitTime = row.integer();
  r.name = row.text();
  r.user = row.text();
  r.uid = static_cast<uint32_t>(row.integer());
  r.group = row.text();
  r.gid = static_cast<uint32_t>(row.integer());
  r.account = row.text();
  r.partition = row.text();
  r.eligibleTime = row.integer();
  r.startTime = row.integer();
  r.endTime = row.integer();
  r.timeLimitMinutes = row.optional<uint32_t>();
  r.state = row.text();
  r.cancelledByUid = row.optional<uint32_t>();
  r.exitCode.code = static_cast<int>(row.integer());
  r.exitCode.signal = static_cast<int>(row.integer());
  r.derivedExitCode.code = static_cast<int>(row.integer());
  r.derivedExitCode.signal = static_cast<int>(row.integer());
  r.nodeCount = static_cast<uint32_t>(row.integer());
  r.nodeList = row.text();
  r.allocCpus = static_cast<uint32_t>(row.integer());
  r.reqTres = row.text();
  r.allocTres = row.text();
  r.usageIn.min = row.text();
  r.usageIn.minNode = row.text();
  r.usageIn.minTask = row.text();
  r.usageIn.max = row.text();
  r.usageIn.maxNode = row.text();
  r.usageIn.maxTask = row.text();
  r.usageIn.ave = row.text();
  r.usageIn.tot = row.text();
  r.reason = row.text();
  r.workDir = row.text();
  r.comment = row.text();
  return r;
}

NodeEvent readEvent(sqlite3_stmt* stmt) {
  Reader row(stmt);
  NodeEvent e;
  e.cluster = row.text();
  e.node = row.text();
  e.startTime = row.integer();
  e.endTime = row.integer();
  e.state = row.text();
  e.reason = row.text();
  e.user = row.text();
  e.tres = row.text();
  e.tresReference = row.text();
  return e;
}

}  // namespace gantry::accounting::detail
