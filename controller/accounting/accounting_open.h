// Where the accounting records live, as gantry.conf says
// (AccountingStorageType, AccountingStorageLoc, AccountingStorageHost,
// AccountingStoragePort, AccountingStorageUser, AccountingStoragePass), and
// the one call that opens the store of either backend.
#pragma once

#include <memory>
#include <string>

#include "common/util/result.h"
#include "controller/accounting/accounting_store.h"

namespace gantry::accounting {

struct AccountingConnection {
  enum class Backend { Sqlite, Postgresql } backend = Backend::Sqlite;
  std::string path{};  // sqlite: the database file
  // postgresql: the server and the database. An empty host is the local
  // server's default unix socket; a host starting with '/' is the folder of
  // its socket.
  std::string host{};
  int port = 5432;
  std::string user{};
  std::string password{};  // never printed
  std::string database{};
};

// "host:port/database" for PostgreSQL, the file for SQLite: what every
// error of the store names.
std::string describe(const AccountingConnection& where);

// Opens (creating what is missing of the schema) and starts the store's
// writer. Fails Internal (Invalid for a connection missing its file or
// database name) naming the file or host:port/database and what is wrong:
// cannot connect, authentication failed, no such database, damaged file,
// newer schema version. The password is never part of a message.
Result<std::unique_ptr<AccountingStore>> openAccountingStore(const AccountingConnection& where);

}  // namespace gantry::accounting
