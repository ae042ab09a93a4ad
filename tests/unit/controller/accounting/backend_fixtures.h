// Runs one test body on both accounting backends: ACCOUNTING_BACKEND_TEST
// registers "sqlite: <name>" [sqlite] and "postgresql: <name>"
// [postgresql], each calling the body with its backend. The PostgreSQL case
// uses this executable's one throwaway server (postgres_server.h); on a
// machine without PostgreSQL it says it is skipped (a warning CTest reads
// as a skip) and checks nothing.
#pragma once

#include <catch2/catch.hpp>

#include <cctype>
#include <memory>
#include <string>

#include "controller/accounting/accounting_open.h"
#include "tests/unit/controller/accounting/accounting_fixtures.h"
#include "tests/unit/controller/accounting/postgres_server.h"

namespace gantry::accounting::testing {

enum class Backend { Sqlite, Postgresql };

inline const char* kPostgresSkipped = "PostgreSQL cases skipped: ";

// True (having said so) when this machine has no PostgreSQL; a server
// that is installed but does not start fails the case.
inline bool skipWithoutPostgres() {
  std::string why;
  bool installed = false;
  if (sharedPostgresServer(&why, &installed) != nullptr) return false;
  if (installed) FAIL("PostgreSQL is installed but the test server did not start: " << why);
  WARN(kPostgresSkipped << why);
  return true;
}

inline PostgresTestServer& postgres() {
  std::string why;
  bool installed = false;
  PostgresTestServer* server = sharedPostgresServer(&why, &installed);
  REQUIRE(server != nullptr);
  return *server;
}

// "fields.db" -> "fields_db": a database name PostgreSQL takes unquoted.
inline std::string postgresName(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  return out;
}

// Where the store named `name` lives on `backend`; fresh() empties it first.
inline AccountingConnection storeAt(Backend backend, const std::string& name, bool fresh) {
  if (backend == Backend::Sqlite) {
    std::string path = fresh ? freshDatabase(name) : freshDatabasePath(name);
    return AccountingConnection{.backend = AccountingConnection::Backend::Sqlite, .path = path};
  }
  if (fresh) REQUIRE(postgres().freshDatabase(postgresName(name)).ok());
  return postgres().connection(postgresName(name));
}

inline std::unique_ptr<AccountingStore> openStore(const AccountingConnection& where) {
  auto store = openAccountingStore(where);
  INFO(describe(where));
  REQUIRE(store.ok());
  return std::move(*store);
}

// A store on an empty database.
inline std::unique_ptr<AccountingStore> openFresh(Backend backend, const std::string& name) {
  return openStore(storeAt(backend, name, true));
}

// The store on the same database again, as after a restart.
inline std::unique_ptr<AccountingStore> reopen(Backend backend, const std::string& name) {
  return openStore(storeAt(backend, name, false));
}

}  // namespace gantry::accounting::testing

#define ACCOUNTING_BACKEND_TEST(name) ACCOUNTING_BACKEND_TEST_BODY(name, INTERNAL_CATCH_UNIQUE_NAME(backendTest))
#define ACCOUNTING_BACKEND_TEST_BODY(name, body)                                                   \
  static void body(::gantry::accounting::testing::Backend backend);                               \
  TEST_CASE("sqlite: " name, "[sqlite]") { body(::gantry::accounting::testing::Backend::Sqlite); } \
  TEST_CASE("postgresql: " name, "[postgresql]") {                                                 \
    if (::gantry::accounting::testing::skipWithoutPostgres()) return;                              \
    body(::gantry::accounting::testing::Backend::Postgresql);                                      \
  }                                                                                                \
  static void body([[maybe_unused]] ::gantry::accounting::testing::Backend backend)
