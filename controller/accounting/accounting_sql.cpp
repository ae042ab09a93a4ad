#include "controller/accounting/accounting_sql.h"

#include <limits>
#include <type_traits>

namespace gantry::accounting::sql {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

// A comma-separated list of `count` placeholders: "?,?,?".
std::string placeholders(size_t count) {
  std::string text;
  for (size_t i = 0; i < count; ++i) text += i == 0 ? "?" : ",?";
  return text;
}

template <typename Value>
void addIn(BoundQuery* query, const std::string& column, const std::vector<Value>& values) {
  if (values.empty()) return;
  query->text += " AND " + column + " IN (" + placeholders(values.size()) + ")";
  for (const auto& value : values) {
    if constexpr (std::is_same_v<Value, std::string>) query->binds.emplace_back(value);
    else query->binds.emplace_back(static_cast<int64_t>(value));
  }
}

// The job (alias j) was in `state` at some time in the window (queries.h).
void addStateInWindow(BoundQuery* query, const std::string& state, const TimeWindow& window) {
  if (state == "PENDING") {
    query->text +=
        "(j.eligible_time <> 0 AND j.eligible_time < ? AND"
        " ((j.start_time <> 0 AND j.start_time >= ?) OR (j.start_time = 0 AND j.window_end >= ?)))";
    query->binds.insert(query->binds.end(), {window.end, window.start, window.start});
  } else if (state == "RUNNING" || state == "SUSPENDED") {
    query->text += "(j.start_time <> 0 AND j.start_time < ? AND j.window_end >= ?";
    query->binds.insert(query->binds.end(), {window.end, window.start});
    if (state == "SUSPENDED") {
      query->text += " AND j.state = ?";
      query->binds.emplace_back(state);
    }
    query->text += ")";
  } else {
    query->text += "(j.state = ? AND j.end_time <> 0 AND j.end_time >= ? AND j.end_time <= ?)";
    query->binds.emplace_back(state);
    query->binds.insert(query->binds.end(), {window.start, window.end});
  }
}

void addJobTime(BoundQuery* query, const JobQuery& jobs) {
  if (!jobs.window) {
    addIn(query, "j.state", jobs.states);
    return;
  }
  const TimeWindow& window = *jobs.window;
  if (jobs.states.empty()) {
    query->text += " AND j.eligible_time <> 0 AND j.eligible_time < ? AND j.window_end >= ?";
    query->binds.insert(query->binds.end(), {window.end, window.start});
    return;
  }
  query->text += " AND (";
  for (size_t i = 0; i < jobs.states.size(); ++i) {
    if (i > 0) query->text += " OR ";
    addStateInWindow(query, jobs.states[i], window);
  }
  query->text += ")";
}

// The jobs -j names (alias j; an array's id names each of its tasks, 12_4
// one task), and which of their rows come back (alias r).
void addJobSelectors(BoundQuery* query, const JobQuery& jobs) {
  if (jobs.allocationsOnly) query->text += " AND r.step_id = ''";
  if (jobs.ids.empty()) return;
  query->text += " AND (";
  for (size_t i = 0; i < jobs.ids.size(); ++i) {
    const JobSelector& selector = jobs.ids[i];
    if (i > 0) query->text += " OR ";
    const auto id = static_cast<int64_t>(selector.jobId);
    if (selector.arrayTask) {
      query->text += "(j.array_job_id = ? AND j.array_task_id = ?";
      query->binds.insert(query->binds.end(), {id, static_cast<int64_t>(*selector.arrayTask)});
    } else {
      query->text += "((j.job_id = ? OR j.array_job_id = ?)";
      query->binds.insert(query->binds.end(), {id, id});
    }
    if (selector.stepId && !jobs.allocationsOnly) {
      query->text += " AND r.step_id = ?";
      query->binds.emplace_back(*selector.stepId);
    }
    query->text += ")";
  }
  query->text += ")";
}

}  // namespace

const std::vector<const char*>& schema() {
  static const std::vector<const char*> statements = {
      "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL)",
      // One row per job (step_id '') and per step. `progress` and
      // `window_end` are derived at write time (jobProgress, windowEnd) so
      // that the upsert rule and the time-window rule are plain comparisons
      // an index can serve.
      "CREATE TABLE IF NOT EXISTS job_records ("
      " cluster TEXT NOT NULL, job_id BIGINT NOT NULL, step_id TEXT NOT NULL,"
      " submit_time BIGINT NOT NULL,"
      " job_name TEXT NOT NULL, user_name TEXT NOT NULL, uid BIGINT NOT NULL,"
      " group_name TEXT NOT NULL, gid BIGINT NOT NULL, account TEXT NOT NULL,"
      " partition_name TEXT NOT NULL, eligible_time BIGINT NOT NULL,"
      " start_time BIGINT NOT NULL, end_time BIGINT NOT NULL,"
      " time_limit BIGINT," /* minutes; NULL is UNLIMITED */
      " state TEXT NOT NULL, cancelled_by BIGINT,"
      " exit_code BIGINT NOT NULL, exit_signal BIGINT NOT NULL,"
      " derived_exit_code BIGINT NOT NULL, derived_exit_signal BIGINT NOT NULL,"
      " node_count BIGINT NOT NULL, node_list TEXT NOT NULL, alloc_cpus BIGINT NOT NULL,"
      " req_tres TEXT NOT NULL, alloc_tres TEXT NOT NULL,"
      " usage_in_min TEXT NOT NULL, usage_in_min_node TEXT NOT NULL, usage_in_min_task TEXT NOT NULL,"
      " usage_in_max TEXT NOT NULL, usage_in_max_node TEXT NOT NULL, usage_in_max_task TEXT NOT NULL,"
      " usage_in_ave TEXT NOT NULL, usage_in_tot TEXT NOT NULL,"
      " reason TEXT NOT NULL, work_dir TEXT NOT NULL, job_comment TEXT NOT NULL,"
      " progress BIGINT NOT NULL, window_end BIGINT NOT NULL,"
      " PRIMARY KEY (job_id, submit_time, cluster, step_id))",
      // Job rows only: every query selects jobs first, then their steps
      // through the primary key.
      "CREATE INDEX IF NOT EXISTS job_records_by_uid ON job_records(uid, window_end) WHERE step_id = ''",
      "CREATE INDEX IF NOT EXISTS job_records_by_account ON job_records(account, window_end)"
      " WHERE step_id = ''",
      "CREATE INDEX IF NOT EXISTS job_records_by_window ON job_records(window_end) WHERE step_id = ''",
      "CREATE INDEX IF NOT EXISTS job_records_by_state ON job_records(state) WHERE step_id = ''",
      "CREATE TABLE IF NOT EXISTS node_events ("
      " cluster TEXT NOT NULL, node TEXT NOT NULL, start_time BIGINT NOT NULL,"
      " end_time BIGINT NOT NULL, state TEXT NOT NULL, reason TEXT NOT NULL,"
      " user_name TEXT NOT NULL, tres TEXT NOT NULL, tres_reference TEXT NOT NULL,"
      " PRIMARY KEY (cluster, node, start_time, state))",
      "CREATE INDEX IF NOT EXISTS node_events_by_node ON node_events(node, start_time)",
      "CREATE INDEX IF NOT EXISTS node_events_open ON node_events(node) WHERE end_time = 0",
  };
  return statements;
}

std::vector<const char*> migrations(int64_t stored) {
  std::vector<const char*> statements;
  if (stored < 2) {
    statements.insert(statements.end(),
                      {"ALTER TABLE job_records ADD COLUMN array_job_id BIGINT NOT NULL DEFAULT 0",
                       "ALTER TABLE job_records ADD COLUMN array_task_id BIGINT",
                       "ALTER TABLE job_records ADD COLUMN array_tasks TEXT NOT NULL DEFAULT ''",
                       "CREATE INDEX IF NOT EXISTS job_records_by_array ON job_records(array_job_id, array_task_id)"
                       " WHERE step_id = ''"});
  }
  return statements;
}

const char* const kReadSchemaVersion = "SELECT value FROM meta WHERE key = 'schema_version'";
const char* const kWriteSchemaVersion =
    "INSERT INTO meta(key, value) VALUES('schema_version', ?) "
    "ON CONFLICT(key) DO UPDATE SET value = excluded.value";

const char* const kJobColumns =
    "cluster, job_id, step_id, submit_time, job_name, user_name, uid, group_name, gid, account,"
    " partition_name, eligible_time, start_time, end_time, time_limit, state, cancelled_by,"
    " exit_code, exit_signal, derived_exit_code, derived_exit_signal, node_count, node_list,"
    " alloc_cpus, req_tres, alloc_tres, usage_in_min, usage_in_min_node, usage_in_min_task,"
    " usage_in_max, usage_in_max_node, usage_in_max_task, usage_in_ave, usage_in_tot,"
    " reason, work_dir, job_comment, array_job_id, array_task_id, array_tasks";

const char* const kEventColumns =
    "cluster, node, start_time, end_time, state, reason, user_name, tres, tres_reference";

const char* const kPutJob =
    "INSERT INTO job_records(cluster, job_id, step_id, submit_time, job_name, user_name, uid,"
    " group_name, gid, account, partition_name, eligible_time, start_time, end_time, time_limit,"
    " state, cancelled_by, exit_code, exit_signal, derived_exit_code, derived_exit_signal,"
    " node_count, node_list, alloc_cpus, req_tres, alloc_tres, usage_in_min, usage_in_min_node,"
    " usage_in_min_task, usage_in_max, usage_in_max_node, usage_in_max_task, usage_in_ave,"
    " usage_in_tot, reason, work_dir, job_comment, array_job_id, array_task_id, array_tasks,"
    " progress, window_end)"
    " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
    " ON CONFLICT(job_id, submit_time, cluster, step_id) DO UPDATE SET"
    " job_name = excluded.job_name, user_name = excluded.user_name, uid = excluded.uid,"
    " group_name = excluded.group_name, gid = excluded.gid, account = excluded.account,"
    " partition_name = excluded.partition_name, eligible_time = excluded.eligible_time,"
    " start_time = excluded.start_time, end_time = excluded.end_time,"
    " time_limit = excluded.time_limit, state = excluded.state,"
    " cancelled_by = excluded.cancelled_by, exit_code = excluded.exit_code,"
    " exit_signal = excluded.exit_signal, derived_exit_code = excluded.derived_exit_code,"
    " derived_exit_signal = excluded.derived_exit_signal, node_count = excluded.node_count,"
    " node_list = excluded.node_list, alloc_cpus = excluded.alloc_cpus,"
    " req_tres = excluded.req_tres, alloc_tres = excluded.alloc_tres,"
    " usage_in_min = excluded.usage_in_min, usage_in_min_node = excluded.usage_in_min_node,"
    " usage_in_min_task = excluded.usage_in_min_task, usage_in_max = excluded.usage_in_max,"
    " usage_in_max_node = excluded.usage_in_max_node, usage_in_max_task = excluded.usage_in_max_task,"
    " usage_in_ave = excluded.usage_in_ave, usage_in_tot = excluded.usage_in_tot,"
    " reason = excluded.reason, work_dir = excluded.work_dir, job_comment = excluded.job_comment,"
    " array_job_id = excluded.array_job_id, array_task_id = excluded.array_task_id,"
    " array_tasks = excluded.array_tasks, progress = excluded.progress, window_end = excluded.window_end"
    " WHERE excluded.progress >= job_records.progress";

const char* const kPutEvent =
    "INSERT INTO node_events(cluster, node, start_time, end_time, state, reason, user_name, tres,"
    " tres_reference) VALUES(?,?,?,?,?,?,?,?,?)"
    " ON CONFLICT(cluster, node, start_time, state) DO UPDATE SET"
    " end_time = excluded.end_time, reason = excluded.reason, user_name = excluded.user_name,"
    " tres = excluded.tres, tres_reference = excluded.tres_reference"
    " WHERE excluded.end_time <> 0 OR node_events.end_time = 0";

std::string withRows(const char* put, size_t rows) {
  std::string text = put;
  size_t open = text.find(" VALUES(") + 7;
  size_t close = text.find(')', open) + 1;
  std::string row = text.substr(open, close - open);
  std::string values = row;
  for (size_t i = 1; i < rows; ++i) values += "," + row;
  return text.substr(0, open) + values + text.substr(close);
}

std::string numberedPlaceholders(const std::string& text) {
  std::string numbered;
  numbered.reserve(text.size() + text.size() / 8);
  int next = 1;
  bool quoted = false;  // inside '...', where a ? is text
  for (char c : text) {
    if (c == '\'') quoted = !quoted;
    if (c == '?' && !quoted) numbered += "$" + std::to_string(next++);
    else numbered += c;
  }
  return numbered;
}

int64_t jobProgress(int64_t startTime, int64_t endTime) {
  if (endTime != 0) return 2;
  return startTime != 0 ? 1 : 0;
}

int64_t windowEnd(int64_t endTime) { return endTime != 0 ? endTime : kNever; }

BoundQuery selectJobs(const JobQuery& jobs) {
  // Each column of the list, read from the step rows (alias r).
  std::string columns;
  std::string list = kJobColumns;
  for (size_t begin = 0; begin < list.size();) {
    size_t end = list.find(',', begin);
    if (end == std::string::npos) end = list.size();
    size_t first = list.find_first_not_of(' ', begin);
    columns += (columns.empty() ? "r." : ", r.") + list.substr(first, end - first);
    begin = end + 1;
  }
  BoundQuery query;
  // The jobs (j) are chosen first, through an index; their rows (r) follow
  // by primary key.
  query.text = "SELECT " + columns +
               " FROM job_records j JOIN job_records r"
               " ON r.job_id = j.job_id AND r.submit_time = j.submit_time AND r.cluster = j.cluster"
               " WHERE j.step_id = ''";
  addIn(&query, "j.cluster", jobs.clusters);
  addJobSelectors(&query, jobs);
  addIn(&query, "j.uid", jobs.uids);
  addIn(&query, "j.account", jobs.accounts);
  addJobTime(&query, jobs);
  query.text +=
      " ORDER BY r.job_id, r.submit_time, r.cluster,"
      " CASE r.step_id WHEN '' THEN 0 WHEN 'batch' THEN 1 WHEN 'extern' THEN 2"
      " WHEN 'interactive' THEN 3 ELSE 4 END,"
      // Only step numbers are cast: PostgreSQL refuses to cast 'batch'.
      " CAST(CASE WHEN r.step_id IN ('', 'batch', 'extern', 'interactive') THEN '0' ELSE r.step_id END"
      " AS BIGINT), r.step_id";
  return query;
}

BoundQuery selectEvents(const EventQuery& events) {
  BoundQuery query;
  query.text = std::string("SELECT ") + kEventColumns + " FROM node_events e WHERE 1 = 1";
  addIn(&query, "e.cluster", events.clusters);
  addIn(&query, "e.node", events.nodes);
  addIn(&query, "e.state", events.states);
  if (events.window) {
    query.text += " AND e.start_time < ? AND (e.end_time = 0 OR e.end_time >= ?)";
    query.binds.insert(query.binds.end(), {events.window->end, events.window->start});
  }
  if (events.openOnly) query.text += " AND e.end_time = 0";
  query.text += " ORDER BY e.cluster, e.node, e.start_time, e.state";
  return query;
}

}  // namespace gantry::accounting::sql
