// gantry sacct: job and step records from the accounting store, in
// sacct's columns, parsable or as JSON.
#include <pwd.h>
#include <unistd.h>

#include <cstdint>
#include <ctime>

#include "cli/arg_parsing.h"
#include "cli/controller_client.h"
#include "cli/group_name.h"
#include "cli/help_flags.h"
#include "cli/json_render.h"
#include "cli/sacct_fields.h"
#include "cli/sacct_options.h"
#include "cli/subcommands.h"

namespace gantry::cli {
namespace {

std::optional<uint32_t> uidOf(const std::string& user) {
  if (!user.empty() && user.find_first_not_of("0123456789") == std::string::npos && user.size() <= 10) {
    unsigned long long value = std::stoull(user);
    if (value <= UINT32_MAX) return static_cast<uint32_t>(value);
    return std::nullopt;
  }
  if (passwd* entry = getpwnam(user.c_str())) return entry->pw_uid;
  return std::nullopt;
}

}  // namespace

// Answers the controller's refusal for accounting that is off with its own
// plain line, as Slurm's commands do.
int reportAccountingError(const std::string& command, const Error& error) {
  if (error.code == ErrorCode::NotNow) {
    std::cerr << error.message << "\n";
    return 1;
  }
  return reportError(command, error.message);
}

int runSacct(const std::vector<std::string>& args) {
  SacctOptions options;
  CLI::App app{"gantry sacct: job and step accounting records", "sacct"};
  addSacctOptions(app, options);
  auto parsed = parseWords(app, args);
  if (!parsed) return reportError("sacct", parsed.error());
  if (!parsed->usageError.empty()) return reportUsageError("sacct", parsed->usageError);
  if (auto answer = helpAnswer(app, "sacct", *parsed, options.helpRequest)) {
    std::cout << *answer;
    return 0;
  }
  if (options.helpFormat) {
    std::cout << sacctHelpFormat();
    return 0;
  }
  auto now = static_cast<int64_t>(std::time(nullptr));
  auto plan = planSacct(options, now, getuid(), uidOf);
  if (!plan) return reportError("sacct", plan.error());

  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError("sacct", client.error());
  auto response = client->call<v1::ListAccountingJobsResponse>([&](auto& stub, grpc::ClientContext* context, auto* out) {
    return stub.ListAccountingJobs(context, plan->request, out);
  });
  if (!response) return reportAccountingError("sacct", response.failure());
  std::vector<v1::AccountingJob> jobs(response->jobs().begin(), response->jobs().end());
  fillGroupNames(jobs, groupName);
  if (plan->json) {
    std::cout << dumpJson(listToJson("jobs", jobs));
    return 0;
  }
  std::cout << renderSacct(plan->fields, jobs, plan->style, SacctCellContext{.now = now, .units = plan->units});
  return 0;
}

}  // namespace gantry::cli
