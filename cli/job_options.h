// sbatch's options and how they become a JobSpec. Everything here is pure:
// the script is read through an injected reader and the submitting
// environment arrives as a value, so the whole flow is unit tested.
//
// Options come from two places: #SBATCH lines in the script, then the
// command line, which overrides them. Each value remembers where it was
// given so an error can name the script line or say "command line".
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/util/result.h"
#include "gantry/v1/types.pb.h"

namespace gantry::cli {

// How much a command says besides its work: -v/--verbose (repeatable) adds
// Slurm's verbose lines, -Q/--quiet drops its informational ones (errors
// and warnings stay).
struct Verbosity {
  int verbose = 0;
  bool quiet = false;
  bool informs() const { return !quiet; }
};

// Raw option values as typed; validated when the JobSpec is built.
struct SbatchOptions {
  std::optional<std::string> nodes, ntasks, cpusPerTask, ntasksPerNode, ntasksPerSocket, socketsPerNode, threadSpec, mem, memPerCpu;
  std::optional<std::string> partition, jobName, output, error, input, time, chdir, gpuFreq;
  std::optional<std::string> gres, gpus, gpusPerNode, gpusPerSocket, gpusPerTask;
  std::optional<std::string> cpusPerGpu, memPerGpu, gresFlags, coreSpec, tresPerTask;
  std::optional<std::string> exportSpec, wrap, confDir, priority, gpuBind, network, account, comment;
  // -w/--nodelist and -x/--exclude as typed: a host list expression, or
  // (containing '/') the path of a file of names.
  std::optional<std::string> nodelist, exclude;
  // --tres-bind, -m/--distribution, --signal, --open-mode, as typed.
  std::optional<std::string> tresBind, distribution, signal, openMode;
  std::optional<std::string> dependency, begin;
  std::optional<std::string> array;  // -a/--array as typed (sbatch)
  std::optional<std::string> nice;   // --nice[=N]: "100" when bare
  bool overcommit = false;  // -O/--overcommit
  bool contiguous = false;  // --contiguous
  bool getUserEnv = false;  // --get-user-env (sbatch)
  bool wait = false;        // -W/--wait (sbatch): wait for the job's end
  bool hold = false;
  bool parsable = false;
  // --exclusive: "" when given bare, else its argument (user, mcs, topo).
  std::optional<std::string> exclusive;
  bool testOnly = false;
  bool oversubscribe = false;  // -s/--oversubscribe
  std::optional<bool> requeue;
  Verbosity verbosity;
  bool usage = false;  // --usage: print the short usage and stop
  // Options accepted for Slurm's sake that change nothing here: long name
  // -> the warning the command prints (see docs/compatibility.md).
  std::map<std::string, std::string> ignored;
  // Long option name (without dashes) -> where its value came from,
  // e.g. "job.sh:3" or "command line".
  std::map<std::string, std::string> origin;
};

// Adds every sbatch option to `app`; values land in `target`, and each
// option given records `*currentOrigin` as its origin.
void declareSbatchOptions(CLI::App& app, SbatchOptions& target, const std::string* currentOrigin);

// The warnings for the accepted-and-ignored options given, in name order.
std::vector<std::string> ignoredOptionWarnings(const SbatchOptions& options);

// Reads a script file; the error names the file. The path kStdinScript
// means standard input, used when no script file is named.
inline constexpr const char* kStdinScript = "-";
using ScriptReader = std::function<Result<std::string>(const std::string& path)>;

// What sbatch runs in: the exported environment, the current directory,
// this host's name, and how a -w/-x file of node names is read (unset: a
// value naming a file is refused).
struct SubmitContext {
  std::map<std::string, std::string> environment;
  std::string workDir;
  std::string submitHost;
  ScriptReader readNodeFile = nullptr;
};

struct Submission {
  gantry::v1::JobSpec spec;
  bool parsable = false;
  bool testOnly = false;
  bool wait = false;     // -W/--wait: wait for the job to end, exit with its exit code
  std::string confDir;   // --conf-dir as given (empty when absent)
  std::string helpText;  // non-empty: --help or --usage was given, print it and stop
  // Non-empty: getopt refused the command line (unknown option, missing
  // value); print usageErrorText() and exit with usageExitCode().
  std::string usageError;
  Verbosity verbosity;
  // -v: Slurm's "defined options" block (defined_options.h), from the
  // #SBATCH lines and the command line, each line for "sbatch: ".
  std::vector<std::string> definedOptions;
  std::vector<std::string> warnings;  // one line each, for "sbatch: warning: "
};

// The whole sbatch front end: command line, script, directives -> JobSpec.
// Fails with a message naming the option (and the script line for
// directives) and the rule broken.
Result<Submission> prepareSubmission(const std::vector<std::string>& args,
                                     const SubmitContext& context, const ScriptReader& readScript);

// The JobSpec for merged options; `scriptText` is the batch script and
// `defaultName` the job name when -J is absent (the script's file name,
// "wrap" for --wrap, "sbatch" for a script read from standard input).
Result<gantry::v1::JobSpec> buildJobSpec(const SbatchOptions& options, const SubmitContext& context,
                                         const std::string& scriptText,
                                         const std::string& defaultName);

}  // namespace gantry::cli
