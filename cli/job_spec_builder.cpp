// Merged sbatch options -> JobSpec, with every value checked.
#include <algorithm>
#include <ctime>
#include <set>
#include <sstream>

#include "cli/distribution.h"
#include "cli/job_options.h"
#include "cli/parse_units.h"
#include "cli/sacct_time.h"
#include "common/hostlist/hostlist.h"
#include "cli/signal_option.h"
#include "common/gres/gpu_bind.h"
#include "common/util/task_set.h"

namespace gantry::cli {
namespace {

// Prefixes an error with where the option was given and which it was:
// "job.sh:4: --time: invalid time limit ...".
class OptionErrors {
 public:
  explicit OptionErrors(const SbatchOptions& options) : options_(options) {}

  Error make(const std::string& key, const std::string& message) const {
    auto found = options_.origin.find(key);
    std::string where = found == options_.origin.end() ? "command line" : found->second;
    return Error{where + ": --" + key + ": " + message};
  }

 private:
  const SbatchOptions& options_;
};

std::vector<std::string> splitList(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

// Applies --export: ALL (default) keeps the whole environment, NONE drops
// it, and a list names the variables to pass (VAR or VAR=value), with ALL
// in the list meaning "everything plus these".
// NIL is Slurm's "nothing at all": no variable, and unlike NONE it does not
// imply --get-user-env; Gantry sends none for either.
Result<std::map<std::string, std::string>> exportedEnvironment(
    const std::optional<std::string>& spec, const std::map<std::string, std::string>& environment) {
  if (!spec || *spec == "ALL") return environment;
  if (*spec == "NONE" || *spec == "NIL") return std::map<std::string, std::string>{};
  std::map<std::string, std::string> result;
  std::vector<std::string> items = splitList(*spec, ',');
  for (const std::string& item : items) {
    if (item == "ALL") result = environment;
  }
  for (const std::string& item : items) {
    if (item == "ALL") continue;
    if (item.empty() || item == "NONE" || item == "NIL") {
      return Error{"'" + *spec + "': expected ALL, NONE, NIL, or a list of VAR or VAR=value"};
    }
    size_t eq = item.find('=');
    if (eq == 0) return Error{"'" + item + "': variable name is empty"};
    if (eq != std::string::npos) {
      result[item.substr(0, eq)] = item.substr(eq + 1);
    } else if (auto found = environment.find(item); found != environment.end()) {
      result[item] = found->second;
    }
  }
  return result;
}

// Builds the JobSpec field by field; the first bad value stops it.
class SpecBuilder {
 public:
  SpecBuilder(const SbatchOptions& options, const SubmitContext& context)
      : options_(options), context_(context), errors_(options) {}

  Result<gantry::v1::JobSpec> build(const std::string& scriptText, const std::string& defaultName) {
    spec_.set_script(scriptText);
    spec_.set_name(options_.jobName ? *options_.jobName : defaultName);
    spec_.set_submit_host(context_.submitHost);
    spec_.set_work_dir(workDir());
    if (options_.partition) spec_.set_partition(*options_.partition);
    if (options_.gpuFreq) spec_.set_gpu_freq(*options_.gpuFreq);
    if (options_.gpuBind) {
      if (auto bind = gres::parseGpuBind(*options_.gpuBind); !bind) return errors_.make("gpu-bind", bind.error());
      spec_.set_gpu_bind(*options_.gpuBind);
      // Slurm records --gpu-bind as the job's tres-bind.
      spec_.set_tres_bind("gres/gpu:" + *options_.gpuBind);
    }
    // The controller judges --tres-bind (as Slurm's does), so that
    // scontrol update TresBind= meets the same rules.
    if (options_.tresBind) spec_.set_tres_bind(*options_.tresBind);
    spec_.set_overcommit(options_.overcommit);
    spec_.set_contiguous(options_.contiguous);
    spec_.set_get_user_env(options_.getUserEnv);
    if (options_.output) spec_.set_stdout_pattern(*options_.output);
    if (options_.error) spec_.set_stderr_pattern(*options_.error);
    if (options_.input) spec_.set_stdin_path(*options_.input);
    spec_.set_hold(options_.hold);
    spec_.set_oversubscribe(options_.oversubscribe);
    if (options_.network) spec_.set_network(*options_.network);
    if (options_.account) spec_.set_account(*options_.account);
    if (options_.comment) spec_.set_comment(*options_.comment);
    // The controller reads the dependency, since only it knows the jobs named.
    if (options_.dependency) spec_.set_dependency(*options_.dependency);
    if (options_.nice) {
      auto nice = parseNice(*options_.nice);
      if (!nice) return errors_.make("nice", nice.error());
      spec_.set_nice(*nice);
    }
    // The controller checks the indexes against its MaxArraySize; the
    // form (and Slurm's largest MaxArraySize, 4000001) is checked here, so
    // a typo is named before anything is sent.
    if (options_.array) {
      if (auto parsed = parseArrayOption(*options_.array, 4000001); !parsed) {
        return errors_.make("array", parsed.error());
      }
      spec_.set_array(*options_.array);
    }
    if (options_.begin) {
      auto begin = parseSlurmTime(*options_.begin, static_cast<int64_t>(std::time(nullptr)), TimeSense::Future);
      if (!begin) return errors_.make("begin", begin.error());
      spec_.set_begin_time(*begin);
    }
    if (options_.requeue) {
      spec_.set_requeue(*options_.requeue);
      spec_.set_no_requeue(!*options_.requeue);
    }
    for (auto step : {&SpecBuilder::applyCounts, &SpecBuilder::applyMemory,
                      &SpecBuilder::applyTime, &SpecBuilder::applyGres, &SpecBuilder::applyGpus,
                      &SpecBuilder::applyTresPerTask, &SpecBuilder::applyGresFlags,
                      &SpecBuilder::applyExclusive, &SpecBuilder::applyNodeLists,
                      &SpecBuilder::applyEnvironment, &SpecBuilder::applyDistribution,
                      &SpecBuilder::applySignal, &SpecBuilder::applyOpenMode}) {
      Status status = (this->*step)();
      if (!status) return Error{status.error()};
    }
    return spec_;
  }

 private:
  std::string workDir() const {
    if (!options_.chdir) return context_.workDir;
    if (!options_.chdir->empty() && options_.chdir->front() == '/') return *options_.chdir;
    return context_.workDir + "/" + *options_.chdir;
  }

  // Parses an optional count option into a setter.
  template <typename Setter>
  Status count(const std::optional<std::string>& value, const char* key, Setter set,
               bool allowZero = false) {
    if (!value) return okStatus();
    auto parsed = parseCount(*value, allowZero);
    if (!parsed) return errors_.make(key, parsed.error());
    set(*parsed);
    return okStatus();
  }

  Status applyCounts() {
    if (options_.nodes) {
      auto range = parseNodeRange(*options_.nodes);
      if (!range) return errors_.make("nodes", range.error());
      spec_.set_min_nodes(range->min);
      spec_.set_max_nodes(range->max);
    }
    if (auto s = count(options_.ntasks, "ntasks", [&](int32_t v) { spec_.set_ntasks(v); }); !s) {
      return s;
    }
    if (auto s = count(options_.cpusPerTask, "cpus-per-task",
                       [&](int32_t v) { spec_.set_cpus_per_task(v); });
        !s) {
      return s;
    }
    if (auto s = count(options_.ntasksPerNode, "ntasks-per-node",
                       [&](int32_t v) { spec_.set_ntasks_per_node(v); });
        !s) {
      return s;
    }
    if (auto s = count(options_.threadSpec, "thread-spec", [&](int32_t v) { spec_.set_thread_spec(v); }, true);
        !s) {
      return s;
    }
    if (auto s = count(options_.ntasksPerSocket, "ntasks-per-socket",
                       [&](int32_t v) { spec_.set_ntasks_per_socket(v); });
        !s) {
      return s;
    }
    if (auto s = count(options_.socketsPerNode, "sockets-per-node",
                       [&](int32_t v) { spec_.set_sockets_per_node(v); });
        !s) {
      return s;
    }
    if (auto s = count(options_.cpusPerGpu, "cpus-per-gpu",
                       [&](int32_t v) { spec_.set_cpus_per_gpu(v); });
        !s) {
      return s;
    }
    if (auto s = count(options_.priority, "priority", [&](int32_t v) { spec_.set_priority(v); }, true); !s) {
      return s;
    }
    return count(
        options_.coreSpec, "core-spec", [&](int32_t v) { spec_.set_core_spec(v); }, true);
  }

  Status applyMemory() {
    int given = (options_.mem ? 1 : 0) + (options_.memPerCpu ? 1 : 0) + (options_.memPerGpu ? 1 : 0);
    if (given > 1) {
      const char* key = options_.memPerGpu ? "mem-per-gpu" : "mem-per-cpu";
      return errors_.make(key, "--mem, --mem-per-cpu and --mem-per-gpu are mutually exclusive");
    }
    struct MemoryOption {
      const std::optional<std::string>& value;
      const char* key;
      void (gantry::v1::JobSpec::*set)(uint64_t);
    };
    for (const MemoryOption& option :
         {MemoryOption{options_.mem, "mem", &gantry::v1::JobSpec::set_mem_per_node_mb},
          MemoryOption{options_.memPerCpu, "mem-per-cpu", &gantry::v1::JobSpec::set_mem_per_cpu_mb},
          MemoryOption{options_.memPerGpu, "mem-per-gpu",
                       &gantry::v1::JobSpec::set_mem_per_gpu_mb}}) {
      if (!option.value) continue;
      auto mb = parseMemoryMb(*option.value);
      if (!mb) return errors_.make(option.key, mb.error());
      (spec_.*option.set)(*mb);
    }
    return okStatus();
  }

  Status applyTime() {
    if (!options_.time) return okStatus();
    auto seconds = parseTimeLimitSeconds(*options_.time);
    if (!seconds) return errors_.make("time", seconds.error());
    if (*seconds == kUnlimitedSeconds) {
      spec_.set_time_limit_minutes(kUnlimitedMinutes);
    } else {
      spec_.set_time_limit_minutes((*seconds + 59) / 60);
      spec_.set_time_limit_seconds(*seconds);
    }
    return okStatus();
  }

  Status applyGres() {
    if (!options_.gres) return okStatus();
    auto items = parseGresList(*options_.gres);
    if (!items) return errors_.make("gres", items.error());
    for (const GresItem& item : *items) {
      auto* request = spec_.add_gres();
      request->set_name(item.name);
      request->set_type(item.type);
      request->set_count(item.count);
    }
    return okStatus();
  }

  // Records a GPU type; every GPU option that names one must agree.
  Status noteGpuType(const std::string& type, const char* key) {
    if (type.empty()) return okStatus();
    if (!gpuType_.empty() && gpuType_ != type) {
      return errors_.make(key, "GPU type '" + type + "' conflicts with type '" + gpuType_ +
                                   "' from --" + gpuTypeKey_);
    }
    gpuType_ = type;
    gpuTypeKey_ = key;
    spec_.set_gpu_type(type);
    return okStatus();
  }

  Status applyGpus() {
    struct GpuOption {
      const std::optional<std::string>& value;
      const char* key;
      void (gantry::v1::JobSpec::*set)(int32_t);
    };
    for (const GpuOption& option :
         {GpuOption{options_.gpus, "gpus", &gantry::v1::JobSpec::set_gpus},
          GpuOption{options_.gpusPerNode, "gpus-per-node", &gantry::v1::JobSpec::set_gpus_per_node},
          GpuOption{options_.gpusPerSocket, "gpus-per-socket",
                    &gantry::v1::JobSpec::set_gpus_per_socket},
          GpuOption{options_.gpusPerTask, "gpus-per-task",
                    &gantry::v1::JobSpec::set_gpus_per_task}}) {
      if (!option.value) continue;
      auto gpus = parseGpuCount(*option.value);
      if (!gpus) return errors_.make(option.key, gpus.error());
      if (auto s = noteGpuType(gpus->type, option.key); !s) return s;
      (spec_.*option.set)(gpus->count);
    }
    return okStatus();
  }

  // --tres-per-task=gres/gpu[:type]=N, gres/gpu[:type]:N, cpu=N (comma list).
  Status applyTresPerTask() {
    if (!options_.tresPerTask) return okStatus();
    const std::string usage = "expected gres/gpu=N, gres/gpu:N, gres/gpu:TYPE=N or cpu=N";
    for (const std::string& item : splitList(*options_.tresPerTask, ',')) {
      std::string name = item;
      std::string value;
      if (size_t eq = item.find('='); eq != std::string::npos) {
        name = item.substr(0, eq);
        value = item.substr(eq + 1);
      } else if (size_t colon = item.rfind(':'); colon != std::string::npos) {
        name = item.substr(0, colon);
        value = item.substr(colon + 1);
      }
      auto amount = parseCount(value);
      if (value.empty() || !amount) {
        return errors_.make("tres-per-task", "'" + item + "': " + usage);
      }
      if (name == "cpu") {
        if (options_.cpusPerTask) {
          return errors_.make("tres-per-task", "cpu= conflicts with --cpus-per-task");
        }
        spec_.set_cpus_per_task(*amount);
      } else if (name == "gres/gpu" || name.rfind("gres/gpu:", 0) == 0) {
        if (options_.gpusPerTask) {
          return errors_.make("tres-per-task", "gres/gpu conflicts with --gpus-per-task");
        }
        std::string type = name == "gres/gpu" ? "" : name.substr(9);
        if (auto s = noteGpuType(type, "tres-per-task"); !s) return s;
        spec_.set_gpus_per_task(*amount);
      } else {
        return errors_.make("tres-per-task", "'" + item + "': unsupported TRES; " + usage);
      }
    }
    return okStatus();
  }

  Status applyGresFlags() {
    if (!options_.gresFlags) return okStatus();
    static const std::set<std::string> kKnown = {"enforce-binding", "enforce-links",
                                                 "ignore-links"};
    std::set<std::string> seen;
    for (const std::string& flag : splitList(*options_.gresFlags, ',')) {
      if (!kKnown.count(flag)) {
        return errors_.make("gres-flags", "unknown flag '" + flag +
                                              "': expected enforce-binding, enforce-links or "
                                              "ignore-links");
      }
      if (seen.insert(flag).second) spec_.add_gres_flags(flag);
    }
    if (seen.count("enforce-links") && seen.count("ignore-links")) {
      return errors_.make("gres-flags", "enforce-links and ignore-links are mutually exclusive");
    }
    return okStatus();
  }

  // --exclusive alone or with user, mcs or topo (any case). Plain and topo
  // take whole nodes; user and mcs share nodes with the allowed jobs.
  Status applyExclusive() {
    if (!options_.exclusive) return okStatus();
    if (options_.oversubscribe) {
      return errors_.make("exclusive", "--exclusive and --oversubscribe are mutually exclusive");
    }
    std::string mode = *options_.exclusive;
    std::transform(mode.begin(), mode.end(), mode.begin(), [](unsigned char c) { return std::tolower(c); });
    if (mode == "exclusive" || mode == "allocation") {
      // allocation: whole nodes for the job; what it means for srun's step
      // is srun's (srun_options.cpp).
      spec_.set_exclusive(true);
    } else if (mode == "topo") {
      spec_.set_exclusive(true);
      spec_.set_exclusive_mode(mode);
    } else if (mode == "user" || mode == "mcs") {
      spec_.set_exclusive_mode(mode);
    } else {
      return errors_.make("exclusive", "invalid value '" + *options_.exclusive +
                                           "': expected --exclusive alone, or =user, =mcs, =topo or =allocation");
    }
    return okStatus();
  }

  // The names of a -w/-x value: a host list expression, or (with a '/' in
  // it, as Slurm reads it) a file of names, any number a line, '#' starting
  // a comment.
  Result<std::vector<std::string>> nodeNames(const std::string& value, const char* key) const {
    std::string text = value;
    if (value.find('/') != std::string::npos) {
      if (!context_.readNodeFile) return errors_.make(key, "cannot read the node file '" + value + "' here");
      auto content = context_.readNodeFile(value);
      if (!content) return errors_.make(key, content.error());
      text.clear();
      for (const std::string& line : splitList(*content, '\n')) text += line.substr(0, line.find('#')) + "\n";
    }
    auto names = hostlist::expand(text);
    if (!names) return errors_.make(key, "Invalid node list specified: " + names.error());
    if (names->empty()) return errors_.make(key, "'" + value + "' names no node");
    return names;
  }

  // -w/--nodelist and -x/--exclude, sent compressed. Without -N the list's
  // size is the node count, as Slurm's commands set it.
  Status applyNodeLists() {
    if (options_.nodelist) {
      auto names = nodeNames(*options_.nodelist, "nodelist");
      if (!names) return Error{names.error()};
      std::set<std::string> distinct(names->begin(), names->end());
      spec_.set_required_nodes(hostlist::compress(*names));
      if (!options_.nodes) spec_.set_min_nodes(static_cast<int32_t>(distinct.size()));
    }
    if (options_.exclude) {
      auto names = nodeNames(*options_.exclude, "exclude");
      if (!names) return Error{names.error()};
      spec_.set_excluded_nodes(hostlist::compress(*names));
    }
    return okStatus();
  }

  Status applyEnvironment() {
    auto environment = exportedEnvironment(options_.exportSpec, context_.environment);
    if (!environment) return errors_.make("export", environment.error());
    spec_.mutable_environment()->insert(environment->begin(), environment->end());
    return okStatus();
  }

  // After applyEnvironment: the variables are the steps' whatever --export says.
  Status applyDistribution() {
    if (!options_.distribution) return okStatus();
    auto distribution = parseDistribution(*options_.distribution);
    if (!distribution) return errors_.make("distribution", distribution.error());
    spec_.set_distribution(distribution->name);
    auto& environment = *spec_.mutable_environment();
    environment["SLURM_DISTRIBUTION"] = distribution->name;
    if (distribution->planeSize > 0) {
      environment["SLURM_DIST_PLANESIZE"] = std::to_string(distribution->planeSize);
    }
    return okStatus();
  }

  Status applySignal() {
    if (!options_.signal) return okStatus();
    auto warn = parseWarnSignal(*options_.signal);
    if (!warn) return errors_.make("signal", warn.error());
    spec_.set_warn_signal(warn->signal);
    spec_.set_warn_time_seconds(warn->seconds);
    spec_.set_warn_flags(warn->flags);
    return okStatus();
  }

  // Slurm reads only the first letter, in any case.
  Status applyOpenMode() {
    if (!options_.openMode) return okStatus();
    char first = options_.openMode->empty() ? '\0' : static_cast<char>(std::tolower(
                                                          static_cast<unsigned char>(options_.openMode->front())));
    if (first != 'a' && first != 't') {
      return errors_.make("open-mode", "invalid value '" + *options_.openMode + "': expected append or truncate");
    }
    spec_.set_open_mode(first == 'a' ? "append" : "truncate");
    return okStatus();
  }

  const SbatchOptions& options_;
  const SubmitContext& context_;
  OptionErrors errors_;
  gantry::v1::JobSpec spec_;
  std::string gpuType_;
  std::string gpuTypeKey_;
};

}  // namespace

Result<gantry::v1::JobSpec> buildJobSpec(const SbatchOptions& options, const SubmitContext& context,
                                         const std::string& scriptText,
                                         const std::string& defaultName) {
  return SpecBuilder(options, context).build(scriptText, defaultName);
}

}  // namespace gantry::cli
