// gantry scancel: cancel or signal jobs (or single steps) by id or by user.
#include <algorithm>
#include <optional>
#include <sstream>

#include "cli/arg_parsing.h"
#include "cli/help_flags.h"
#include "cli/controller_client.h"
#include "cli/signal_names.h"
#include "cli/subcommands.h"

namespace gantry::cli {
namespace {

struct CancelTarget {
  uint64_t job = 0;
  std::optional<uint32_t> step;
};

bool allDigits(const std::string& text, size_t most) {
  return !text.empty() && text.size() <= most &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "<job>" or "<job>.<step>", decimal; anything else is no id.
std::optional<CancelTarget> parseCancelTarget(const std::string& id) {
  size_t dot = id.find('.');
  std::string job = id.substr(0, dot);
  if (!allDigits(job, 19)) return std::nullopt;
  CancelTarget target{.job = std::stoull(job), .step = std::nullopt};
  if (target.job == 0) return std::nullopt;
  if (dot != std::string::npos) {
    std::string step = id.substr(dot + 1);
    if (!allDigits(step, 9)) return std::nullopt;
    target.step = static_cast<uint32_t>(std::stoul(step));
  }
  return target;
}

}  // namespace

int runScancel(const std::vector<std::string>& args) {
  std::vector<std::string> jobIds;
  std::string user, signal, confDir;
  bool batch = false, full = false;
  int verbose = 0;
  CLI::App app{"gantry scancel: cancel or signal jobs", "scancel"};
  HelpRequest helpRequest;
  declareHelpFlags(app, helpRequest);
  app.add_option("jobid", jobIds, "job ids or <job>.<step>, several in one word with commas");
  app.add_option("-u,--user", user, "cancel every job of this user")->type_name("user_name");
  app.add_option("-s,--signal", signal, "send this signal instead of cancelling")->type_name("name|number");
  app.add_flag("-b,--batch", batch, "signal only the batch shell, not its children nor the other steps");
  app.add_flag("-f,--full", full, "signal every step, the batch shell and its children included");
  app.add_flag("-v,--verbose", verbose, "say what is sent to each job and step");
  addConfDirOption(app, confDir);
  auto parsed = parseWords(app, args);
  if (!parsed) return reportError("scancel", parsed.error());
  if (!parsed->usageError.empty()) return reportUsageError("scancel", parsed->usageError);
  if (auto answer = helpAnswer(app, "scancel", *parsed, helpRequest)) {
    std::cout << *answer;
    return 0;
  }

  gantry::v1::CancelJobRequest request;
  std::vector<std::string> targets;  // "job N" / "step N.M", for -v
  for (const std::string& word : jobIds) {
    std::stringstream parts(word);
    std::string id;
    while (std::getline(parts, id, ',')) {
      auto target = parseCancelTarget(id);
      if (!target) return reportError("scancel", "Invalid job id " + id);
      if (target->step) {
        auto* step = request.add_steps();
        step->set_job_id(target->job);
        step->set_step_id(*target->step);
        targets.push_back("step " + id);
      } else {
        request.add_job_ids(target->job);
        targets.push_back("job " + id);
      }
    }
  }
  if (request.job_ids().empty() && request.steps().empty() && user.empty()) {
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
  if (verbose > 0) {
    // Slurm's words, said before each request goes out.
    for (const std::string& target : targets) {
      if (request.signal() == 0) std::cerr << "scancel: Terminating " << target << "\n";
      else std::cerr << "scancel: Signal " << request.signal() << " to " << target << "\n";
    }
  }
  auto response = client->call<gantry::v1::CancelJobResponse>(
      [&](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.CancelJob(context, request, out);
      });
  if (!response) return reportError("scancel", response.error());
  for (const std::string& error : response->errors()) reportError("scancel", error);
  return response->errors().empty() ? 0 : 1;
}

}  // namespace gantry::cli
