// gantry scontrol: show jobs, steps, nodes, partitions, config, licenses,
// reservations and host lists; update nodes and drain devices; suspend,
// resume, hold and release jobs; ping, reconfigure and shut down the controller.

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <cstdlib>
#include <ctime>

#include "cli/arg_parsing.h"
#include "cli/array_ids.h"
#include "cli/help_flags.h"
#include "cli/scontrol_help.h"
#include "cli/controller_client.h"
#include "cli/group_name.h"
#include "cli/job_steps.h"
#include "cli/json_meta.h"
#include "cli/json_render.h"
#include "cli/query_options.h"
#include "cli/scontrol_hostlist.h"
#include "cli/scontrol_job_ids.h"
#include "cli/scontrol_render.h"
#include "cli/scontrol_tres.h"
#include "cli/scontrol_update.h"
#include "cli/subcommands.h"
#include "common/hostlist/hostlist.h"
#include "common/util/sluid.h"

namespace gantry::cli {
namespace {

constexpr const char* kCommand = "scontrol";

// Slurm's "--json" answer: the content with its envelope ("meta", "errors",
// "warnings").
int printJson(const ControllerClient& client, const ScontrolOptions& options, nlohmann::json content) {
  std::cout << dumpJson(withEnvelope(std::move(content), localJsonMeta(kCommand, options.args, client)));
  return 0;
}

// Slurm matches an entity by any prefix of its name at least `least`
// letters long ("show part", "show res").
bool entityIs(const std::string& word, const std::string& name, size_t least) {
  return word.size() >= least && word.size() <= name.size() && name.starts_with(word);
}

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
int printRecords(const ControllerClient& client, const ScontrolOptions& options, const std::string& jsonKey,
                 const std::vector<Message>& items, Render render) {
  if (options.json) return printJson(client, options, listToJson(jsonKey, items));
  std::vector<std::string> records;
  for (const Message& item : items) records.push_back(render(item, renderOptions(options)));
  std::cout << joinRecords(records, options.oneLiner);
  return 0;
}

int showJobs(const ControllerClient& client, const ScontrolOptions& options,
             const std::vector<std::string>& rest) {
  gantry::v1::ListJobsRequest request;
  request.set_include_finished(true);
  request.set_include_tres(true);
  std::optional<JobTarget> tasks;
  if (!rest.empty()) {
    // A job is named by its decimal id or by its SLUID (as SLURM_JOB_SLUID
    // and `scontrol -d show job` print it), the same as scancel takes; an
    // array's id shows all of its records, "12_4" the one task.
    if (auto sluid = canonicalSluid(rest.front())) {
      request.add_sluids(*sluid);
    } else if (rest.front().find('_') != std::string::npos) {
      auto target = parseJobTarget(rest.front());
      if (!target) return reportError(kCommand, "Invalid job id specified: " + rest.front());
      request.add_job_ids(target->id);
      tasks = *target;
    } else {
      auto id = parseJobId(rest.front());
      if (!id) return reportError(kCommand, id.error());
      request.add_job_ids(*id);
    }
  }
  auto response = client.listJobs(request);
  if (!response) return reportError(kCommand, response.error());
  std::vector<gantry::v1::Job> jobs;
  for (const auto& job : response->jobs()) {
    if (!tasks || jobMatches(job, *tasks)) jobs.push_back(job);
  }
  if (!rest.empty() && jobs.empty()) return reportError(kCommand, "Invalid job id specified: " + rest.front());
  if (rest.empty() && jobs.empty() && !options.json) {
    std::cout << "No jobs in the system\n";
    return 0;
  }
  return printRecords(client, options, "jobs", jobs, renderJob);
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
  if (options.json) return printJson(client, options, stepsToJson(rows));
  if (rows.empty()) {
    std::cout << "No job steps in the system\n";
    return 0;
  }
  std::vector<std::string> records;
  for (const StepRow& row : rows) records.push_back(renderStep(row, renderOptions(options)));
  std::cout << joinRecords(records, options.oneLiner);
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
  return printRecords(client, options, "nodes", nodes, renderNode);
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
  return printRecords(client, options, "partitions", partitions, renderPartition);
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
    return printJson(client, options, nlohmann::json{{"config", config}});
  }
  std::cout << renderConfig(entries, renderOptions(options));
  return 0;
}

// Gantry has no licenses and no reservations; the answers are Slurm's for
// a cluster without any (a named reservation is not found, exit 1).
int showLicenses(const ControllerClient& client, const ScontrolOptions& options) {
  if (options.json) return printJson(client, options, nlohmann::json{{"licenses", nlohmann::json::array()}});
  std::cout << "No licenses configured in Slurm.\n";
  return 0;
}

int showReservations(const ControllerClient& client, const ScontrolOptions& options,
                     const std::vector<std::string>& rest) {
  if (options.json) return printJson(client, options, nlohmann::json{{"reservations", nlohmann::json::array()}});
  if (!rest.empty()) {
    std::cout << "Reservation " << rest.front() << " not found\n";
    return 1;
  }
  std::cout << "No reservations in the system\n";
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

constexpr const char* kEntities =
    "job, step, node, partition, config, licenses, reservations, drainedtres, hostnames, hostlist, hostlistsorted";

// The entity a "show" word names, as Slurm matches it (checked in Slurm's
// order, so "res" is reservations); "" when none.
std::string entityOf(const std::string& word) {
  if (word == "drainedtres") return word;
  if (entityIs(word, "hostnames", 5)) return "hostnames";
  if (entityIs(word, "hostlist", 5)) return "hostlist";
  if (entityIs(word, "hostlistsorted", 9)) return "hostlistsorted";
  if (entityIs(word, "config", 1)) return "config";
  if (entityIs(word, "jobs", 1) || entityIs(word, "jobid", 1)) return "jobs";
  if (entityIs(word, "licenses", 2)) return "licenses";
  if (entityIs(word, "nodes", 1)) return "nodes";
  if (entityIs(word, "partitions", 2) || entityIs(word, "partitionname", 2)) return "partitions";
  if (entityIs(word, "reservations", 1) || entityIs(word, "reservationname", 1)) return "reservations";
  if (entityIs(word, "steps", 2)) return "steps";
  return "";
}

int show(const ScontrolOptions& options, const std::vector<std::string>& words) {
  if (words.size() < 2) return reportError(kCommand, std::string("show: what to show? ") + kEntities);
  std::string entity = entityOf(lower(words[1]));
  std::vector<std::string> rest(words.begin() + 2, words.end());
  if (entity.empty()) {
    return reportError(kCommand, "show: unknown entity '" + words[1] + "'; expected " + kEntities);
  }
  if (entity == "hostnames") return showHostnames(options, rest);
  if (entity == "hostlist") return showHostlist(options, rest, false);
  if (entity == "hostlistsorted") return showHostlist(options, rest, true);
  // Checked before connecting, so a mistyped selection needs no controller.
  Result<std::string> drainedNodes = std::string();
  if (entity == "drainedtres") drainedNodes = parseDrainedTresNodes(rest);
  if (!drainedNodes) return reportError(kCommand, drainedNodes.error());
  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError(kCommand, client.error());
  if (entity == "jobs") return showJobs(*client, options, rest);
  if (entity == "steps") return showSteps(*client, options, rest);
  if (entity == "nodes") return showNodes(*client, options, rest);
  if (entity == "partitions") return showPartitions(*client, options, rest);
  if (entity == "licenses") return showLicenses(*client, options);
  if (entity == "reservations") return showReservations(*client, options, rest);
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

// "update JobId=N Key=Value...": the controller checks who may change
// what; its refusal is printed as Slurm's "<reason> for job <id>".
int updateJob(const ScontrolOptions& options, const std::vector<std::string>& words) {
  auto request = parseJobUpdate(words);
  if (!request) return reportError(kCommand, request.error());
  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError(kCommand, client.error());
  auto response = client->call<gantry::v1::UpdateJobResponse>(
      [&](auto& stub, grpc::ClientContext* context, auto* out) { return stub.UpdateJob(context, *request, out); });
  if (!response) {
    std::cerr << jobActionFailure(response.error(), std::to_string(request->job_id())) << "\n";
    return 1;
  }
  return 0;
}

// A TRES drain when a word is TresName=, else a job update when one is
// JobId=, else a node update. Either prints
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

// suspend, resume, hold, release, requeue: one call per job id, each failure on a
// line of its own as Slurm prints it ("<why> for job <id>"); exit 1 when
// any failed.
int jobAction(const ScontrolOptions& options, const std::vector<std::string>& words) {
  std::string action = lower(words[0]);
  if (words.size() < 2) return reportError(kCommand, "too few arguments for keyword:" + words[0]);
  std::vector<JobIdItem> items = parseJobIdWords({words.begin() + 1, words.end()});
  if (items.empty()) return reportError(kCommand, "too few arguments for keyword:" + words[0]);
  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError(kCommand, client.error());
  int status = 0;
  for (const JobIdItem& item : items) {
    if (!item.id) {
      std::cerr << jobActionFailure("Invalid job id specified", item.text) << "\n";
      status = 1;
      continue;
    }
    gantry::v1::JobActionRequest request;
    request.set_job_id(*item.id);
    request.set_array_tasks(item.arrayTasks);
    auto response = client->call<gantry::v1::JobActionResponse>(
        [&](auto& stub, grpc::ClientContext* context, auto* out) {
          if (action == "suspend") return stub.SuspendJob(context, request, out);
          if (action == "resume") return stub.ResumeJob(context, request, out);
          if (action == "hold") return stub.HoldJob(context, request, out);
          if (action == "requeue") return stub.RequeueJob(context, request, out);
          return stub.ReleaseJob(context, request, out);
        });
    if (!response) {
      std::cerr << jobActionFailure(response.error(), item.text) << "\n";
      status = 1;
    }
  }
  return status;
}

// "ping": whether the controller answers, as Slurm prints it; exit 1 when
// it does not. --json always exits 0, the answer saying UP or DOWN.
// Gantry runs one controller, so only the primary is asked.
int ping(const ScontrolOptions& options, const std::vector<std::string>& words) {
  if (words.size() > 1) return reportError(kCommand, "too many arguments for keyword:" + words[0]);
  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError(kCommand, client.error());
  auto started = std::chrono::steady_clock::now();
  auto response = client->call<gantry::v1::PingControllerResponse>(
      [](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.PingController(context, gantry::v1::PingControllerRequest{}, out);
      });
  auto latency = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
  bool up = response.ok();
  std::string state = up ? "UP" : "DOWN";
  if (options.json) {
    nlohmann::json one = {{"hostname", client->controllerName()}, {"pinged", state},
                          {"latency", latency.count()},           {"mode", "primary"},
                          {"primary", true},                      {"responding", up}};
    return printJson(*client, options, nlohmann::json{{"pings", nlohmann::json::array({one})}});
  }
  std::cout << "Slurmctld(primary) at " << client->controllerName() << " is " << state << "\n";
  if (up) return 0;
  // Slurm tells root, who can do something about it.
  if (::getuid() == 0) {
    std::cout << "*****************************************\n"
                 "** RESTORE SLURMCTLD DAEMON TO SERVICE **\n"
                 "*****************************************\n";
  }
  return 1;
}

// "shutdown [slurmctld|controller]": the controller stops as on SIGTERM.
// The agents keep running either way (docs/compatibility.md says why).
// The texts are Slurm's.
int shutdownController(const ScontrolOptions& options, const std::vector<std::string>& words) {
  if (words.size() > 2) {
    std::cerr << "too many arguments for keyword:" << words[0] << "\n";
    return 1;
  }
  if (words.size() == 2 && words[1] != "slurmctld" && words[1] != "controller") {
    std::cerr << "invalid shutdown argument:" << words[1] << "\n";
    return 1;
  }
  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError(kCommand, client.error());
  auto response = client->call<gantry::v1::ShutdownResponse>([](auto& stub, grpc::ClientContext* context, auto* out) {
    return stub.Shutdown(context, gantry::v1::ShutdownRequest{}, out);
  });
  if (!response) {
    std::cerr << "slurm_shutdown error:" << response.error() << "\n";
    return 1;
  }
  return 0;
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
  options.args = args;
  CLI::App app{"gantry scontrol: view and change controller state", "scontrol"};
  declareScontrolOptions(app, options);
  auto parsed = parseWords(app, shieldBracketWords(args));
  if (!parsed) return reportError(kCommand, parsed.error());
  if (!parsed->usageError.empty()) return reportUsageError(kCommand, parsed->usageError);
  if (auto answer = helpAnswer(app, kCommand, *parsed, options.help)) {
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
  if (command == "ping") return ping(options, options.words);
  // Slurm wants this one spelt out.
  if (command == "shutdown") return shutdownController(options, options.words);
  // scontrol takes a command's prefix of three letters or more.
  if (command.size() >= 3 && std::string("reconfigure").starts_with(command)) {
    return reconfigure(options, options.words);
  }
  if (command == "suspend" || command == "resume" || command == "hold" || command == "release" ||
      command == "requeue") {
    return jobAction(options, options.words);
  }
  return reportError(kCommand, "unknown command '" + options.words[0] +
                                   "'; expected show, update, write, suspend, resume, hold, release, requeue, ping, "
                                   "reconfigure, shutdown, version or help");
}

}  // namespace gantry::cli
