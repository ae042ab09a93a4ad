// The PostgreSQL side of accounting_sql.h: records as statement parameters
// and back from result rows, in the column order of kJobColumns /
// kEventColumns. Internal to controller/accounting.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>
#include <vector>

#include "controller/accounting/accounting_sql.h"
#include "controller/accounting/records.h"

namespace gantry::accounting::detail {

// Parameters in text form, as libpq sends them; nullopt is NULL. The server
// infers each one's type from the column it meets.
using Params = std::vector<std::optional<std::string>>;

// For kPutJob / kPutEvent.
Params jobParams(const JobRecord& record);
Params eventParams(const NodeEvent& event);
Params queryParams(const sql::BoundQuery& query);

pqxx::result execPrepared(pqxx::transaction_base& transaction, const std::string& name, const Params& params);
pqxx::result execParams(pqxx::transaction_base& transaction, const std::string& statement, const Params& params);

// A row of a SELECT of kJobColumns / kEventColumns.
JobRecord readJob(const pqxx::row& row);
NodeEvent readEvent(const pqxx::row& row);

// PostgreSQL text is valid UTF-8 without NUL, where SQLite keeps any
// bytes; a byte that breaks that (a path or comment in another encoding)
// is stored as U+FFFD rather than failing the whole transaction.
std::string storableText(const std::string& text);

}  // namespace gantry::accounting::detail
