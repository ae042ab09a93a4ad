// The stored form of a journaled accounting record (accounting_journal.h):
// a job or step record, or a node event, as JSON text. The journal keeps
// records across controller restarts until the accounting store has them,
// so the form is read back by later versions: unknown keys are ignored and
// missing ones take their defaults.
#pragma once

#include <string>
#include <variant>

#include "common/util/result.h"
#include "controller/accounting/records.h"

namespace gantry::core {

using AccountingEntry = std::variant<accounting::JobRecord, accounting::NodeEvent>;

std::string encodeAccountingEntry(const AccountingEntry& entry);
// Invalid, saying what is wrong, for text that is not such a record.
Result<AccountingEntry> decodeAccountingEntry(const std::string& text);

}  // namespace gantry::core
