// gantry scontrol: show jobs, nodes, partitions, config and host lists;
// update nodes and drain devices; suspend, resume, hold and release jobs; reconfigure.

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <cstdlib>
#include <ctime>

#include "cli/arg_parsing.h"
#include "cli/help_flags.h"
#include "cli/scontrol_help.h"
#include "cli/controller_client.h"
#include "cli/group_name.h"
#include "cli/job_steps.h"
#include "cli/json_render.h"
#include "cli/scontrol_hostlist.h"
#include "cli/scontrol_render.h"
#include "cli/scontrol_tres.h"
#include "cli/scontrol_update.h"
#include "cli/subcommands.h"
#include "common/hostlist/hostlist.h"

namespace gantry::cli {
namespace {

constexpr const char* kCommand = "scontrol";

struct ScontrolOptions {
  std::vector<std::string> words;
  bool details = false;
  bool json = false;
  std::string confDir;
};

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

RenderOptions renderOptions(const ScontrolOptions& options) {
  return RenderOptions{.details = options.details,
                       .now = static_cast<int64_t>(std::time(nullptr)),
                       .groupName = groupName};
}

Result<uint64_t> parseJobId(const std::string& text) {
  try {
    size_t used = 0;
    unsigned long long value = std::stoull(text, &used);
    if (used == text.size() && text.front() != '-') return static_cast<uint64_t>(value);
  } catch (const std::exception&) {
  }
  return Error{"Invalid job id specified: '" + text + "'"};
}

// Prints records (or JSON) for one "show" entity.
template <typename Message, typename Render>
int printRecords(const ScontrolOptions& options, const std::string& jsonKey,
                 const std::vector<Message>& items, Render render) {
  if (options.json) {
    std::cout << dumpJson(listToJson(jsonKey, items));
    return 0;
  }
  std::vector<std::string> records;
  for (const Message& item : items) records.push_back(render(item, renderOptions(options)));
  std::cout << joinRecords(records);
  return 0;
}

int showJobs(const ControllerClient& client, const ScontrolOptions& options,
             const std::vector<std::string>& rest) {
  gantry::v1::ListJobsRequest request;
  request.set_include_finished(true);
  if (!rest.empty()) {
    auto id = parseJobId(rest.front());
    if (!id) return reportError(kCommand, id.error());
    request.add_job_ids(*id);
  }
  auto response = client.listJobs(request);
  if (!response) return reportError(kCommand, response.error());
  if (!rest.empty() && response->jobs().empty()) {
    return reportError(kCommand, "Invalid job id specified: " + rest.front());
  }
  if (rest.empty() && response->jobs().empty() && !options.json) {
    std::cout << "No jobs in the system\n";
    return 0;
  }
  std::vector<gantry::v1::Job> jobs(response->jobs().begin(), response->jobs().end());
  return printRecords(options, "jobs", jobs, renderJob);
}

// "show step [<job>.<step> | <job>]": every step the job's record keeps,
// running or ended; without an id, the steps of every running job.
int showSteps(const ControllerClient& client, const ScontrolOptions& options,
              const std::vector<std::string>& rest) {
  gantry::v1::ListJobsRequest request;
  request.set_include_steps(true);
  StepSelection selection;
  if (!rest.empty()) {
    auto selector = parseStepSelector(rest.front());
    if (!selector) return reportError(kCommand, "Invalid job step id specified: " + rest.front());
    request.add_job_ids(selector->jobId);
    request.set_include_finished(true);
    selection.only.push_back(*selector);
  } else {
    request.add_states(gantry::v1::RUNNING);
    request.add_states(gantry::v1::SUSPENDED);
  }
  auto response = client.listJobs(request);
  if (!response) return reportError(kCommand, response.error());
  std::vector<gantry::v1::Job> jobs(response->jobs().begin(), response->jobs().end());
  std::vector<StepRow> rows = selectSteps(jobs, selection);
  if (!rest.empty() && rows.empty()) {
    return reportError(kCommand, "Job step " + rest.front() + " not found");
  }
  if (options.json) {
    std::cout << dumpJson(stepsToJson(rows));
    return 0;
  }
  if (rows.empty()) {
    std::cout << "No job steps in the system\n";
    return 0;
  }
  std::vector<std::string> records;
  for (const StepRow& row : rows) records.push_back(renderStep(row, renderOptions(options)));
  std::cout << joinRecords(records);
  return 0;
}

int showNodes(const ControllerClient& client, const ScontrolOptions& options,
              const std::vector<std::string>& rest) {
  gantry::v1::ListNodesRequest request;
  if (!rest.empty()) {
    auto names = hostlist::expand(rest.front());
    if (!names) return reportError(kCommand, "show node: " + names.error());
    for (const std::string& name : *names) request.add_names(name);
  }
  auto response = client.call<gantry::v1::ListNodesResponse>(
      [&](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.ListNodes(context, request, out);
      });
  if (!response) return reportError(kCommand, response.error());
  if (!rest.empty() && response->nodes().empty()) {
    return reportError(kCommand, "Node " + rest.front() + " not found");
  }
  std::vector<gantry::v1::Node> nodes(response->nodes().begin(), response->nodes().end());
  return printRecords(options, "nodes", nodes, renderNode);
}

int showPartitions(const ControllerClient& client, const ScontrolOptions& options,
                   const std::vector<std::string>& rest) {
  gantry::v1::ListPartitionsRequest request;
  if (!rest.empty()) request.add_names(rest.front());
  auto response = client.call<gantry::v1::ListPartitionsResponse>(
      [&](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.ListPartitions(context, request, out);
      });
  if (!response) return reportError(kCommand, response.error());
  if (!rest.empty() && response->partitions().empty()) {
    return reportError(kCommand, "Partition " + rest.front() + " not found");
  }
  std::vector<gantry::v1::Partition> partitions(response->partitions().begin(),
                                                response->partitions().end());
  return printRecords(options, "partitions", partitions, renderPartition);
}

int showConfig(const ControllerClient& client, const ScontrolOptions& options) {
  auto response = client.call<gantry::v1::GetConfigResponse>(
      [](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.GetConfig(context, gantry::v1::GetConfigRequest{}, out);
      });
  if (!response) return reportError(kCommand, response.error());
  std::vector<gantry::v1::ConfigEntry> entries(response->entries().begin(),
                                               response->entries().end());
  if (options.json) {
    nlohmann::json config = nlohmann::json::object();
    for (const auto& entry : entries) config[entry.key()] = entry.value();
    std::cout << dumpJson(nlohmann::json{{"config", config}});
    return 0;
  }
  std::cout << renderConfig(entries, renderOptions(options));
  return 0;
}

// hostnames/hostlist/hostlistsorted need no controller.
int showHostnames(const ScontrolOptions& options, const std::vector<std::string>& rest) {
  std::string expr;
  if (!rest.empty()) {
    expr = rest.front();
  } else if (const char* env = std::getenv("SLURM_NODELIST"); env != nullptr) {
    expr = env;
  } else if (const char* jobEnv = std::getenv("SLURM_JOB_NODELIST"); jobEnv != nullptr) {
    expr = jobEnv;
  } else {
    return reportError(kCommand, "host list is empty");
  }
  if (options.json) {
    auto names = hostlist::expand(expr);
    if (!names) return reportError(kCommand, "Invalid hostlist: " + expr + " (" + names.error() + ")");
    std::cout << dumpJson(nlohmann::json{{"hostnames", *names}});
    return 0;
  }
  auto text = hostnamesText(expr);
  if (!text) return reportError(kCommand, text.error());
  std::cout << *text;
  return 0;
}

int showHostlist(const ScontrolOptions& options, const std::vector<std::string>& rest, bool sorted) {
  if (rest.empty()) return reportError(kCommand, "invalid encode argument; give host names, - or a file");
  auto names = readHostlistArgument(rest.front());
  if (!names) return reportError(kCommand, names.error());
  auto text = hostlistText(*names, sorted);
  if (!text) return reportError(kCommand, text.error());
  if (options.json) {
    std::string expression = text->substr(0, text->size() - 1);
    std::cout << dumpJson(nlohmann::json{{"hostlist", expression}});
    return 0;
  }
  std::cout << *text;
  return 0;
}

int show(const ScontrolOptions& options, const std::vector<std::string>& words) {
  if (words.size() < 2) {
    return reportError(kCommand,
                       "show: what to show? job, step, node, partition, config, drainedtres, hostnames, hostlist, hostlistsorted");
  }
  std::string entity = lower(words[1]);
  std::vector<std::string> rest(words.begin() + 2, words.end());
  if (entity == "hostnames") return showHostnames(options, rest);
  if (entity == "hostlist") return showHostlist(options, rest, false);
  if (entity == "hostlistsorted") return showHostlist(options, rest, true);
  // Checked before connecting, so a mistyped selection needs no controller.
  Result<std::string> drainedNodes = std::string();
  if (entity == "drainedtres") drainedNodes = parseDrainedTresNodes(rest);
  if (!drainedNodes) return reportError(kCommand, drainedNodes.error());
  bool known = entity == "job" || entity == "jobs" || entity == "step" || entity == "steps" ||
               entity == "node" || entity == "nodes" || entity == "partition" ||
               entity == "partitions" || entity == "config" || entity == "drainedtres";
  if (!known) {
    return reportError(kCommand,
                       "show: unknown entity '" + words[1] +
                           "'; expected job, step, node, partition, config, drainedtres, hostnames, hostlist, hostlistsorted");
  }
  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError(kCommand, client.error());
  if (entity == "job" || entity == "jobs") return showJobs(*client, options, rest);
  if (entity == "step" || entity == "steps") return showSteps(*client, options, rest);
  if (entity == "node" || entity == "nodes") return showNodes(*client, options, rest);
  if (entity == "partition" || entity == "partitions") return showPartitions(*client, options, rest);
  if (entity == "drainedtres") return showDrainedTres(*client, *drainedNodes, options.json);
  return showConfig(*client, options);
}

// "write batch_script JOBID [FILE]": the script to FILE (slurm-<id>.sh when
// not given, standard output for "-"). Only the job's owner, root and
// SlurmUser get it; the file is written only once the script is in hand.
int writeBatchScript(const ScontrolOptions& options, const std::vector<std::string>& words) {
  if (words.size() < 2 || lower(words[1]) != "batch_script") {
    return reportError(kCommand, "write: what to write? batch_script JOBID [FILE]");
  }
  if (words.size() < 3 || words.size() > 4) {
    return reportError(kCommand, "write batch_script: give a job id and optionally a file name");
  }
  auto id = parseJobId(words[2]);
  if (!id) return reportError(kCommand, id.error());
  std::string file = words.size() == 4 ? words[3] : "slurm-" + std::to_string(*id) + ".sh";
  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError(kCommand, client.error());
  gantry::v1::GetBatchScriptRequest request;
  request.set_job_id(*id);
  auto response = client->call<gantry::v1::GetBatchScriptResponse>(
      [&](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.GetBatchScript(context, request, out);
      });
  if (!response) return reportError(kCommand, "job script retrieval failed: " + response.error());
  if (file == "-") {
    std::cout << response->script();
    return 0;
  }
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << response->script();
  if (!out.flush()) return reportError(kCommand, "cannot write " + file + ": " + std::strerror(errno));
  std::cout << "batch script for job " << *id << " written to " << file << "\n";
  return 0;
}

// scontrol update JobId=N Key=Value...: Slurm's scontrol prints its
// refusals bare on stderr ("<error> for job <id>") and exits 1.
int updateJob(const ScontrolOptions& options, const std::vector<std::string>& words) {
  auto request = parseJobUpdate(words);
  if (!request) {
    std::cerr << request.error() << "\nRequest aborted\n";
    return 1;
  }
  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError(kCommand, client.error());
  auto response = client->call<gantry::v1::UpdateJobResponse>(
      [&](auto& stub, grpc::ClientContext* context, auto* out) { return stub.UpdateJob(context, *request, out); });
  if (!response) {
    std::cerr << response.error() << " for job " << request->job_id() << "\n";
    return 1;
  }
  return 0;
}

// A TRES drain when a word is TresName=, else a node update. Either prints
// what the controller left drained (empty slots that cannot be resumed).
int update(const ScontrolOptions& options, const std::vector<std::string>& words) {
  std::vector<std::string> rest(words.begin() + 1, words.end());
  if (isTresUpdate(rest)) {
    auto client = ControllerClient::connect(options.confDir);
    if (!client) return reportError(kCommand, client.error());
    return updateTres(*client, rest);
  }
  if (isJobUpdate(rest)) return updateJob(options, rest);
  auto request = parseNodeUpdate(rest);
  if (!request) return reportError(kCommand, request.error());
  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError(kCommand, client.error());
  auto response = client->call<gantry::v1::UpdateNodeResponse>(
      [&](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.UpdateNode(context, *request, out);
      });
  if (!response) return reportError(kCommand, response.error());
  printLeftDrained(response->left_drained());
  return 0;
}

// suspend, resume, hold, release: one call per job id.
int jobAction(const ScontrolOptions& options, const std::vector<std::string>& words) {
  std::string action = lower(words[0]);
  if (words.size() < 2) return reportError(kCommand, action + ": give one or more job ids");
  std::vector<uint64_t> ids;
  for (size_t i = 1; i < words.size(); ++i) {
    auto id = parseJobId(words[i]);
    if (!id) return reportError(kCommand, action + ": " + id.error());
    ids.push_back(*id);
  }
  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError(kCommand, client.error());
  int status = 0;
  for (uint64_t id : ids) {
    gantry::v1::JobActionRequest request;
    request.set_job_id(id);
    auto response = client->call<gantry::v1::JobActionResponse>(
        [&](auto& stub, grpc::ClientContext* context, auto* out) {
          if (action == "suspend") return stub.SuspendJob(context, request, out);
          if (action == "resume") return stub.ResumeJob(context, request, out);
          if (action == "hold") return stub.HoldJob(context, request, out);
          return stub.ReleaseJob(context, request, out);
        });
    if (!response) status = reportError(kCommand, action + " job " + std::to_string(id) + ": " +
                                                      response.error());
  }
  return status;
}

// "reconfigure": the controller re-reads its configuration (as on SIGHUP)
// and tells the agents to re-read theirs. Its own errors mean nothing
// changed; an agent that failed keeps its previous configuration and is
// named with its error. Either way the exit status is 1.
int reconfigure(const ScontrolOptions& options, const std::vector<std::string>& words) {
  if (words.size() > 1) return reportError(kCommand, "reconfigure takes no arguments");
  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError(kCommand, client.error());
  auto response = client->call<gantry::v1::ReconfigureResponse>(
      [](auto& stub, grpc::ClientContext* context, auto* out) {
        gantry::v1::ReconfigureRequest request;
        return stub.Reconfigure(context, request, out);
      });
  if (!response) return reportError(kCommand, "reconfigure error: " + response.error());
  int status = 0;
  for (const auto& problem : response->node_errors()) status = reportError(kCommand, problem);
  return status;
}

// CLI11 reads a word written "[a,b]" as the list a, b, so "show hostnames
// [1,3-5]" would lose its brackets. A mark in front keeps such words whole
// through the parse; it is taken off again afterwards.
constexpr char kShield = '\x1f';

std::vector<std::string> shieldBracketWords(std::vector<std::string> args) {
  for (std::string& arg : args) {
    if (arg.starts_with('[')) arg.insert(arg.begin(), kShield);
  }
  return args;
}

void unshieldBracketWords(std::vector<std::string>& words) {
  for (std::string& word : words) {
    if (word.starts_with(kShield)) word.erase(word.begin());
  }
}

}  // namespace

int runScontrol(const std::vector<std::string>& args) {
  ScontrolOptions options;
  CLI::App app{"gantry scontrol: view and change controller state", "scontrol"};
  HelpRequest helpRequest;
  declareHelpFlags(app, helpRequest, "-h,--help");
  app.add_option("command", options.words,
                 "show job|step|node|partition|config|drainedtres|hostnames|hostlist|hostlistsorted [name], "
                 "update NodeName=... State=... Reason=..., update JobId=... TresBind=..., "
                 "update TresName=... NodeName=... Index=|Uuid=|Count=... Action=... Reason=..., "
                 "write batch_script JOBID [FILE], "
                 "suspend|resume|hold|release JOBID, reconfigure");
  app.add_flag("-d,--details", options.details, "more detail (allocations, GRES use)");
  app.add_flag("--json", options.json, "print JSON");
  addConfDirOption(app, options.confDir);
  auto parsed = parseWords(app, shieldBracketWords(args));
  if (!parsed) return reportError(kCommand, parsed.error());
  if (!parsed->usageError.empty()) return reportUsageError(kCommand, parsed->usageError);
  if (auto answer = helpAnswer(app, kCommand, *parsed, helpRequest)) {
    std::cout << *answer;
    return 0;
  }
  unshieldBracketWords(options.words);
  if (options.words.empty()) return reportError(kCommand, "no command given; see --help");
  std::string command = lower(options.words[0]);
  if (command == "help") {
    std::cout << renderScontrolHelp(app);
    return 0;
  }
  if (command == "version") {
    std::cout << versionText();
    return 0;
  }
  if (command == "show") return show(options, options.words);
  if (command == "update") return update(options, options.words);
  if (command == "write") return writeBatchScript(options, options.words);
  // scontrol takes a command's prefix of three letters or more.
  if (command.size() >= 3 && std::string("reconfigure").starts_with(command)) {
    return reconfigure(options, options.words);
  }
  if (command == "suspend" || command == "resume" || command == "hold" || command == "release") {
    return jobAction(options, options.words);
  }
  return reportError(kCommand, "unknown command '" + options.words[0] +
                                   "'; expected show, update, write, suspend, resume, hold, release, reconfigure, version or help");
}

}  // namespace gantry::cli
