#include "controller/store/salvage.h"

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>

#include "controller/drain/drained_tres_json.h"
#include "controller/store/sqlite_helpers.h"
#include "gantry/v1/types.pb.h"

namespace gantry::store {
namespace {

using detail::columnText;
using detail::Statement;

struct JobRow {
  int64_t id = 0;
  int state = 0;
  int64_t endTime = 0;
  std::string record;
};

struct NodeRow {
  std::string name, state, reason, user;
  int64_t reasonTime = 0;
};

struct Salvaged {
  std::vector<JobRow> jobs;
  std::vector<NodeRow> nodes;
  std::vector<std::pair<std::string, std::string>> hardware;
  std::vector<std::pair<std::string, std::string>> drains;  // node, stored JSON
  std::optional<uint64_t> maxJobId;
  std::vector<std::string> losses;
};

std::string blobOf(sqlite3_stmt* row, int column) {
  const char* blob = static_cast<const char*>(sqlite3_column_blob(row, column));
  return blob ? std::string(blob, static_cast<size_t>(sqlite3_column_bytes(row, column))) : std::string();
}

// Positions `stmt` (whose one parameter is "rowid > ?") past `from` and
// takes its first step: SQLITE_ROW or SQLITE_DONE when reading works there.
int seekPast(sqlite3_stmt* stmt, int64_t from) {
  sqlite3_reset(stmt);
  sqlite3_bind_int64(stmt, 1, from);
  return sqlite3_step(stmt);
}

bool readable(int rc) { return rc == SQLITE_ROW || rc == SQLITE_DONE; }

// Reads `table` in rowid order through `sql` ("SELECT rowid, ... WHERE
// rowid > ? ORDER BY rowid"), calling `take` for each row. Where a step
// fails, looks for the smallest rowid past which reading works again:
// doubling steps find one, halving narrows it down. Rowids of our tables
// start at 1.
void scanTable(sqlite3* db, const std::string& table, const char* sql,
               const std::function<void(sqlite3_stmt*)>& take, std::vector<std::string>& losses) {
  Statement stmt(db, sql);
  if (!stmt) {
    losses.push_back("table " + table + ": nothing could be read: " + sqlite3_errmsg(db));
    return;
  }
  int64_t last = 0;
  int rc = seekPast(stmt.get(), last);
  for (;;) {
    while (rc == SQLITE_ROW) {
      last = std::max<int64_t>(last, sqlite3_column_int64(stmt.get(), 0));
      take(stmt.get());
      rc = sqlite3_step(stmt.get());
    }
    if (rc == SQLITE_DONE) return;
    std::string error = sqlite3_errmsg(db);
    std::string after = last == 0 ? "from its start" : "after key " + std::to_string(last);
    int64_t failing = last;
    std::optional<int64_t> works;
    for (int shift = 0; shift < 63; ++shift) {
      int64_t step = int64_t{1} << shift;
      if (last > std::numeric_limits<int64_t>::max() - step) break;
      if (readable(seekPast(stmt.get(), last + step))) {
        works = last + step;
        break;
      }
      failing = last + step;
    }
    if (!works) {
      losses.push_back("table " + table + ": the rows " + after + " could not be read (" + error + ")");
      return;
    }
    while (*works - failing > 1) {
      int64_t middle = failing + (*works - failing) / 2;
      if (readable(seekPast(stmt.get(), middle))) {
        works = middle;
      } else {
        failing = middle;
      }
    }
    rc = seekPast(stmt.get(), *works);
    if (rc == SQLITE_ROW) {
      losses.push_back("table " + table + ": the rows " + after + " and before key " +
                       std::to_string(sqlite3_column_int64(stmt.get(), 0)) + " could not be read (" + error +
                       ")");
    } else {
      losses.push_back("table " + table + ": the rows " + after + " could not be read (" + error + ")");
    }
    last = *works;
  }
}

Salvaged readWhatRemains(sqlite3* db) {
  Salvaged out;
  scanTable(db, "jobs", "SELECT id, state, end_time, record FROM jobs WHERE id > ? ORDER BY id",
            [&](sqlite3_stmt* row) {
              JobRow job{.id = sqlite3_column_int64(row, 0),
                         .state = sqlite3_column_int(row, 1),
                         .endTime = sqlite3_column_int64(row, 2),
                         .record = blobOf(row, 3)};
              v1::Job parsed;
              bool whole = sqlite3_column_type(row, 3) == SQLITE_BLOB && parsed.ParseFromString(job.record) &&
                           static_cast<int64_t>(parsed.job_id()) == job.id && parsed.state() == job.state &&
                           parsed.end_time() == job.endTime;
              if (!whole) {
                out.losses.push_back("job " + std::to_string(job.id) + ": the record is damaged");
                return;
              }
              out.jobs.push_back(std::move(job));
            },
            out.losses);
  scanTable(db, "nodes",
            "SELECT rowid, name, state, reason, user, reason_time FROM nodes WHERE rowid > ? ORDER BY rowid",
            [&](sqlite3_stmt* row) {
              if (sqlite3_column_type(row, 1) != SQLITE_TEXT) {
                out.losses.push_back("nodes: the row with key " + std::to_string(sqlite3_column_int64(row, 0)) +
                                     " is damaged");
                return;
              }
              out.nodes.push_back(NodeRow{.name = columnText(row, 1),
                                          .state = columnText(row, 2),
                                          .reason = columnText(row, 3),
                                          .user = columnText(row, 4),
                                          .reasonTime = sqlite3_column_int64(row, 5)});
            },
            out.losses);
  scanTable(db, "node_hardware",
            "SELECT rowid, name, record FROM node_hardware WHERE rowid > ? ORDER BY rowid",
            [&](sqlite3_stmt* row) {
              std::string name = columnText(row, 1);
              std::string record = blobOf(row, 2);
              v1::NodeHardware parsed;
              if (sqlite3_column_type(row, 1) != SQLITE_TEXT || !parsed.ParseFromString(record)) {
                out.losses.push_back("node_hardware: the record of node " + name +
                                     " is damaged (the node's next registration replaces it)");
                return;
              }
              out.hardware.emplace_back(std::move(name), std::move(record));
            },
            out.losses);
  scanTable(db, "node_drains", "SELECT rowid, name, record FROM node_drains WHERE rowid > ? ORDER BY rowid",
            [&](sqlite3_stmt* row) {
              std::string name = columnText(row, 1);
              std::string record = columnText(row, 2);
              if (sqlite3_column_type(row, 1) != SQLITE_TEXT || !drain::fromStoredJson(record)) {
                out.losses.push_back("node_drains: the drains of node " + name +
                                     " are damaged (its devices, cores and memory are no longer drained, and its "
                                     "device order is saved again at its next registration)");
                return;
              }
              out.drains.emplace_back(std::move(name), std::move(record));
            },
            out.losses);
  auto stored = detail::readMaxJobId(db);
  if (!stored) {
    out.losses.push_back("the job id high-water mark could not be read (" + stored.error() + ")");
  } else if (!stored->has_value()) {
    out.losses.push_back("the job id high-water mark is missing");
  } else {
    out.maxJobId = stored->value();
  }
  return out;
}

Status moveAside(const std::string& from, const std::string& to) {
  std::error_code ec;
  if (!std::filesystem::exists(from, ec)) return okStatus();
  std::filesystem::rename(from, to, ec);
  if (ec) return Error{ErrorCode::Internal, "cannot move " + from + " to " + to + ": " + ec.message()};
  return okStatus();
}

Status writeNewDatabase(const std::string& path, const Salvaged& salvaged, uint64_t maxJobId) {
  if (auto status = detail::createPrivateFile(path); !status) return status;
  auto opened = detail::openDatabase(path);
  if (!opened) return Error{opened.failure()};
  sqlite3* db = *opened;
  auto fail = [&](const std::string& what) {
    std::string message = what + ": " + sqlite3_errmsg(db);
    (void)detail::exec(db, "ROLLBACK");
    sqlite3_close(db);
    return Error{ErrorCode::Internal, "cannot write the new state database " + path + ": " + message};
  };
  if (auto status = detail::createSchema(db); !status) return fail(status.error());
  if (auto status = detail::exec(db, "BEGIN IMMEDIATE"); !status) return fail(status.error());
  Statement putJob(db, "INSERT INTO jobs(id, state, end_time, record) VALUES(?,?,?,?)");
  Statement putNode(db, "INSERT OR REPLACE INTO nodes(name, state, reason, user, reason_time) VALUES(?,?,?,?,?)");
  Statement putHardware(db, "INSERT OR REPLACE INTO node_hardware(name, record) VALUES(?,?)");
  Statement putDrains(db, "INSERT OR REPLACE INTO node_drains(name, record) VALUES(?,?)");
  Statement putMaxJobId(db, "INSERT OR REPLACE INTO meta(key, value) VALUES('max_job_id', ?)");
  if (!putJob || !putNode || !putHardware || !putDrains || !putMaxJobId) return fail("prepare");
  for (const auto& job : salvaged.jobs) {
    sqlite3_reset(putJob.get());
    sqlite3_bind_int64(putJob.get(), 1, job.id);
    sqlite3_bind_int(putJob.get(), 2, job.state);
    sqlite3_bind_int64(putJob.get(), 3, job.endTime);
    sqlite3_bind_blob(putJob.get(), 4, job.record.data(), static_cast<int>(job.record.size()), SQLITE_STATIC);
    if (sqlite3_step(putJob.get()) != SQLITE_DONE) return fail("job " + std::to_string(job.id));
  }
  for (const auto& node : salvaged.nodes) {
    sqlite3_reset(putNode.get());
    sqlite3_bind_text(putNode.get(), 1, node.name.c_str(), -1, SQLITE_STATIC);
    sqlite3_bind_text(putNode.get(), 2, node.state.c_str(), -1, SQLITE_STATIC);
    sqlite3_bind_text(putNode.get(), 3, node.reason.c_str(), -1, SQLITE_STATIC);
    sqlite3_bind_text(putNode.get(), 4, node.user.c_str(), -1, SQLITE_STATIC);
    sqlite3_bind_int64(putNode.get(), 5, node.reasonTime);
    if (sqlite3_step(putNode.get()) != SQLITE_DONE) return fail("node " + node.name);
  }
  for (const auto& [name, record] : salvaged.hardware) {
    sqlite3_reset(putHardware.get());
    sqlite3_bind_text(putHardware.get(), 1, name.c_str(), -1, SQLITE_STATIC);
    sqlite3_bind_blob(putHardware.get(), 2, record.data(), static_cast<int>(record.size()), SQLITE_STATIC);
    if (sqlite3_step(putHardware.get()) != SQLITE_DONE) return fail("hardware of node " + name);
  }
  for (const auto& [name, record] : salvaged.drains) {
    sqlite3_reset(putDrains.get());
    sqlite3_bind_text(putDrains.get(), 1, name.c_str(), -1, SQLITE_STATIC);
    sqlite3_bind_text(putDrains.get(), 2, record.c_str(), -1, SQLITE_STATIC);
    if (sqlite3_step(putDrains.get()) != SQLITE_DONE) return fail("drains of node " + name);
  }
  sqlite3_bind_int64(putMaxJobId.get(), 1, static_cast<int64_t>(maxJobId));
  if (sqlite3_step(putMaxJobId.get()) != SQLITE_DONE) return fail("the job id high-water mark");
  if (auto status = detail::exec(db, "COMMIT"); !status) return fail(status.error());
  sqlite3_close(db);
  return okStatus();
}

}  // namespace

Result<SalvageReport> salvageDatabase(const std::string& path, int64_t now) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Error{ErrorCode::Internal, "no state database at " + path + " to recover"};
  }
  SalvageReport report;
  report.movedTo = path + ".corrupt-" + std::to_string(now);
  for (int attempt = 1; std::filesystem::exists(report.movedTo, ec); ++attempt) {
    report.movedTo = path + ".corrupt-" + std::to_string(now) + "." + std::to_string(attempt);
  }
  // The WAL may hold the newest pages: it moves with the file, under the
  // name SQLite looks for beside it.
  const bool hadWal = std::filesystem::exists(path + "-wal", ec);
  for (const char* suffix : {"", "-wal", "-shm"}) {
    if (auto status = moveAside(path + suffix, report.movedTo + suffix); !status) return status.failure();
  }

  Salvaged salvaged;
  sqlite3* damaged = nullptr;
  if (sqlite3_open_v2(report.movedTo.c_str(), &damaged, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    // Read only: no statement writes, and closing does not fold the WAL
    // into the damaged file, which stays as it was found.
    sqlite3_db_config(damaged, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    (void)detail::exec(damaged, "PRAGMA query_only=1");
    salvaged = readWhatRemains(damaged);
  } else {
    salvaged.losses.push_back(std::string("nothing could be read: ") +
                              (damaged ? sqlite3_errmsg(damaged) : "out of memory"));
  }
  sqlite3_close(damaged);
  // Reading made a -shm (and, where the file had none, an empty -wal):
  // leave only what was there.
  std::filesystem::remove(report.movedTo + "-shm", ec);
  if (!hadWal) std::filesystem::remove(report.movedTo + "-wal", ec);

  uint64_t highestRead = 0;
  for (const auto& job : salvaged.jobs) highestRead = std::max(highestRead, static_cast<uint64_t>(job.id));
  report.maxJobIdRead = salvaged.maxJobId.has_value();
  report.maxJobId = std::max(highestRead, salvaged.maxJobId.value_or(0));
  if (!report.maxJobIdRead) {
    salvaged.losses.push_back("job ids continue after " + std::to_string(report.maxJobId) +
                              ", the highest id read; ids of lost jobs above it may be handed out again");
  }
  report.jobs = salvaged.jobs.size();
  report.nodes = salvaged.nodes.size();
  report.nodeHardware = salvaged.hardware.size();
  report.losses = salvaged.losses;
  if (auto status = writeNewDatabase(path, salvaged, report.maxJobId); !status) {
    return Error{ErrorCode::Internal, status.error() + " (the damaged database is at " + report.movedTo + ")"};
  }
  return report;
}

}  // namespace gantry::store
