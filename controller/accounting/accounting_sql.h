// Every statement the accounting store runs: the schema, the idempotent
// writes, and the queries built from JobQuery / EventQuery. The SQL is kept
// in this one place, in the dialect SQLite and PostgreSQL share (ON
// CONFLICT ... DO UPDATE, partial indexes, ? placeholders that a PostgreSQL
// backend renumbers as $1, $2, ...), so a second backend follows the same
// schema and the same query rules (queries.h). Integers are BIGINT (64 bits
// in PostgreSQL, plain INTEGER affinity in SQLite). Pure text: no database
// here.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "controller/accounting/queries.h"

namespace gantry::accounting::sql {

// Raised when the tables change shape; a file of a newer version is refused.
constexpr int64_t kSchemaVersion = 2;

// Statements that create what is missing (the tables as version 1 had
// them); run in order.
const std::vector<const char*>& schema();
// Statements that bring tables of version `stored` (0: just created) to
// kSchemaVersion, after schema(); run in order, in the transaction that
// then writes the version. Version 2: job arrays' columns.
std::vector<const char*> migrations(int64_t stored);

// The stored schema version (one row; absent in a new file).
extern const char* const kReadSchemaVersion;
extern const char* const kWriteSchemaVersion;  // binds: version

// Upserts. A record delivered twice is stored once; a later version of the
// same record replaces the stored one unless it is behind it (a job record
// never goes back from ended to running, or from running to pending; a
// closed event is never reopened), so a late duplicate changes nothing.
// Binds: the columns of kJobColumns / kEventColumns in order, then for jobs
// the two derived columns `progress` and `window_end` (jobProgress,
// windowEnd below).
extern const char* const kPutJob;
extern const char* const kPutEvent;

// kPutJob / kPutEvent with `rows` rows of values, written in one statement
// (binds: each row's in turn). No two rows may share a key: PostgreSQL
// refuses to update one row twice in a statement (write_collapse.h).
std::string withRows(const char* put, size_t rows);

// The column lists every SELECT returns, in the order the store reads them.
extern const char* const kJobColumns;
extern const char* const kEventColumns;

// The statement with its ? placeholders numbered $1, $2, ... in order, as
// PostgreSQL writes them (a ? inside a quoted literal is left alone).
std::string numberedPlaceholders(const std::string& text);

// 0 pending (not started), 1 running (started, not ended), 2 ended.
int64_t jobProgress(int64_t startTime, int64_t endTime);
// The end of a job's time in the system: its end, or "never" while it runs.
int64_t windowEnd(int64_t endTime);

// A statement with its values, bound in order.
struct BoundQuery {
  std::string text;
  std::vector<std::variant<int64_t, std::string>> binds;
};

// Job and step rows, ordered by job id, submit time, cluster, then the
// job's own row, batch, extern, interactive, numbered steps by number.
BoundQuery selectJobs(const JobQuery& query);
// Events ordered by cluster, node, start, state.
BoundQuery selectEvents(const EventQuery& query);

}  // namespace gantry::accounting::sql
