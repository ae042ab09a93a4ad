#include "controller/accounting/accounting_open.h"

#include "controller/accounting/postgres_accounting_store.h"
#include "controller/accounting/sqlite_accounting_store.h"

namespace gantry::accounting {

std::string describe(const AccountingConnection& where) {
  if (where.backend == AccountingConnection::Backend::Sqlite) return where.path;
  // No host is libpq's default unix socket, which has a port but no name.
  return (where.host.empty() ? std::string("(local socket)") : where.host) + ":" + std::to_string(where.port) + "/" +
         where.database;
}

Result<std::unique_ptr<AccountingStore>> openAccountingStore(const AccountingConnection& where) {
  if (where.backend == AccountingConnection::Backend::Sqlite) {
    if (where.path.empty()) return Error{"accounting database: no file given for the SQLite backend"};
    auto store = std::make_unique<SqliteAccountingStore>();
    if (auto status = store->open(where.path); !status) return status.failure();
    return std::unique_ptr<AccountingStore>(std::move(store));
  }
  if (where.database.empty()) {
    return Error{"accounting database " + describe(where) + ": no database name given for the PostgreSQL backend"};
  }
  if (where.port <= 0 || where.port > 65535) {
    return Error{"accounting database " + describe(where) + ": port " + std::to_string(where.port) +
                 " is not between 1 and 65535"};
  }
  auto store = PostgresAccountingStore::open(where);
  if (!store) return store.failure();
  return std::unique_ptr<AccountingStore>(std::move(*store));
}

}  // namespace gantry::accounting
