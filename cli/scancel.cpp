// gantry scancel: cancel or signal jobs by id or by user.
#include "cli/arg_parsing.h"
#include "cli/help_flags.h"
#include "cli/controller_client.h"
#include "cli/signal_names.h"
#include "cli/subcommands.h"

namespace gantry::cli {

int runScancel(const std::vector<std::string>& args) {
  std::vector<std::string> jobIds;
  std::string user, signal, confDir;
  bool batch = false, full = false;
  CLI::App app{"gantry scancel: cancel or signal jobs", "scancel"};
  HelpRequest helpRequest;
  declareHelpFlags(app, helpRequest);
  app.add_option("jobid", jobIds, "job ids");
  app.add_option("-u,--user", user, "cancel every job of this user")->type_name("user_name");
  app.add_option("-s,--signal", signal, "send this signal instead of cancelling")->type_name("name|number");
  app.add_flag("-b,--batch", batch, "signal only the batch shell, not its children nor the other steps");
  app.add_flag("-f,--full", full, "signal every step, the batch shell and its children included");
  addConfDirOption(app, confDir);
  auto parsed = parseWords(app, args);
  if (!parsed) return reportError("scancel", parsed.error());
  if (!parsed->usageError.empty()) return reportUsageError("scancel", parsed->usageError);
  if (auto answer = helpAnswer(app, "scancel", *parsed, helpRequest)) {
    std::cout << *answer;
    return 0;
  }

  gantry::v1::CancelJobRequest request;
  for (const std::string& id : jobIds) {
    try {
      size_t used = 0;
      unsigned long long value = std::stoull(id, &used);
      if (used != id.size() || id.front() == '-') throw std::invalid_argument(id);
      request.add_job_ids(value);
    } catch (const std::exception&) {
      return reportError("scancel", "Invalid job id " + id);
    }
  }
  if (request.job_ids().empty() && user.empty()) {
    return reportError("scancel", "no job identification provided: give job ids or -u USER");
  }
  request.set_user(user);
  if (batch && full) return reportError("scancel", "--batch and --full exclude each other");
  // As Slurm's scancel: -b or -f without -s sends SIGKILL to those processes.
  if (signal.empty() && (batch || full)) signal = "KILL";
  request.set_signal_scope(batch  ? gantry::v1::SIGNAL_SCOPE_BATCH
                           : full ? gantry::v1::SIGNAL_SCOPE_FULL
                                  : gantry::v1::SIGNAL_SCOPE_STEPS);
  if (!signal.empty()) {
    auto number = parseSignal(signal);
    if (!number) return reportError("scancel", "-s/--signal: " + number.error());
    request.set_signal(*number);
  }

  auto client = ControllerClient::connect(confDir);
  if (!client) return reportError("scancel", client.error());
  auto response = client->call<gantry::v1::CancelJobResponse>(
      [&](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.CancelJob(context, request, out);
      });
  if (!response) return reportError("scancel", response.error());
  for (const std::string& error : response->errors()) reportError("scancel", error);
  return response->errors().empty() ? 0 : 1;
}

}  // namespace gantry::cli
