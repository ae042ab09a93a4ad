#include "cli/srun_options.h"

#include <algorithm>

#include "cli/arg_parsing.h"
#include "cli/defined_options.h"
#include "cli/usage_text.h"

namespace gantry::cli {
namespace {

std::string baseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

void declareInteractiveOptions(CLI::App& app, const std::string& program, SbatchOptions& options,
                               InteractiveInvocation& result, const std::string* origin) {
  declareSbatchOptions(app, options, origin);
  // Taken so that their refusal names them, but not offered in the help.
  for (const char* sbatchOnly : {"--wrap", "--test-only"}) app.get_option(sbatchOnly)->group("");
  // sbatch's alone in Slurm: srun's -W is another option (--wait=<sec>),
  // which Gantry does not have; salloc has no --open-mode, srun no
  // --get-user-env.
  app.remove_option(app.get_option("--wait"));
  app.remove_option(app.get_option("--array"));  // job arrays are batch jobs
  app.remove_option(app.get_option(program == "srun" ? "--get-user-env" : "--open-mode"));
  app.add_flag("-l,--label", result.label, "prefix each output line with its task id");
  app.add_flag("--pty", result.pty, "run one task on a pseudo terminal");
  if (program == "salloc") {
    app.add_flag("--no-shell", result.noShell,
                 "keep the allocation and run nothing; it lasts until its time limit or scancel");
  }
  if (program == "srun") {
    app.add_option_function<std::string>(
           "--jobid",
           [&result](const std::string& value) {
             size_t used = 0;
             try {
               result.jobId = std::stoull(value, &used);
             } catch (const std::exception&) {
               used = 0;
             }
             if (used == 0 || used != value.size() || value.front() == '-' || result.jobId == 0) {
               throw CLI::ValidationError("--jobid", "invalid job id '" + value + "'");
             }
           },
           "run the step in this job's allocation (instead of SLURM_JOB_ID's)")
        ->type_name("id");
    // A step is given only what it asks for already (docs/steps.md),
    // which is what --exact asks; it undoes --exclusive=allocation's whole step.
    app.add_flag("--exact", result.exact,
                 "give the step only the resources it asks for (the default; cancels --exclusive=allocation's "
                 "whole step)");
    app.add_flag("--whole", result.whole, "give the step every CPU the job holds on the step's nodes");
    app.add_flag("--overlap", result.overlap, "share the job's resources with its other steps, both ways");
  }
}

Result<InteractiveInvocation> prepareInteractive(const std::string& program,
                                                 const std::vector<std::string>& args,
                                                 const SubmitContext& context) {
  const std::string origin = "command line";
  SbatchOptions options;
  InteractiveInvocation result;
  CLI::App app{"gantry " + program + ": run a command with an allocation", program};
  declareInteractiveOptions(app, program, options, result, &origin);
  // Everything from the first word that is not an option belongs to the command.
  auto parsed = parseWords(app, args, OperandOrder::kOptionsFirst);
  if (!parsed) return Error{parsed.error()};
  if (!parsed->usageError.empty() || parsed->helpRequested || options.usage) {
    result.usageError = parsed->usageError;
    if (parsed->helpRequested) result.helpText = renderHelp(app, program);
    if (options.usage && result.usageError.empty()) result.helpText = renderUsage(app, program);
    return result;
  }
  result.command = parsed->operands;
  // As Slurm's salloc, --no-shell runs nothing even when a command is named.
  if (result.noShell && !result.command.empty()) {
    result.warnings.push_back("--no-shell: the command '" + result.command.front() + "' is not run");
    result.command.clear();
  }
  result.verbosity = options.verbosity;
  if (result.verbosity.verbose > 0) result.definedOptions = definedOptionLines(app);
  std::vector<std::string> ignored = ignoredOptionWarnings(options);
  result.warnings.insert(result.warnings.begin(), ignored.begin(), ignored.end());
  if (program == "srun" && result.command.empty()) {
    return Error{"no command given: srun [options] command [args...]"};
  }
  if (options.wrap) return Error{"--wrap: only for sbatch"};
  if (options.testOnly) return Error{"--test-only: only for sbatch"};
  if (result.pty && program == "srun") {
    if (options.ntasks && *options.ntasks != "1") {
      return Error{"--pty: runs exactly one task, but -n/--ntasks asks for " + *options.ntasks};
    }
    options.ntasks = "1";
  }
  std::string name = result.noShell           ? "no-shell"  // Slurm's name for such a job
                     : result.command.empty() ? program
                                              : baseName(result.command.front());
  auto spec = buildJobSpec(options, context, "", name);
  if (!spec) return Error{spec.error()};
  result.spec = std::move(*spec);
  std::string exclusive = options.exclusive.value_or("");
  std::transform(exclusive.begin(), exclusive.end(), exclusive.begin(), [](unsigned char c) { return std::tolower(c); });
  result.exclusiveAllocation = exclusive == "allocation";
  result.wholeStep = program == "srun" && (result.exclusiveAllocation || result.whole) && !result.exact;
  if (options.confDir) result.confDir = *options.confDir;
  return result;
}

}  // namespace gantry::cli
