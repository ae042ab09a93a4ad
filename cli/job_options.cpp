// Declaring sbatch's options and running the command line + #SBATCH flow.
// Turning the merged values into a JobSpec is in job_spec_builder.cpp.
#include "cli/job_options.h"

#include "cli/arg_parsing.h"
#include "cli/sbatch_script.h"

namespace gantry::cli {
namespace {

struct ValueOption {
  const char* names;  // CLI11 spelling, e.g. "-t,--time"
  const char* key;    // long name, used for origins and messages
  std::optional<std::string> SbatchOptions::*member;
  const char* help;
};

const ValueOption kValueOptions[] = {
    {"-N,--nodes", "nodes", &SbatchOptions::nodes, "node count: N or MIN-MAX"},
    {"-n,--ntasks", "ntasks", &SbatchOptions::ntasks, "number of tasks"},
    {"-c,--cpus-per-task", "cpus-per-task", &SbatchOptions::cpusPerTask, "CPUs per task"},
    {"--ntasks-per-node", "ntasks-per-node", &SbatchOptions::ntasksPerNode, "tasks per node"},
    {"--sockets-per-node", "sockets-per-node", &SbatchOptions::socketsPerNode,
     "sockets per node the tasks use (needed by --gpus-per-socket)"},
    {"--mem", "mem", &SbatchOptions::mem, "memory per node, K/M/G/T suffix (default MB)"},
    {"--mem-per-cpu", "mem-per-cpu", &SbatchOptions::memPerCpu, "memory per CPU"},
    {"-p,--partition", "partition", &SbatchOptions::partition, "partition name"},
    {"-J,--job-name", "job-name", &SbatchOptions::jobName, "job name"},
    {"-o,--output", "output", &SbatchOptions::output, "stdout file pattern"},
    {"-e,--error", "error", &SbatchOptions::error, "stderr file pattern"},
    {"-i,--input", "input", &SbatchOptions::input, "stdin file"},
    {"-t,--time", "time", &SbatchOptions::time, "time limit"},
    {"-D,--chdir", "chdir", &SbatchOptions::chdir, "working directory of the job"},
    {"--gres", "gres", &SbatchOptions::gres, "generic resources per node: name[:type][:count],..."},
    {"-G,--gpus", "gpus", &SbatchOptions::gpus, "GPUs for the job: [type:]N"},
    {"--gpus-per-node", "gpus-per-node", &SbatchOptions::gpusPerNode, "GPUs per node: [type:]N"},
    {"--gpus-per-socket", "gpus-per-socket", &SbatchOptions::gpusPerSocket,
     "GPUs per socket: [type:]N"},
    {"--gpus-per-task", "gpus-per-task", &SbatchOptions::gpusPerTask, "GPUs per task: [type:]N"},
    {"--cpus-per-gpu", "cpus-per-gpu", &SbatchOptions::cpusPerGpu, "CPUs per GPU"},
    {"--gpu-freq", "gpu-freq", &SbatchOptions::gpuFreq, "GPU frequency request (not with mps or shard)"},
    {"--gpu-bind", "gpu-bind", &SbatchOptions::gpuBind,
     "bind tasks to GPUs: [verbose,]none|closest|map_gpu:<list>|mask_gpu:<list>|single:<N>|per_task:<N>"},
    {"--mem-per-gpu", "mem-per-gpu", &SbatchOptions::memPerGpu, "memory per GPU"},
    {"--network", "network", &SbatchOptions::network,
     "interconnect request handed to switch.lua (SwitchType=switch/lua; job.network there)"},
    {"-A,--account", "account", &SbatchOptions::account, "the account the job's use is charged to (accounting)"},
    {"--comment", "comment", &SbatchOptions::comment, "a comment kept with the job (accounting)"},
    {"--gres-flags", "gres-flags", &SbatchOptions::gresFlags,
     "enforce-binding, enforce-links, ignore-links"},
    {"--core-spec", "core-spec", &SbatchOptions::coreSpec, "cores reserved for system use"},
    {"--thread-spec", "thread-spec", &SbatchOptions::threadSpec, "threads reserved for system use"},
    {"--tres-per-task", "tres-per-task", &SbatchOptions::tresPerTask,
     "per-task TRES: gres/gpu=N, cpu=N"},
    {"--export", "export", &SbatchOptions::exportSpec, "ALL (default), NONE, or [ALL,]VAR[=value],..."},
    {"--wrap", "wrap", &SbatchOptions::wrap, "command to run as a /bin/sh script"},
    {"--priority", "priority", &SbatchOptions::priority, "the job's priority (root and SlurmUser only)"},
    {"--conf-dir", "conf-dir", &SbatchOptions::confDir,
     "configuration directory (default $GANTRY_CONF_DIR, then /etc/gantry)"},
};

struct FlagOption {
  const char* names;
  const char* key;
  bool SbatchOptions::*member;
  const char* help;
};

const FlagOption kFlagOptions[] = {
    {"-H,--hold", "hold", &SbatchOptions::hold, "submit the job held"},
    {"--parsable", "parsable", &SbatchOptions::parsable, "print only the job id"},
    {"--test-only", "test-only", &SbatchOptions::testOnly,
     "ask where and when the job would run; submit nothing"},
    {"-s,--oversubscribe", "oversubscribe", &SbatchOptions::oversubscribe,
     "let the job share CPUs with other jobs that allow it (OverSubscribe=YES partitions)"},
};

std::string baseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

void declareSbatchOptions(CLI::App& app, SbatchOptions& target, const std::string* currentOrigin) {
  app.set_help_flag("--help", "print this help");
  for (const ValueOption& option : kValueOptions) {
    std::string key = option.key;
    auto member = option.member;
    app.add_option_function<std::string>(
           option.names,
           [&target, key, member, currentOrigin](const std::string& value) {
             target.*member = value;
             target.origin[key] = *currentOrigin;
           },
           option.help)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  for (const FlagOption& option : kFlagOptions) {
    std::string key = option.key;
    auto member = option.member;
    app.add_flag_callback(
        option.names,
        [&target, key, member, currentOrigin] {
          target.*member = true;
          target.origin[key] = *currentOrigin;
        },
        option.help);
  }
  // A flag that may carry a value: "--exclusive" alone or "--exclusive=user"
  // (never "--exclusive user": the next word stays the script or command).
  // Bare, it reads as its default "exclusive", the plain form.
  static const std::string exclusiveHelp =
      "whole nodes; =user: share nodes only with your own jobs, =mcs: only with jobs of your MCS label, "
      "=topo: whole topology blocks";
  app.add_flag("--exclusive{exclusive}", exclusiveHelp)
      ->each([&target, currentOrigin](const std::string& value) {
        target.exclusive = value;
        target.origin["exclusive"] = *currentOrigin;
      })
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_flag_callback(
      "--requeue",
      [&target, currentOrigin] {
        target.requeue = true;
        target.origin["requeue"] = *currentOrigin;
      },
      "let the job be requeued after a node failure");
  app.add_flag_callback(
      "--no-requeue",
      [&target, currentOrigin] {
        target.requeue = false;
        target.origin["requeue"] = *currentOrigin;
      },
      "never requeue the job");
}

Result<Submission> prepareSubmission(const std::vector<std::string>& args,
                                     const SubmitContext& context, const ScriptReader& readScript) {
  const std::string commandLine = "command line";

  // First pass: find the script (everything from the first positional word
  // on belongs to it) and whether --wrap was given.
  SbatchOptions firstPass;
  CLI::App scanner{"gantry sbatch: submit a batch script", "sbatch"};
  declareSbatchOptions(scanner, firstPass, &commandLine);
  scanner.prefix_command(true);
  auto scanned = parseWords(scanner, args);
  if (!scanned) return Error{scanned.error()};
  if (scanned->helpRequested) {
    Submission help;
    help.helpText = scanned->helpText;
    return help;
  }
  std::vector<std::string> scriptWords = scanner.remaining();
  // CLI11 hands over an unknown option as the first "script" word; after
  // "--" a leading dash is a file name.
  if (!scriptWords.empty() && scriptWords.front() == "--") {
    scriptWords.erase(scriptWords.begin());
  } else if (!scriptWords.empty() && scriptWords.front().size() > 1 &&
             scriptWords.front().front() == '-') {
    return Error{"command line: unrecognized option '" + scriptWords.front() +
                 "' (see sbatch --help)"};
  }

  std::string scriptText;
  std::string defaultName;
  SbatchOptions merged;
  if (firstPass.wrap) {
    if (!scriptWords.empty()) {
      return Error{"--wrap: cannot be combined with a script file ('" + scriptWords.front() + "')"};
    }
    scriptText = wrapCommand(*firstPass.wrap);
    defaultName = "wrap";
  } else {
    // No script named: like sbatch, read it from standard input ("-").
    if (scriptWords.empty()) scriptWords.push_back(kStdinScript);
    if (scriptWords.size() > 1) {
      return Error{"script arguments ('" + scriptWords[1] +
                   "' ...) are not supported: the job request has no field for them; "
                   "set them inside the script or use --wrap"};
    }
    const std::string& path = scriptWords.front();
    auto text = readScript(path);
    if (!text) return Error{text.error()};
    scriptText = std::move(*text);
    defaultName = path == kStdinScript ? "sbatch" : baseName(path);
    // Errors in directives name the script file and line.
    const std::string label = path == kStdinScript ? "standard input" : path;

    auto directives = readDirectives(scriptText);
    if (!directives) return Error{label + ": " + directives.error()};
    for (const Directive& directive : *directives) {
      std::string origin = label + ":" + std::to_string(directive.line);
      CLI::App lineParser{"#SBATCH", "sbatch"};
      declareSbatchOptions(lineParser, merged, &origin);
      auto parsed = parseWords(lineParser, directive.words);
      if (!parsed) return Error{origin + ": #SBATCH: " + parsed.error()};
      if (parsed->helpRequested) return Error{origin + ": #SBATCH: --help is not a directive"};
    }
  }

  // Second pass: the command line again, now over the directives.
  CLI::App overrides{"gantry sbatch", "sbatch"};
  declareSbatchOptions(overrides, merged, &commandLine);
  overrides.prefix_command(true);
  auto reparsed = parseWords(overrides, args);
  if (!reparsed) return Error{reparsed.error()};

  auto spec = buildJobSpec(merged, context, scriptText, defaultName);
  if (!spec) return Error{spec.error()};
  Submission submission;
  submission.spec = std::move(*spec);
  submission.parsable = merged.parsable;
  submission.testOnly = merged.testOnly;
  submission.confDir = merged.confDir.value_or("");
  return submission;
}

}  // namespace gantry::cli
