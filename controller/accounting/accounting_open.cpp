// STUB (dropped at merge): SQLite only.
#include "controller/accounting/accounting_open.h"

namespace gantry::accounting {

Result<std::unique_ptr<AccountingStore>> openAccountingStore(const AccountingConnection& connection) {
  if (connection.backend != AccountingConnection::Backend::Sqlite) {
    return Error{ErrorCode::Internal, "accounting: the PostgreSQL backend is not built"};
  }
  auto store = std::make_unique<AccountingStore>();
  if (Status opened = store->open(connection.path); !opened) return opened.failure();
  return store;
}

}  // namespace gantry::accounting
