// A throwaway PostgreSQL server for the accounting tests and benchmark: a
// data folder made by initdb in a fresh temporary folder, started by pg_ctl
// on a free loopback port, stopped and removed at the end. Password
// authentication over TCP, as a site's server would ask for.
//
// Run as root, the server runs as `nobody` (initdb refuses root), with the
// folder given to that user. The programs are found under
// /usr/lib/postgresql/<version>/bin (the newest), or in the folder named by
// GANTRY_POSTGRES_BINDIR.
//
// Threads: not thread-safe; one owner.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/util/result.h"
#include "controller/accounting/accounting_open.h"

namespace gantry::accounting::testing {

class PostgresTestServer {
 public:
  struct Options {
    // fsync on, for benchmarks; tests leave it off to run faster (they
    // never pull the power).
    bool durable = false;
  };

  // The folder of initdb and pg_ctl; empty when PostgreSQL's server
  // programs are not installed.
  static std::filesystem::path programsFolder();

  // Starts a server. Fails saying why (no programs, initdb or pg_ctl
  // failed: the message holds the end of their log).
  static Result<std::unique_ptr<PostgresTestServer>> start(Options options);
  ~PostgresTestServer();
  PostgresTestServer(const PostgresTestServer&) = delete;
  PostgresTestServer& operator=(const PostgresTestServer&) = delete;

  int port() const { return port_; }
  // How the store reaches `database` on this server, as its superuser.
  AccountingConnection connection(const std::string& database) const;

  // Creates `database` when missing; otherwise drops the accounting
  // tables in it, so a test starts from nothing.
  Status freshDatabase(const std::string& database);
  // Runs one statement in `database` as the superuser.
  Status execute(const std::string& database, const std::string& statement);

  // pg_ctl stop -m immediate: the server dies as in a crash.
  Status killNow();
  // Starts it again on the same folder and port.
  Status restart();

 private:
  PostgresTestServer() = default;
  Status run(const std::vector<std::string>& argv, const std::string& log) const;
  std::string logTail(const std::string& log) const;

  std::filesystem::path programs_;
  std::filesystem::path folder_;
  bool asNobody_ = false;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  bool durable_ = false;
  int port_ = 0;
  bool running_ = false;
};

// The one server of this test executable, started on first use and stopped
// at exit. nullptr when it cannot be had, with the reason in *why;
// *installed says whether PostgreSQL's programs are here at all (a test
// skips without them, and fails when they are here but did not start).
PostgresTestServer* sharedPostgresServer(std::string* why, bool* installed);

}  // namespace gantry::accounting::testing
