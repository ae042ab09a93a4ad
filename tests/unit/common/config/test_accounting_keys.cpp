// The accounting keys of gantry.conf: one row per rule.
#include <catch2/catch.hpp>

#include <string>

#include "common/config/gantry_conf.h"

using namespace gantry::config;
using Backend = GantryConf::AccountingStorage::Backend;

namespace {

gantry::Result<Loaded> parseLines(const std::string& lines) {
  return parseGantryConf("SlurmctldHost=ctl\nNodeName=n1 CPUs=2\nPartitionName=p Nodes=n1\n" + lines, "gantry.conf");
}

}  // namespace

TEST_CASE("accounting keys: each storage type picks its backend", "[config][accounting]") {
  struct Row {
    const char* rule;
    const char* value;
    Backend backend;
  };
  const Row rows[] = {
      {"none keeps no records", "accounting_storage/none", Backend::None},
      {"sqlite is the embedded store", "accounting_storage/sqlite", Backend::Sqlite},
      {"postgresql is the shared store", "accounting_storage/postgresql", Backend::Postgresql},
      {"slurmdbd from a Slurm site's file is the embedded store", "accounting_storage/slurmdbd", Backend::Sqlite},
      {"the plugin type may be left out and the case differs", "PostgreSQL", Backend::Postgresql},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    auto loaded = parseLines(std::string("AccountingStorageType=") + row.value + "\n");
    REQUIRE(loaded.ok());
    CHECK(loaded->conf.accounting.backend == row.backend);
    CHECK(loaded->conf.accountingEnabled() == (row.backend != Backend::None));
  }
  auto none = parseLines("");
  REQUIRE(none.ok());
  CHECK_FALSE(none->conf.accountingEnabled());
}

TEST_CASE("accounting keys: the connection keys are kept as written", "[config][accounting]") {
  auto loaded = parseLines(
      "AccountingStorageType=accounting_storage/postgresql\nAccountingStorageHost=db7\nAccountingStoragePort=6543\n"
      "AccountingStorageUser=acct\nAccountingStoragePass=s3cret\nAccountingStorageLoc=cluster_acct\n");
  REQUIRE(loaded.ok());
  CHECK(loaded->conf.accounting.host == "db7");
  CHECK(loaded->conf.accounting.port == 6543);
  CHECK(loaded->conf.accounting.user == "acct");
  CHECK(loaded->conf.accounting.pass == "s3cret");
  CHECK(loaded->conf.accounting.loc == "cluster_acct");
  CHECK(loaded->notes.empty());
}

TEST_CASE("accounting keys: the sampling interval", "[config][accounting]") {
  struct Row {
    const char* rule;
    const char* value;
    int taskSec;
  };
  const Row rows[] = {
      {"a bare number is the task interval", "45", 45},
      {"task= among other types", "energy=10,task=12,network=0", 12},
      {"zero samples only at the end", "task=0", 0},
      {"without task= the default stays", "filesystem=60", 30},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    auto loaded = parseLines(std::string("JobAcctGatherFrequency=") + row.value + "\n");
    REQUIRE(loaded.ok());
    CHECK(loaded->conf.jobAcctGatherTaskSec == row.taskSec);
  }
}

TEST_CASE("accounting keys: a bad value is refused, naming the key, value and rule", "[config][accounting]") {
  struct Row {
    const char* rule;
    const char* line;
    const char* message;
  };
  const Row rows[] = {
      {"an unknown storage type", "AccountingStorageType=accounting_storage/mysql",
       "gantry.conf:4: AccountingStorageType=accounting_storage/mysql: must be one of accounting_storage/none, "
       "accounting_storage/sqlite, accounting_storage/postgresql or accounting_storage/slurmdbd (kept in Gantry's "
       "own SQLite store)"},
      {"an unknown TRES type", "AccountingStorageTRES=gres/gpu,disk/ssd",
       "gantry.conf:4: AccountingStorageTRES=gres/gpu,disk/ssd: 'disk/ssd' is not a known TRES type"},
      {"a port out of range", "AccountingStoragePort=70000",
       "gantry.conf:4: AccountingStoragePort=70000: expected a port from 1 to 65535"},
      {"an unknown gather type", "JobAcctGatherType=jobacct_gather/psutil",
       "gantry.conf:4: JobAcctGatherType=jobacct_gather/psutil: must be one of jobacct_gather/none, "
       "jobacct_gather/linux or jobacct_gather/cgroup"},
      {"an unknown frequency type", "JobAcctGatherFrequency=gpu=5",
       "gantry.conf:4: JobAcctGatherFrequency=gpu=5: 'gpu=5': the types are task, energy, network and filesystem"},
      {"a frequency that is not a number", "JobAcctGatherFrequency=task=soon",
       "gantry.conf:4: JobAcctGatherFrequency=task=soon: 'task=soon': expected a number of seconds from 0 to 86400"},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    auto loaded = parseLines(std::string(row.line) + "\n");
    REQUIRE_FALSE(loaded.ok());
    CHECK_THAT(loaded.error(), Catch::Matchers::Contains(row.message));
  }
}
