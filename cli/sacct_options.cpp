#include "cli/sacct_options.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "cli/sacct_time.h"

namespace gantry::cli {
namespace {

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::vector<std::string> commaItems(const std::vector<std::string>& values) {
  std::vector<std::string> items;
  for (const std::string& value : values) {
    std::stringstream in(value);
    std::string item;
    while (std::getline(in, item, ',')) {
      if (!item.empty()) items.push_back(item);
    }
  }
  return items;
}

bool allDigits(const std::string& text) {
  return !text.empty() && text.size() <= 19 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "N", "N_T" (task T of array N) or either with ".S", S a number, batch,
// extern or interactive.
Result<v1::AccountingJobSelector> jobSelector(const std::string& text) {
  v1::AccountingJobSelector selector;
  size_t dot = text.find('.');
  std::string job = text.substr(0, dot);
  Error invalid{"-j/--jobs: invalid job id '" + text +
                "' (N, N_TASK, N.STEP or N_TASK.STEP, STEP a number, batch, extern or interactive)"};
  if (size_t underscore = job.find('_'); underscore != std::string::npos) {
    std::string task = job.substr(underscore + 1);
    if (!allDigits(task) || task.size() > 7 || std::stoul(task) >= 4000001) return invalid;
    selector.set_has_array_task(true);
    selector.set_array_task_id(static_cast<uint32_t>(std::stoul(task)));
    job.resize(underscore);
  }
  if (!allDigits(job) || std::stoull(job) == 0) return invalid;
  selector.set_job_id(std::stoull(job));
  if (dot == std::string::npos) return selector;
  std::string step = text.substr(dot + 1);
  if (step != "batch" && step != "extern" && step != "interactive" && !(allDigits(step) && step.size() <= 10)) {
    return invalid;
  }
  selector.set_has_step(true);
  selector.set_step_id(step);
  return selector;
}

Status setUsers(const SacctOptions& options, uint32_t callerUid, const UserResolver& resolveUser,
                v1::ListAccountingJobsRequest& request) {
  std::vector<std::string> users = commaItems(options.users);
  if (options.allUsers) return okStatus();
  if (!users.empty()) {
    for (const std::string& user : users) {
      auto uid = resolveUser(user);
      if (!uid) return Error{"-u/--user: invalid user '" + user + "'"};
      request.add_uids(*uid);
    }
    return okStatus();
  }
  // Slurm: asking for jobs or nodes means every user's; so does being root.
  if (request.ids_size() > 0 || !options.nodeList.empty() || callerUid == 0) return okStatus();
  request.add_uids(callerUid);
  return okStatus();
}

Status setWindow(const SacctOptions& options, int64_t now, v1::ListAccountingJobsRequest& request) {
  std::optional<int64_t> start, end;
  if (!options.startTime.empty()) {
    auto parsed = parseSacctTime(options.startTime, now);
    if (!parsed) return Error{"-S/--starttime: " + parsed.error()};
    start = *parsed;
  }
  if (!options.endTime.empty()) {
    auto parsed = parseSacctTime(options.endTime, now);
    if (!parsed) return Error{"-E/--endtime: " + parsed.error()};
    end = *parsed;
  }
  bool byJob = request.ids_size() > 0;
  if (request.states_size() > 0) {
    // -s asks what was in those states during the window: by default the
    // instant now, or with -j the whole past.
    bool fromEpoch = !start && byJob;
    if (!start) start = byJob ? 0 : now;
    if (!end) end = fromEpoch ? now : *start;
  } else if (!byJob) {
    if (!start) start = startOfDay(now);
    if (!end) end = now;
  } else {
    if (!start && !end) return okStatus();
    if (!start) start = 0;
    if (!end) end = now;
  }
  if (*start > *end) {
    return Error{"the start time (" + std::to_string(*start) + ", -S) is after the end time (" +
                 std::to_string(*end) + ", -E)"};
  }
  request.mutable_window()->set_start(*start);
  request.mutable_window()->set_end(*end);
  return okStatus();
}

}  // namespace

std::optional<std::string> sacctStateName(const std::string& word) {
  static const std::vector<std::pair<std::string, std::string>> kStates = {
      {"BF", "BOOT_FAIL"}, {"CA", "CANCELLED"},  {"CD", "COMPLETED"},  {"DL", "DEADLINE"},
      {"F", "FAILED"},     {"NF", "NODE_FAIL"},  {"OOM", "OUT_OF_MEMORY"}, {"PD", "PENDING"},
      {"PR", "PREEMPTED"}, {"R", "RUNNING"},     {"RQ", "REQUEUED"},   {"RS", "RESIZING"},
      {"RV", "REVOKED"},   {"S", "SUSPENDED"},   {"TO", "TIMEOUT"}};
  std::string wanted = upper(word);
  for (const auto& [shortName, longName] : kStates) {
    if (wanted == shortName || wanted == longName) return longName;
  }
  return std::nullopt;
}

void addSacctOptions(CLI::App& app, SacctOptions& options) {
  declareHelpFlags(app, options.helpRequest, "-h,--help");
  app.add_option("-j,--jobs", options.jobs, "comma-separated job or job.step ids")->take_all();
  app.add_option("-u,--user,--uid", options.users, "comma-separated user names or uids")->take_all();
  app.add_flag("-a,--allusers", options.allUsers, "every user's jobs");
  app.add_option("-A,--accounts", options.accounts, "comma-separated accounts")->take_all();
  app.add_option("-S,--starttime", options.startTime, "window start (HH:MM[:SS], YYYY-MM-DD[THH:MM[:SS]], now-1days, ...)");
  app.add_option("-E,--endtime", options.endTime, "window end (same forms as -S)");
  app.add_option("-s,--state", options.states, "comma-separated states (PD, R, CD, CA, F, TO, ... or long names)")
      ->take_all();
  app.add_flag("-X,--allocations", options.allocations, "jobs only, not their steps");
  app.add_option("-N,--nodelist", options.nodeList, "jobs that ran on any of these nodes (hostlist)");
  app.add_option("-o,--format", options.formats, "comma-separated fields, each Name[%WIDTH] (see --helpformat)")
      ->take_all();
  app.add_flag("-p,--parsable", options.parsable, "'|' after every field");
  app.add_flag("-P,--parsable2", options.parsable2, "'|' between fields");
  app.add_flag("-n,--noheader", options.noHeader, "no header line");
  app.add_option("--units", options.units, "print memory in K, M, G, T or P");
  app.add_flag("--json", options.json, "print JSON");
  app.add_flag("-L,--allclusters", options.allClusters, "every cluster's jobs");
  app.add_option("-M,--clusters", options.clusters, "comma-separated clusters, or all")->take_all();
  app.add_flag("-e,--helpformat", options.helpFormat, "list the fields --format knows");
  app.add_option("--conf-dir", options.confDir, "configuration directory (GANTRY_CONF_DIR, /etc/gantry)");
}

Result<SacctPlan> planSacct(const SacctOptions& options, int64_t now, uint32_t callerUid,
                            const UserResolver& resolveUser) {
  SacctPlan plan;
  auto& request = plan.request;
  for (const std::string& id : commaItems(options.jobs)) {
    auto selector = jobSelector(id);
    if (!selector) return selector.failure();
    *request.add_ids() = std::move(*selector);
  }
  for (const std::string& word : commaItems(options.states)) {
    auto state = sacctStateName(word);
    if (!state) return Error{"-s/--state: invalid job state '" + word + "'"};
    request.add_states(*state);
  }
  for (const std::string& account : commaItems(options.accounts)) request.add_accounts(account);
  if (Status users = setUsers(options, callerUid, resolveUser, request); !users) return users.failure();
  if (Status window = setWindow(options, now, request); !window) return window.failure();
  request.set_allocations_only(options.allocations);
  request.set_node_list(options.nodeList);
  std::vector<std::string> clusters = commaItems(options.clusters);
  bool allClusters = options.allClusters ||
                     std::any_of(clusters.begin(), clusters.end(), [](const std::string& c) { return upper(c) == "ALL"; });
  request.set_all_clusters(allClusters);
  if (!allClusters) {
    for (const std::string& cluster : clusters) request.add_clusters(cluster);
  }
  if (!options.units.empty()) {
    std::string unit = upper(options.units);
    if (unit.size() != 1 || std::string("KMGTP").find(unit[0]) == std::string::npos) {
      return Error{"--units: invalid unit '" + options.units + "' (K, M, G, T or P)"};
    }
    plan.units = unit[0];
  }
  if (options.formats.empty()) {
    plan.fields = defaultSacctFields();
  } else {
    auto fields = parseSacctFields(options.formats);
    if (!fields) return fields.failure();
    plan.fields = std::move(*fields);
  }
  plan.style.header = !options.noHeader;
  plan.style.parsable = options.parsable2 ? Parsable::NoTrailing : options.parsable ? Parsable::Trailing : Parsable::No;
  plan.json = options.json;
  return plan;
}

}  // namespace gantry::cli
