// The gantry.conf keys of accounting: where records are kept
// (AccountingStorage*), which TRES they count (AccountingStorageTRES) and
// how step usage is sampled (JobAcctGather*). docs/accounting.md.
#include <string>

#include "common/accounting/tracked_tres.h"
#include "common/config/gantry_conf.h"
#include "common/config/gantry_conf_keys.h"
#include "common/config/value_parse.h"

namespace gantry::config {

void setAccountingStorageType(KeyContext& c) {
  using Backend = GantryConf::AccountingStorage::Backend;
  std::string lower = toLower(c.pair.value);
  if (lower.rfind("accounting_storage/", 0) != 0) lower = "accounting_storage/" + lower;
  Backend backend;
  if (lower == "accounting_storage/none") {
    backend = Backend::None;
  } else if (lower == "accounting_storage/sqlite" || lower == "accounting_storage/slurmdbd") {
    backend = Backend::Sqlite;
  } else if (lower == "accounting_storage/postgresql") {
    backend = Backend::Postgresql;
  } else {
    c.error(
        "must be one of accounting_storage/none, accounting_storage/sqlite, accounting_storage/postgresql or "
        "accounting_storage/slurmdbd (kept in Gantry's own SQLite store)");
    return;
  }
  c.conf.accountingStorageType = lower;
  c.conf.accounting.backend = backend;
}

void setAccountingStorageTres(KeyContext& c) {
  auto list = splitList(c.pair.value);
  auto tracked = accounting::trackedTresFrom(list);
  if (!tracked) {
    // The rule's own text names the entry; drop its key prefix, which
    // error() writes already.
    std::string why = tracked.error();
    const std::string prefix = "AccountingStorageTRES: ";
    if (why.rfind(prefix, 0) == 0) why = why.substr(prefix.size());
    c.error(why);
    return;
  }
  c.conf.accountingStorageTres = std::move(list);
}

void setAccountingStoragePort(KeyContext& c) {
  auto value = parseUint(c.pair.value, 65535);
  if (!value || value.value() == 0) {
    c.error("expected a port from 1 to 65535");
    return;
  }
  c.conf.accounting.port = static_cast<int>(value.value());
}

void setJobAcctGatherType(KeyContext& c) {
  std::string lower = toLower(c.pair.value);
  if (lower.rfind("jobacct_gather/", 0) != 0) lower = "jobacct_gather/" + lower;
  if (lower != "jobacct_gather/none" && lower != "jobacct_gather/linux" && lower != "jobacct_gather/cgroup") {
    c.error("must be one of jobacct_gather/none, jobacct_gather/linux or jobacct_gather/cgroup");
    return;
  }
  c.conf.jobAcctGatherType = lower;
}

// "30", or a list of TYPE=N of which task=N is the sampling interval;
// energy, network and filesystem intervals are accepted and not used.
void setJobAcctGatherFrequency(KeyContext& c) {
  int taskSec = 30;
  for (const auto& item : splitList(c.pair.value)) {
    auto eq = item.find('=');
    std::string type = eq == std::string::npos ? "task" : toLower(item.substr(0, eq));
    std::string number = eq == std::string::npos ? item : item.substr(eq + 1);
    if (type != "task" && type != "energy" && type != "network" && type != "filesystem") {
      c.error("'" + item + "': the types are task, energy, network and filesystem");
      return;
    }
    auto seconds = parseUint(number, 86400);
    if (!seconds) {
      c.error("'" + item + "': expected a number of seconds from 0 to 86400");
      return;
    }
    if (type == "task") taskSec = static_cast<int>(seconds.value());
  }
  c.conf.jobAcctGatherFrequency = c.pair.value;
  c.conf.jobAcctGatherTaskSec = taskSec;
}

}  // namespace gantry::config
