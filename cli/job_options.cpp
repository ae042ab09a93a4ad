// Declaring sbatch's options and running the command line + #SBATCH flow.
// Turning the merged values into a JobSpec is in job_spec_builder.cpp.
#include "cli/job_options.h"

#include "cli/defined_options.h"

#include "cli/arg_parsing.h"
#include "cli/sbatch_script.h"
#include "cli/usage_text.h"

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
    {"--ntasks-per-socket", "ntasks-per-socket", &SbatchOptions::ntasksPerSocket,
     "at most this many tasks per socket, each on one socket's CPUs"},
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
    {"--export", "export", &SbatchOptions::exportSpec, "ALL (default), NONE, NIL, or [ALL,]VAR[=value],..."},
    {"--wrap", "wrap", &SbatchOptions::wrap, "command to run as a /bin/sh script"},
    {"--priority", "priority", &SbatchOptions::priority, "the job's priority (root and SlurmUser only)"},
    {"-w,--nodelist", "nodelist", &SbatchOptions::nodelist,
     "nodes the job must have: a host list (n[1-3,5]) or a file of names (a path with '/')"},
    {"-x,--exclude", "exclude", &SbatchOptions::exclude,
     "nodes the job must not have: a host list or a file of names (a path with '/')"},
    {"--conf-dir", "conf-dir", &SbatchOptions::confDir,
     "configuration directory (default $GANTRY_CONF_DIR, then /etc/gantry)"},
    // Binding, task layout, signals and output files.
    {"--tres-bind", "tres-bind", &SbatchOptions::tresBind,
     "bind tasks to TRES: gres/<name>:<binding>[+...] (checked by the controller, as in Slurm)"},
    {"-m,--distribution", "distribution", &SbatchOptions::distribution,
     "task layout: block|cyclic|arbitrary|plane=N[:block|cyclic|fcyclic[:...]][,Pack|NoPack] "
     "(checked and passed on as SLURM_DISTRIBUTION; tasks are placed in blocks)"},
    {"--signal", "signal", &SbatchOptions::signal,
     "[{R|B}:]num[@time]: send signal num time seconds (default 60) before the time limit"},
    {"--open-mode", "open-mode", &SbatchOptions::openMode, "append|truncate the output and error files"},
    // When the job may start.
    {"-d,--dependency", "dependency", &SbatchOptions::dependency,
     "wait for other jobs: after|afterany|afterok|afternotok|aftercorr:jobid[:jobid...], singleton; "
     "',' all, '?' any"},
    {"-b,--begin", "begin", &SbatchOptions::begin,
     "not before this time: HH:MM[:SS], YYYY-MM-DD[THH:MM[:SS]], now+N[units], midnight, noon, tomorrow, ..."},
    {"-a,--array", "array", &SbatchOptions::array,
     "a job array: task indexes 0-15, 1,3,5-9 or 0-99:4, then %N to run at most N tasks at once "
     "(batch jobs only)"},
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
    // Task layout, environment and waiting.
    {"-O,--overcommit", "overcommit", &SbatchOptions::overcommit,
     "run more tasks than CPUs: the job needs one CPU per node"},
    {"--contiguous", "contiguous", &SbatchOptions::contiguous,
     "accepted with a warning and shown as Contiguous=1; the nodes are not made consecutive"},
    {"--get-user-env", "get-user-env", &SbatchOptions::getUserEnv,
     "accepted: the job gets the environment sbatch was started with (see --export)"},
    {"-W,--wait", "wait", &SbatchOptions::wait, "wait for the job to end and exit with its exit code"},
};

// The word --help and --usage show for an option's value where the long
// name is not the best one ("--nodes=N", not "--nodes=nodes").
const std::map<std::string, std::string> kValueNames = {
    {"nodes", "N"},         {"ntasks", "ntasks"},     {"cpus-per-task", "ncpus"}, {"ntasks-per-node", "n"},
    {"sockets-per-node", "S"}, {"mem", "MB"},        {"mem-per-cpu", "MB"},      {"mem-per-gpu", "MB"},
    {"job-name", "jobname"}, {"output", "out"},       {"error", "err"},           {"input", "in"},
    {"time", "minutes"},    {"chdir", "path"},        {"gres", "list"},           {"gpus", "n"},
    {"gpus-per-node", "n"}, {"gpus-per-socket", "n"}, {"gpus-per-task", "n"},     {"cpus-per-gpu", "n"},
    {"gpu-bind", "..."},    {"gpu-freq", "..."},      {"network", "type"},        {"account", "name"},
    {"comment", "name"},    {"gres-flags", "opts"},   {"core-spec", "cores"},     {"thread-spec", "threads"},
    {"tres-per-task", "list"}, {"export", "env_vars|NONE"}, {"wrap", "command"}, {"priority", "value"},
    {"conf-dir", "path"},   {"nodelist", "hosts"},    {"exclude", "hosts"},
    {"tres-bind", "..."},   {"distribution", "type"}, {"signal", "[{R|B}:]num[@time]"}, {"open-mode", "append|truncate"},
    {"dependency", "type:jobid[:jobid]"}, {"begin", "time"}, {"array", "indexes"},
};

std::string valueNameOf(const std::string& key) {
  auto found = kValueNames.find(key);
  return found == kValueNames.end() ? key : found->second;
}

// Options of Slurm's that Gantry takes so that scripts written for Slurm
// run, but that change nothing here; each given prints its warning.
struct IgnoredOption {
  const char* names;
  const char* key;
  const char* valueName;
  const char* help;
  const char* warning;
};

const IgnoredOption kIgnoredOptions[] = {
    {"-q,--qos", "qos", "qos", "quality of service (accepted and ignored: Gantry has none)",
     "--qos is accepted and ignored: Gantry has no quality of service"},
    {"--mincpus", "mincpus", "n", "minimum CPUs per node (accepted and ignored)",
     "--mincpus is accepted and ignored: ask for CPUs with -c/--cpus-per-task and -n/--ntasks"},
};

constexpr const char* kGpuSection = "GPU scheduling options";

bool isGpuOption(const std::string& key) { return key.find("gpu") != std::string::npos; }

std::string baseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

void declareSbatchOptions(CLI::App& app, SbatchOptions& target, const std::string* currentOrigin) {
  app.set_help_flag("-h,--help", "print this help and stop")->group(kHelpSection);
  app.add_flag_callback("--usage", [&target] { target.usage = true; }, "print a short list of the options and stop")
      ->group(kHelpSection);
  for (const ValueOption& option : kValueOptions) {
    std::string key = option.key;
    auto member = option.member;
    CLI::Option* declared = app.add_option_function<std::string>(
                                   option.names,
                                   [&target, key, member, currentOrigin](const std::string& value) {
                                     target.*member = value;
                                     target.origin[key] = *currentOrigin;
                                   },
                                   option.help)
                                ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
                                ->type_name(valueNameOf(key));
    if (isGpuOption(key)) declared->group(kGpuSection);
  }
  for (const IgnoredOption& option : kIgnoredOptions) {
    std::string key = option.key;
    std::string warning = option.warning;
    app.add_option_function<std::string>(
           option.names, [&target, key, warning](const std::string&) { target.ignored[key] = warning; },
           option.help)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
        ->type_name(option.valueName)
        ->group(kIgnoredSection);
  }
  app.add_flag_function(
      "-v,--verbose", [&target](int64_t count) { target.verbosity.verbose += static_cast<int>(count); },
      "say more about what happens; repeat for more");
  app.add_flag_callback("-Q,--quiet", [&target] { target.verbosity.quiet = true; },
                        "print no informational lines, only warnings and errors");
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
      "=topo: whole topology blocks, =allocation: whole nodes for the job but not for its steps";
  app.add_flag("--exclusive{exclusive}", exclusiveHelp)
      ->type_name("[=user|mcs|topo]")
      ->each([&target, currentOrigin](const std::string& value) {
        target.exclusive = value;
        target.origin["exclusive"] = *currentOrigin;
      })
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // --nice alone is --nice=100, as in Slurm; a negative value is for
  // root and SlurmUser (the controller checks).
  static const std::string niceHelp = "lower the job's priority by N (default 100; below 0 only for root and SlurmUser)";
  app.add_flag("--nice{100}", niceHelp)
      ->type_name("[=N]")
      ->each([&target, currentOrigin](const std::string& value) {
        target.nice = value;
        target.origin["nice"] = *currentOrigin;
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
  auto scanned = parseWords(scanner, args, OperandOrder::kOptionsFirst);
  if (!scanned) return Error{scanned.error()};
  if (!scanned->usageError.empty() || scanned->helpRequested || firstPass.usage) {
    Submission early;
    early.usageError = scanned->usageError;
    if (scanned->helpRequested) early.helpText = renderHelp(scanner, "sbatch");
    if (firstPass.usage && early.usageError.empty()) early.helpText = renderUsage(scanner, "sbatch");
    return early;
  }
  std::vector<std::string> scriptWords = scanned->operands;

  std::string scriptText;
  std::string defaultName;
  SbatchOptions merged;
  std::map<std::string, std::string> defined;  // for -v: #SBATCH lines, then the command line
  if (firstPass.wrap) {
    if (!scriptWords.empty()) {
      return Error{"--wrap: cannot be combined with a script file ('" + scriptWords.front() + "')"};
    }
    scriptText = wrapCommand(*firstPass.wrap);
    defaultName = "wrap";
  } else {
    // No script named: like sbatch, read it from standard input ("-").
    if (scriptWords.empty()) scriptWords.push_back(kStdinScript);
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
      if (!parsed->usageError.empty()) return Error{origin + ": #SBATCH: " + parsed->usageError};
      if (parsed->helpRequested) return Error{origin + ": #SBATCH: --help is not a directive"};
      collectDefinedOptions(lineParser, defined);
    }
  }

  // Second pass: the command line again, now over the directives.
  CLI::App overrides{"gantry sbatch", "sbatch"};
  declareSbatchOptions(overrides, merged, &commandLine);
  auto reparsed = parseWords(overrides, args, OperandOrder::kOptionsFirst);
  if (!reparsed) return Error{reparsed.error()};

  auto spec = buildJobSpec(merged, context, scriptText, defaultName);
  if (!spec) return Error{spec.error()};
  Submission submission;
  submission.spec = std::move(*spec);
  // The words after the script are its arguments ($1 $2 ...), as in Slurm.
  for (size_t i = 1; i < scriptWords.size(); ++i) submission.spec.add_script_args(scriptWords[i]);
  submission.wait = merged.wait;
  submission.parsable = merged.parsable;
  submission.testOnly = merged.testOnly;
  submission.confDir = merged.confDir.value_or("");
  submission.verbosity = merged.verbosity;
  if (merged.verbosity.verbose > 0) {
    collectDefinedOptions(overrides, defined);
    submission.definedOptions = definedOptionLines(overrides, defined);
  }
  submission.warnings = ignoredOptionWarnings(merged);
  return submission;
}

std::vector<std::string> ignoredOptionWarnings(const SbatchOptions& options) {
  std::vector<std::string> warnings;
  for (const auto& [key, warning] : options.ignored) warnings.push_back(warning);
  // The selection places a job on any free nodes; a job that needs them
  // consecutive should not believe it got that.
  if (options.contiguous) {
    warnings.push_back("--contiguous is accepted, but Gantry does not place the job on consecutive nodes");
  }
  return warnings;
}

}  // namespace gantry::cli
