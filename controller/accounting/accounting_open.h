// STUB (dropped at merge): the factory the PostgreSQL work provides.
#pragma once

#include <memory>
#include <string>

#include "common/util/result.h"
#include "controller/accounting/accounting_store.h"

namespace gantry::accounting {

struct AccountingConnection {
  enum class Backend { Sqlite, Postgresql } backend;
  std::string path;
  std::string host;
  int port = 5432;
  std::string user;
  std::string password;
  std::string database;
};

Result<std::unique_ptr<AccountingStore>> openAccountingStore(const AccountingConnection& connection);

}  // namespace gantry::accounting
