// gantry squeue: list jobs in Slurm's columns or as JSON.
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <ctime>
#include <set>
#include <sstream>

#include "cli/arg_parsing.h"
#include "cli/array_ids.h"
#include "cli/help_flags.h"
#include "cli/controller_client.h"
#include "cli/format_squeue.h"
#include "cli/format_steps.h"
#include "cli/job_fields.h"
#include "cli/job_steps.h"
#include "cli/json_meta.h"
#include "cli/json_render.h"
#include "cli/query_options.h"
#include "cli/subcommands.h"
#include "cli/time_format.h"
#include "common/hostlist/hostlist.h"

namespace gantry::cli {
namespace {

// What narrows the listing on this side of the call, besides the
// controller's own filters (ids, states, one user).
struct JobFilter {
  std::set<std::string> users, partitions, names, accounts, nodes;
  std::vector<JobTarget> tasks;  // -j 12_4: array tasks (the ids alone go to the controller)
};

std::vector<std::string> splitCommas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

bool isActive(gantry::v1::JobState state) {
  return state == gantry::v1::PENDING || state == gantry::v1::CONFIGURING ||
         state == gantry::v1::RUNNING || state == gantry::v1::SUSPENDED ||
         state == gantry::v1::COMPLETING;
}

// With -s the controller is asked for the steps of running (and suspended,
// whose steps stay) jobs; the step list's jobs narrow the query when -j
// does not.
Result<gantry::v1::ListJobsRequest> buildStepQuery(const SqueueOptions& options,
                                                   const std::vector<StepSelector>& steps,
                                                   gantry::v1::ListJobsRequest request) {
  if (!options.states.empty()) return Error{"-t/--states cannot be combined with -s/--steps"};
  request.set_include_steps(true);
  request.add_states(gantry::v1::RUNNING);
  request.add_states(gantry::v1::SUSPENDED);
  if (request.job_ids().empty()) {
    std::set<uint64_t> ids;
    for (const StepSelector& step : steps) ids.insert(step.jobId);
    for (uint64_t id : ids) request.add_job_ids(id);
  }
  return request;
}

Result<gantry::v1::ListJobsRequest> buildQuery(const SqueueOptions& options,
                                               const std::vector<StepSelector>& steps) {
  gantry::v1::ListJobsRequest request;
  // An array's id lists every record of the array; "12_4" is narrowed
  // to the task on this side (buildFilter).
  for (const std::string& id : splitJobList(options.jobs)) {
    auto target = parseJobTarget(id);
    if (!target) return Error{target.failure()};
    request.add_job_ids(target->id);
  }
  for (const std::string& word : splitCommas(options.states)) {
    if (word == "all" || word == "ALL") {
      request.set_include_finished(true);
      continue;
    }
    auto state = parseJobState(word);
    if (!state) return Error{"-t/--states: invalid job state '" + word + "'"};
    request.add_states(*state);
    if (!isActive(*state)) request.set_include_finished(true);
  }
  std::vector<std::string> users = splitCommas(options.users);
  if (users.size() == 1) request.set_user(users.front());
  if (options.showSteps) return buildStepQuery(options, steps, std::move(request));
  return request;
}

std::set<std::string> commaSet(const std::string& text) {
  std::vector<std::string> parts = splitCommas(text);
  return {parts.begin(), parts.end()};
}

// -w/--nodelist: a host list; Slurm lists the jobs that hold any of them.
Result<JobFilter> buildFilter(const SqueueOptions& options) {
  JobFilter filter{.users = commaSet(options.users),
                   .partitions = commaSet(options.partitions),
                   .names = commaSet(options.names),
                   .accounts = commaSet(options.accounts),
                   .nodes = {}};
  if (!options.nodes.empty()) {
    auto names = hostlist::expand(options.nodes);
    if (!names) return Error{"-w/--nodelist: " + names.error()};
    filter.nodes.insert(names->begin(), names->end());
  }
  std::vector<JobTarget> targets;
  for (const std::string& id : splitJobList(options.jobs)) {
    auto target = parseJobTarget(id);
    if (!target) return Error{target.failure()};
    targets.push_back(*target);
  }
  // Only when some names tasks: then each record must match one target.
  if (std::any_of(targets.begin(), targets.end(), [](const JobTarget& t) { return !t.tasks.empty(); })) {
    filter.tasks = std::move(targets);
  }
  return filter;
}

bool holdsAnyOf(const gantry::v1::Job& job, const std::set<std::string>& nodes) {
  if (job.node_list().empty()) return false;
  auto held = hostlist::expand(job.node_list());
  if (!held) return false;
  return std::any_of(held->begin(), held->end(), [&](const std::string& node) { return nodes.count(node) > 0; });
}

bool wanted(const gantry::v1::Job& job, const JobFilter& filter) {
  if (!filter.users.empty() && !filter.users.count(job.user())) return false;
  if (!filter.partitions.empty() && !filter.partitions.count(job.spec().partition())) return false;
  if (!filter.names.empty() && !filter.names.count(job.spec().name())) return false;
  if (!filter.accounts.empty() && !filter.accounts.count(job.spec().account())) return false;
  if (!filter.nodes.empty() && !holdsAnyOf(job, filter.nodes)) return false;
  if (!filter.tasks.empty() &&
      std::none_of(filter.tasks.begin(), filter.tasks.end(), [&](const JobTarget& t) { return jobMatches(job, t); })) {
    return false;
  }
  return true;
}

// The columns asked for: -o, -O or the default of the view (jobs or steps).
Result<LineFormat> chooseFormat(const SqueueOptions& options) {
  if (!options.format.empty() && !options.longFormat.empty()) {
    return Error{"-o/--format and -O/--Format cannot be combined"};
  }
  if (!options.format.empty()) {
    return options.showSteps ? parseStepFormat(options.format) : parseSqueueFormat(options.format);
  }
  if (!options.longFormat.empty()) {
    return options.showSteps ? parseStepFieldList(options.longFormat)
                             : parseSqueueFieldList(options.longFormat);
  }
  if (options.showSteps) return defaultStepFormat();
  // As in Slurm, --start's columns win over -l's.
  if (options.start) return startSqueueFormat();
  return options.longList ? longSqueueFormat() : defaultSqueueFormat();
}

// Slurm's date line above a long listing: "Thu Dec 03 12:34:56 2026".
}  // namespace

int runSqueue(const std::vector<std::string>& args) {
  SqueueOptions options;
  CLI::App app{"gantry squeue: list jobs", "squeue"};
  declareSqueueOptions(app, options);
  auto parsed = parseWords(app, args);
  if (!parsed) return reportError("squeue", parsed.error());
  if (!parsed->usageError.empty()) return reportUsageError("squeue", parsed->usageError);
  if (auto answer = helpAnswer(app, "squeue", *parsed, options.help)) {
    std::cout << *answer;
    return 0;
  }

  options.showSteps = options.steps->count() > 0;
  if (options.me) {
    if (!options.users.empty()) return reportError("squeue", "--me and -u/--user cannot be combined");
    options.users = auth::userName(getuid());
  }

  // --start lists pending jobs unless -t names states.
  if (options.start && !options.showSteps && options.states.empty()) options.states = "PD";
  auto format = chooseFormat(options);
  if (!format) return reportError("squeue", format.error());
  auto filter = buildFilter(options);
  if (!filter) return reportError("squeue", filter.error());
  auto stepList = parseStepList(options.stepList, "-s/--steps");
  if (!stepList) return reportError("squeue", stepList.error());
  auto request = buildQuery(options, *stepList);
  if (!request) return reportError("squeue", request.error());
  if (!options.showSteps && (options.json || squeueFormatNeedsTres(*format))) request->set_include_tres(true);

  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError("squeue", client.error());
  auto response = client->listJobs(*request);
  if (!response) return reportError("squeue", response.error());

  std::vector<gantry::v1::Job> listed(response->jobs().begin(), response->jobs().end());
  // -r: one line per pending task of an array (the filter then sees each task).
  if (options.arrays && !options.showSteps) listed = expandArrayRecords(listed);
  std::vector<gantry::v1::Job> jobs;
  for (const auto& job : listed) {
    if (wanted(job, *filter)) jobs.push_back(job);
  }
  if (options.start) {
    // Planned starts first, earliest first; jobs without one after them.
    auto startOf = [](const gantry::v1::Job& job) {
      int64_t start = job.state() == gantry::v1::PENDING ? job.planned_start() : job.start_time();
      return start > 0 ? start : INT64_MAX;
    };
    std::stable_sort(jobs.begin(), jobs.end(), [&](const auto& a, const auto& b) { return startOf(a) < startOf(b); });
  }
  auto now = static_cast<int64_t>(std::time(nullptr));
  if (options.longList && !options.noHeader && !options.json) std::cout << longListingDateLine(now);
  if (options.showSteps) {
    // Slurm's squeue lists running steps only.
    auto rows = selectSteps(jobs, StepSelection{.only = *stepList, .runningOnly = true});
    if (options.json) {
      std::cout << dumpJson(withEnvelope(stepsToJson(rows), localJsonMeta("squeue", args, *client)));
      return 0;
    }
    std::cout << renderSteps(*format, rows,
                             StepRenderOptions{.header = !options.noHeader, .now = now});
    return 0;
  }
  if (options.json) {
    std::cout << dumpJson(withEnvelope(listToJson("jobs", jobs), localJsonMeta("squeue", args, *client)));
    return 0;
  }
  std::cout << renderSqueue(*format, jobs,
                            SqueueRenderOptions{.header = !options.noHeader, .now = now});
  return 0;
}

}  // namespace gantry::cli
