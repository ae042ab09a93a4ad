// Collapses the records of one transaction to one per key, keeping the one
// the upsert of accounting_sql.h would leave stored had they been written
// one by one in order: for a job record (cluster, job id, step id, submit
// time), the last of those furthest on (pending < running < ended); for an
// event (cluster, node, start, state), the last closed one, or the last one
// when none is closed. The stored row then meets the same rule, so writing
// the collapsed set gives what writing them all would. The PostgreSQL
// backend needs it to send many rows in one statement (PostgreSQL refuses
// to update one row twice in a statement). Pure; thread-safe.
#pragma once

#include <vector>

#include "controller/accounting/records.h"

namespace gantry::accounting {

// In order of each key's first record.
std::vector<const JobRecord*> collapseJobs(const std::vector<const JobRecord*>& records);
std::vector<const NodeEvent*> collapseEvents(const std::vector<const NodeEvent*>& events);

}  // namespace gantry::accounting
