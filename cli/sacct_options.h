// sacct's options and the query they make, apart from the controller call,
// so the defaults are unit tested with a fixed "now":
//
// - Users: -u (names or uids) or -a; with neither, root and a query by -j
//   or -N see every user, anyone else their own jobs (the controller then
//   applies PrivateData=jobs).
// - Window (Slurm's rules): with -s, -S defaults to now and -E to -S (with
//   -j: from the epoch to now); without -s and -j, -S defaults to 00:00
//   today and -E to now; with -j alone there is no window unless -S or -E
//   is given.
// - Clusters: -M list (or "all"), -L every cluster; default the
//   controller's own.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/accounting_table.h"
#include "cli/help_flags.h"
#include "cli/sacct_fields.h"
#include "common/util/result.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::cli {

struct SacctOptions {
  std::vector<std::string> jobs, users, accounts, states, formats, clusters;
  std::string startTime, endTime, nodeList, units, confDir;
  bool allUsers = false, allocations = false, parsable = false, parsable2 = false, noHeader = false,
       json = false, allClusters = false, helpFormat = false;
  HelpRequest helpRequest;  // --usage and -V/--version
};

// Registers every option on `app` (help is -h/--help).
void addSacctOptions(CLI::App& app, SacctOptions& options);

struct SacctPlan {
  v1::ListAccountingJobsRequest request;
  std::vector<SacctField> fields;
  TableStyle style;
  std::optional<char> units;
  bool json = false;
};

// A user name or uid as text -> uid; nullopt for an unknown name.
using UserResolver = std::function<std::optional<uint32_t>(const std::string&)>;

// Invalid, naming the option and the value, for a bad job id, state, time,
// unit, user, field or a window whose start is after its end.
Result<SacctPlan> planSacct(const SacctOptions& options, int64_t now, uint32_t callerUid,
                            const UserResolver& resolveUser);

// "PD" or "pending" -> "PENDING"; nullopt for a word that is no job state.
std::optional<std::string> sacctStateName(const std::string& word);

}  // namespace gantry::cli
