// One connection to the accounting database on PostgreSQL, made on first
// use and made again after the server went away, with the statements it
// prepares. Errors name the database as host:port/database and say what is
// wrong; the password is never part of one. Internal to
// controller/accounting.
//
// Threads: not thread-safe; each session has one owner (the writer thread,
// or the readers under their mutex).
#pragma once

#include <pqxx/pqxx>

#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/util/result.h"
#include "controller/accounting/accounting_open.h"

namespace gantry::accounting::detail {

class PostgresSession {
 public:
  // (name, SQL) pairs prepared on each new connection.
  using Prepared = std::vector<std::pair<std::string, std::string>>;

  explicit PostgresSession(AccountingConnection where, Prepared prepared = {});

  // Connects unless connected. Unavailable when the server cannot be
  // reached; Internal when it refuses us (authentication, no such
  // database).
  Status connect();
  // Precondition: connect() succeeded and no failure() dropped it since.
  pqxx::connection& connection() { return *connection_; }

  // The error for an exception thrown while doing `what` ("writing job
  // records"). A lost connection is dropped, so the next connect() makes a
  // new one.
  Error failure(const std::exception& error, const std::string& what);

  // Closes the connection, if any; connect() makes a new one.
  void disconnect() { connection_.reset(); }

  // "accounting database host:port/database"
  const std::string& name() const { return name_; }

 private:
  std::string connectionString() const;
  std::string oneLine(const std::string& text) const;

  AccountingConnection where_;
  Prepared prepared_;
  std::string name_;
  std::unique_ptr<pqxx::connection> connection_;
};

}  // namespace gantry::accounting::detail
