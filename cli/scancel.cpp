// gantry scancel: cancel or signal jobs (or single steps) by id or by user.
#include <algorithm>
#include <map>
#include <optional>
#include <sstream>

#include "cli/arg_parsing.h"
#include "cli/help_flags.h"
#include "cli/controller_client.h"
#include "cli/query_options.h"
#include "cli/signal_names.h"
#include "cli/subcommands.h"
#include "common/util/sluid.h"
#include "cli/array_ids.h"

namespace gantry::cli {
namespace {

struct CancelTarget {
  uint64_t job = 0;          // 0 while the job is named by its SLUID
  std::string sluid;         // canonical, when typed as one
  std::string tasks;          // array tasks ("4", "1-3"): "" for the whole job or array
  std::optional<uint32_t> step;
  std::string typed;         // as the user wrote it, for -v
};

bool allDigits(const std::string& text, size_t most) {
  return !text.empty() && text.size() <= most &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "<job>" or "<job>.<step>", the job decimal (with array tasks: "12_4",
// "12_[1-3]") or its SLUID; anything else is no id.
std::optional<CancelTarget> parseCancelTarget(const std::string& id) {
  size_t dot = id.find('.', id.find(']') == std::string::npos ? 0 : id.find(']'));
  std::string job = id.substr(0, dot);
  CancelTarget target;
  target.typed = id;
  if (auto sluid = canonicalSluid(job)) {
    target.sluid = *sluid;
  } else {
    auto parsed = parseJobTarget(job);
    if (!parsed) return std::nullopt;
    target.job = parsed->id;
    target.tasks = parsed->tasks;
  }
  if (dot != std::string::npos) {
    std::string step = id.substr(dot + 1);
    if (!allDigits(step, 9)) return std::nullopt;
    target.step = static_cast<uint32_t>(std::stoul(step));
  }
  return target;
}

// Fills in the job id of every target typed as a SLUID, with one listing
// for all of them. Fails with "Invalid job id <typed>" for the first SLUID
// no job has (or none the caller may see), or with the listing's error.
Status resolveSluids(const ControllerClient& client, std::vector<CancelTarget>& targets) {
  gantry::v1::ListJobsRequest request;
  for (const CancelTarget& target : targets) {
    if (!target.sluid.empty()) request.add_sluids(target.sluid);
  }
  if (request.sluids().empty()) return okStatus();
  auto listed = client.listJobs(request);
  if (!listed) return Error{listed.error()};
  std::map<std::string, uint64_t> ids;
  for (const auto& job : listed->jobs()) ids[job.sluid()] = job.job_id();
  for (CancelTarget& target : targets) {
    if (target.sluid.empty()) continue;
    auto found = ids.find(target.sluid);
    if (found == ids.end()) return Error{"Invalid job id " + target.typed};
    target.job = found->second;
  }
  return okStatus();
}

// "12_4.0": a step of one array task is a step of the task's own job,
// found in one listing of each array named so.
Status resolveTaskSteps(const ControllerClient& client, std::vector<CancelTarget>& targets) {
  for (CancelTarget& target : targets) {
    if (!target.step || target.tasks.empty()) continue;
    gantry::v1::ListJobsRequest request;
    request.add_job_ids(target.job);
    auto listed = client.listJobs(request);
    if (!listed) return Error{listed.error()};
    const JobTarget task{.id = target.job, .tasks = target.tasks};
    std::optional<uint64_t> found;
    for (const auto& job : listed->jobs()) {
      if (job.has_array_task_id() && jobMatches(job, task)) found = job.job_id();
    }
    if (!found || target.tasks.find_first_not_of("0123456789") != std::string::npos) {
      return Error{"Invalid job id " + target.typed};
    }
    target.job = *found;
    target.tasks.clear();
  }
  return okStatus();
}

}  // namespace

int runScancel(const std::vector<std::string>& args) {
  ScancelOptions options;
  CLI::App app{"gantry scancel: cancel or signal jobs", "scancel"};
  declareScancelOptions(app, options);
  auto parsed = parseWords(app, args);
  if (!parsed) return reportError("scancel", parsed.error());
  if (!parsed->usageError.empty()) return reportUsageError("scancel", parsed->usageError);
  if (auto answer = helpAnswer(app, "scancel", *parsed, options.help)) {
    std::cout << *answer;
    return 0;
  }

  std::vector<CancelTarget> targets;
  for (const std::string& word : options.jobIds) {
    for (const std::string& id : splitJobList(word)) {
      auto target = parseCancelTarget(id);
      if (!target) return reportError("scancel", "Invalid job id " + id);
      targets.push_back(std::move(*target));
    }
  }
  if (targets.empty() && options.user.empty()) {
    return reportError("scancel", "no job identification provided: give job ids or -u USER");
  }
  gantry::v1::CancelJobRequest request;
  request.set_user(options.user);
  if (options.batch && options.full) return reportError("scancel", "--batch and --full exclude each other");
  // As Slurm's scancel: -b or -f without -s sends SIGKILL to those processes.
  if (options.signal.empty() && (options.batch || options.full)) options.signal = "KILL";
  request.set_signal_scope(options.batch ? gantry::v1::SIGNAL_SCOPE_BATCH
                           : options.full ? gantry::v1::SIGNAL_SCOPE_FULL
                                  : gantry::v1::SIGNAL_SCOPE_STEPS);
  if (!options.signal.empty()) {
    auto number = parseSignal(options.signal);
    if (!number) return reportError("scancel", "-s/--signal: " + number.error());
    request.set_signal(*number);
  }

  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError("scancel", client.error());
  if (auto resolved = resolveSluids(*client, targets); !resolved) return reportError("scancel", resolved.error());
  if (auto resolved = resolveTaskSteps(*client, targets); !resolved) return reportError("scancel", resolved.error());
  for (const CancelTarget& target : targets) {
    if (!target.tasks.empty()) {
      auto* tasks = request.add_array_tasks();
      tasks->set_array_job_id(target.job);
      tasks->set_tasks(target.tasks);
    } else if (target.step) {
      auto* step = request.add_steps();
      step->set_job_id(target.job);
      step->set_step_id(*target.step);
    } else {
      request.add_job_ids(target.job);
    }
  }
  if (options.verbose > 0) {
    // Slurm's words, said before each request goes out.
    for (const CancelTarget& target : targets) {
      std::string what = (target.step ? "step " : "job ") + target.typed;
      if (request.signal() == 0) std::cerr << "scancel: Terminating " << what << "\n";
      else std::cerr << "scancel: Signal " << request.signal() << " to " << what << "\n";
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
