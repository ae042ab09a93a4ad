// What the accounting store refuses before anything is queued: a record
// or a query that breaks a rule. Each error is ErrorCode::Invalid and names
// the record ("job record 12.batch of cluster east") or the query part, and
// what is wrong. Pure functions; thread-safe.
#pragma once

#include <string>

#include "common/util/result.h"
#include "controller/accounting/queries.h"
#include "controller/accounting/records.h"

namespace gantry::accounting {

// "", "batch", "extern", "interactive" or a step number ("0", "17").
bool isStepId(const std::string& stepId);

Status checkJobRecord(const JobRecord& record);
Status checkNodeEvent(const NodeEvent& event);
Status checkJobQuery(const JobQuery& query);
Status checkEventQuery(const EventQuery& query);

}  // namespace gantry::accounting
