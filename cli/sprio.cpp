// gantry sprio: pending jobs' priorities and the weighted factors they are
// made of (priority/multifactor), in Slurm's columns.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "cli/array_ids.h"
#include "cli/controller_client.h"
#include "cli/format_sprio.h"
#include "cli/help_flags.h"
#include "cli/query_options.h"
#include "cli/subcommands.h"
#include "common/auth/identity.h"

namespace gantry::cli {
namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::set<std::string> commaSet(const std::string& text) {
  std::set<std::string> out;
  for (const std::string& part : splitJobList(text)) out.insert(part);
  return out;
}

struct PrioritySettings {
  std::string type = "priority/basic";
  PriorityWeightsShown weights;
};

Result<PrioritySettings> prioritySettings(const ControllerClient& client) {
  auto response = client.call<gantry::v1::GetConfigResponse>([](auto& stub, grpc::ClientContext* context, auto* out) {
    return stub.GetConfig(context, gantry::v1::GetConfigRequest{}, out);
  });
  if (!response) return Error{response.failure()};
  PrioritySettings settings;
  for (const auto& entry : response->entries()) {
    std::string key = lower(entry.key());
    auto number = [&entry]() -> uint64_t {
      try {
        return std::stoull(entry.value());
      } catch (const std::exception&) {
        return 0;
      }
    };
    if (key == "prioritytype") {
      settings.type = lower(entry.value());
      if (settings.type.find('/') == std::string::npos) settings.type = "priority/" + settings.type;
    }
    if (key == "priorityweightage") settings.weights.age = number();
    if (key == "priorityweightfairshare") settings.weights.fairshare = number();
    if (key == "priorityweightjobsize") settings.weights.jobSize = number();
    if (key == "priorityweightpartition") settings.weights.partition = number();
    if (key == "priorityweightqos") settings.weights.qos = number();
  }
  return settings;
}

}  // namespace

int runSprio(const std::vector<std::string>& args) {
  SprioOptions options;
  CLI::App app{"gantry sprio: the factors of pending jobs' priorities", "sprio"};
  declareSprioOptions(app, options);
  auto parsed = parseWords(app, args);
  if (!parsed) return reportError("sprio", parsed.error());
  if (!parsed->usageError.empty()) return reportUsageError("sprio", parsed->usageError);
  if (auto answer = helpAnswer(app, "sprio", *parsed, options.help)) {
    std::cout << *answer;
    return 0;
  }
  std::vector<JobTarget> targets;
  for (const std::string& id : splitJobList(options.jobs)) {
    auto target = parseJobTarget(id);
    if (!target) return reportError("sprio", target.error());
    targets.push_back(*target);
  }
  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError("sprio", client.error());
  auto settings = prioritySettings(*client);
  if (!settings) return reportError("sprio", settings.error());
  if (settings->type != "priority/multifactor") {
    // Slurm's answer under priority/basic.
    std::cerr << "You are not running a supported priority plugin\n(" << settings->type
              << ").\nOnly 'priority/multifactor' is supported.\n";
    return 1;
  }
  LineFormat format = defaultSprioFormat(settings->weights, options.normalized, !options.users.empty(),
                                         options.longList);
  if (!options.format.empty()) {
    auto custom = parseSprioFormat(options.format);
    if (!custom) return reportError("sprio", custom.error());
    format = *custom;
  }
  if (options.weights) {
    std::cout << renderSprioWeights(format, settings->weights, !options.noHeader);
    return 0;
  }
  gantry::v1::ListJobsRequest request;
  request.set_include_priority(true);
  request.add_states(gantry::v1::PENDING);
  for (const JobTarget& target : targets) request.add_job_ids(target.id);
  std::set<std::string> users = commaSet(options.users);
  std::set<std::string> partitions = commaSet(options.partitions);
  if (users.size() == 1) request.set_user(*users.begin());
  auto response = client->listJobs(request);
  if (!response) return reportError("sprio", response.error());
  std::vector<gantry::v1::Job> jobs;
  for (const auto& job : response->jobs()) {
    // Held jobs have no priority to explain, as in Slurm.
    if (job.state() != gantry::v1::PENDING || !job.has_priority_factors()) continue;
    if (!users.empty() && users.count(job.user()) == 0) continue;
    if (!partitions.empty() && partitions.count(job.spec().partition()) == 0) continue;
    if (!targets.empty() && std::none_of(targets.begin(), targets.end(),
                                         [&](const JobTarget& t) { return jobMatches(job, t); })) {
      continue;
    }
    jobs.push_back(job);
  }
  if (!targets.empty() && jobs.empty()) {
    std::cerr << "Unable to find jobs matching user/id(s) specified\n";
    return 1;
  }
  std::cout << renderSprio(format, jobs, !options.noHeader);
  return 0;
}

}  // namespace gantry::cli
