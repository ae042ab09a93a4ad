#include "cli/scontrol_render.h"

#include <algorithm>
#include <set>

#include "cli/job_fields.h"
#include "cli/time_format.h"
#include "common/gres/index_list.h"

namespace gantry::cli {
namespace {

// Collects "Key=Value" pairs into lines: the first line flush left, the
// rest indented by three spaces.
class Record {
 public:
  Record& add(const std::string& key, const std::string& value) {
    if (!current_.empty()) current_ += " ";
    current_ += key + "=" + value;
    return *this;
  }
  Record& addIf(bool condition, const std::string& key, const std::string& value) {
    return condition ? add(key, value) : *this;
  }
  // Ends the current line.
  Record& next() {
    if (!current_.empty()) lines_.push_back(current_);
    current_.clear();
    return *this;
  }
  // A line printed as it is (detail lines carry their own indentation).
  Record& raw(const std::string& line) {
    next();
    rawLines_.insert(lines_.size());
    lines_.push_back(line);
    return *this;
  }
  std::string str() {
    next();
    std::string out;
    for (size_t i = 0; i < lines_.size(); ++i) {
      if (i > 0 && !rawLines_.count(i)) out += "   ";
      out += lines_[i] + "\n";
    }
    return out;
  }

 private:
  std::vector<std::string> lines_;
  std::set<size_t> rawLines_;
  std::string current_;
};

// scontrol pads configuration keys to this width so the '=' signs align.
constexpr size_t kConfigKeyWidth = 23;

std::string orNull(const std::string& text) { return text.empty() ? "(null)" : text; }

// The job's sharing as scontrol prints it: NO for whole nodes, USER, MCS or
// TOPO for the --exclusive forms, YES for -s/--oversubscribe, OK otherwise.
std::string overSubscribeOf(const gantry::v1::JobSpec& spec) {
  std::string mode = spec.exclusive_mode();
  std::transform(mode.begin(), mode.end(), mode.begin(), [](unsigned char c) { return std::toupper(c); });
  if (!mode.empty()) return mode;
  if (spec.exclusive()) return "NO";
  return spec.oversubscribe() ? "YES" : "OK";
}

std::string yesNo(bool value) { return value ? "YES" : "NO"; }

std::string limitLong(int64_t minutes, const std::string& zeroWord) {
  if (minutes < 0) return "UNLIMITED";
  if (minutes == 0) return zeroWord;
  return formatElapsedLong(minutes * 60);
}

// stdout/stderr paths as scontrol shows them: the pattern with %j, %A,
// %a (a task's), %u and %x filled in, relative paths under the work
// directory.
std::string ioPath(const gantry::v1::Job& job, std::string pattern) {
  if (pattern.empty()) pattern = job.array_job_id() != 0 ? "slurm-%A_%a.out" : "slurm-%j.out";
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      char code = pattern[i + 1];
      if (code == 'j' || code == 'A') {
        out += std::to_string(code == 'A' && job.array_job_id() != 0 ? job.array_job_id() : job.job_id());
        ++i;
        continue;
      }
      if (code == 'a' && job.has_array_task_id()) {
        out += std::to_string(job.array_task_id());
        ++i;
        continue;
      }
      if (code == 'u') {
        out += job.user();
        ++i;
        continue;
      }
      if (code == 'x') {
        out += job.spec().name();
        ++i;
        continue;
      }
      if (code == '%') {
        out += '%';
        ++i;
        continue;
      }
    }
    out += pattern[i];
  }
  if (!out.empty() && out.front() != '/' && !job.spec().work_dir().empty()) {
    out = job.spec().work_dir() + "/" + out;
  }
  return out;
}

std::string gpuTres(const gantry::v1::JobSpec& spec, int64_t count, char countSeparator = ':') {
  std::string tres = "gres/gpu";
  if (!spec.gpu_type().empty()) tres += ":" + spec.gpu_type();
  return tres + countSeparator + std::to_string(count);
}

// --tres-bind as given, else --gpu-bind in its TRES form, as Slurm keeps it.
std::string tresBindOf(const gantry::v1::JobSpec& spec) {
  if (!spec.tres_bind().empty()) return spec.tres_bind();
  if (!spec.gpu_bind().empty()) return "gres/gpu:" + spec.gpu_bind();
  return "";
}

bool hasFlag(const gantry::v1::JobSpec& spec, const std::string& flag) {
  for (const auto& f : spec.gres_flags()) {
    if (f == flag) return true;
  }
  return false;
}

std::string idWithName(const std::string& name, uint32_t id) {
  return (name.empty() ? std::to_string(id) : name) + "(" + std::to_string(id) + ")";
}

// A -d line for one node of an allocation (a job's or a step's).
std::string allocationLine(const gantry::v1::NodeAllocation& node) {
  std::vector<int> cores(node.cores().begin(), node.cores().end());
  std::string line = "     Nodes=" + node.node() + " CPU_IDs=" + gres::formatIndexList(cores) +
                     " Mem=" + std::to_string(node.memory_mb());
  // GRES= even when empty, as Slurm writes it (tools split the line on it).
  return line + " GRES=" + node.gres();
}

// The step's trackable resources as Slurm lists them: cpu, mem, node.
std::string stepTres(const gantry::v1::JobStep& step) {
  uint64_t memoryMb = 0;
  for (const auto& node : step.allocation()) memoryMb += node.memory_mb();
  std::string tres = "cpu=" + std::to_string(stepCpuCount(step));
  if (memoryMb > 0) tres += ",mem=" + std::to_string(memoryMb) + "M";
  return tres + ",node=" + std::to_string(stepNodeCount(step));
}

}  // namespace

std::string renderJob(const gantry::v1::Job& job, const RenderOptions& options) {
  const auto& spec = job.spec();
  std::string group =
      options.groupName ? options.groupName(job.gid()) : std::to_string(job.gid());
  Record r;
  r.add("JobId", std::to_string(job.job_id()));
  if (job.array_job_id() != 0) {
    // As Slurm: the pending part's task list, else this task's index.
    r.add("ArrayJobId", std::to_string(job.array_job_id()))
        .add("ArrayTaskId", job.has_array_task_id() ? std::to_string(job.array_task_id()) : job.array_pending());
    if (job.array_throttle() > 0) r.add("ArrayTaskThrottle", std::to_string(job.array_throttle()));
  }
  r.add("JobName", spec.name()).next();
  if (options.details && !job.sluid().empty()) r.add("SLUID", job.sluid()).next();
  r.add("UserId", idWithName(job.user(), job.uid()))
      .add("GroupId", group + "(" + std::to_string(job.gid()) + ")")
      .next();
  r.add("Priority", std::to_string(job.priority() != 0 ? job.priority() : static_cast<uint32_t>(spec.priority())))
      .add("Nice", std::to_string(spec.nice()))
      .next();
  r.add("JobState", jobStateName(job))
      .add("Reason", jobReason(job))
      .add("Dependency", orNull(job.dependency()))
      .next();
  r.add("Requeue", spec.no_requeue() ? "0" : "1")
      .add("Restarts", std::to_string(job.restart_count()))
      .add("BatchFlag", job.batch_flag() ? "1" : "0")
      .add("ExitCode", std::to_string(job.exit_code()) + ":" + std::to_string(job.term_signal()))
      .next();
  r.add("RunTime", formatElapsedLong(jobRunSeconds(job, options.now)))
      .add("TimeLimit", limitLong(job.time_limit_minutes(), "NONE"))
      .next();
  r.add("SubmitTime", formatTimestamp(job.submit_time(), "Unknown"))
      .add("EligibleTime", formatTimestamp(job.eligible_time(), "Unknown"))
      .next();
  r.add("StartTime", formatTimestamp(job.start_time(), "Unknown"))
      .add("EndTime", formatTimestamp(job.end_time(), "Unknown"))
      .next();
  r.add("SuspendTime", formatTimestamp(job.suspend_time(), "None"))
      .add("SecsPreSuspend", std::to_string(job.pre_suspend_seconds()))
      .next();
  r.add("Partition", orNull(spec.partition())).next();
  r.add("ReqNodeList", orNull(spec.required_nodes())).add("ExcNodeList", orNull(spec.excluded_nodes())).next();
  r.add("NodeList", orNull(job.node_list())).next();
  r.addIf(!job.batch_host().empty(), "BatchHost", job.batch_host()).next();
  r.add("NumNodes", std::to_string(jobNodeCount(job)))
      .add("NumCPUs", std::to_string(jobCpuCount(job)))
      .add("NumTasks", std::to_string(std::max(spec.ntasks(), 1)))
      .add("CPUs/Task", std::to_string(std::max(spec.cpus_per_task(), 1)))
      .next();
  // The controller fills both when asked (scontrol asks); a record read
  // from elsewhere may carry neither.
  if (!job.req_tres().empty()) {
    r.add("ReqTRES", job.req_tres()).next();
    r.add("AllocTRES", orNull(job.alloc_tres())).next();
  }
  std::string perSocket = spec.ntasks_per_socket() > 0 ? std::to_string(spec.ntasks_per_socket()) : "*";
  r.add("NtasksPerN:B:S:C", std::to_string(spec.ntasks_per_node()) + ":0:" + perSocket + ":*")
      .add("CoreSpec", spec.core_spec() > 0 ? std::to_string(spec.core_spec()) : "*")
      .next();
  if (options.details) {
    for (const auto& node : job.allocation()) r.raw(allocationLine(node));
  }
  if (spec.mem_per_cpu_mb() > 0) {
    r.add("MinMemoryCPU", std::to_string(spec.mem_per_cpu_mb()) + "M");
  } else {
    r.add("MinMemoryNode", std::to_string(spec.mem_per_node_mb()) + "M");
  }
  r.next();
  r.add("OverSubscribe", overSubscribeOf(spec)).next();
  // Slurm prints it on OverSubscribe's line; here it has its own so that
  // the OverSubscribe line reads as before.
  r.add("Contiguous", spec.contiguous() ? "1" : "0").next();
  r.addIf(!spec.network().empty(), "Network", spec.network()).next();
  r.add("WorkDir", orNull(spec.work_dir())).next();
  r.add("StdErr", ioPath(job, spec.stderr_pattern().empty() ? spec.stdout_pattern()
                                                               : spec.stderr_pattern()))
      .next();
  r.add("StdIn", spec.stdin_path().empty() ? "/dev/null" : spec.stdin_path()).next();
  r.add("StdOut", ioPath(job, spec.stdout_pattern())).next();
  std::string perNode = jobTresPerNode(job);
  r.addIf(!perNode.empty(), "TresPerNode", perNode).next();
  r.addIf(spec.gpus() > 0, "TresPerJob", gpuTres(spec, spec.gpus())).next();
  r.addIf(spec.gpus_per_socket() > 0, "TresPerSocket", gpuTres(spec, spec.gpus_per_socket())).next();
  // Slurm 24.05 and later write the per-task TRES with '=' (as in cpu=N).
  r.addIf(spec.gpus_per_task() > 0, "TresPerTask", gpuTres(spec, spec.gpus_per_task(), '=')).next();
  r.addIf(spec.cpus_per_gpu() > 0, "CpusPerTres", "gres/gpu:" + std::to_string(spec.cpus_per_gpu()))
      .next();
  r.addIf(spec.mem_per_gpu_mb() > 0, "MemPerTres",
          "gres/gpu:" + std::to_string(spec.mem_per_gpu_mb()))
      .next();
  std::string tresBind = tresBindOf(spec);
  r.addIf(!tresBind.empty(), "TresBind", tresBind).next();
  r.addIf(!spec.gpu_freq().empty(), "TresFreq", "gpu:" + spec.gpu_freq()).next();
  r.addIf(hasFlag(spec, "enforce-binding"), "GresEnforceBind", "Yes")
      .addIf(hasFlag(spec, "enforce-links"), "GresEnforceLinks", "Yes")
      .addIf(hasFlag(spec, "ignore-links"), "GresIgnoreLinks", "Yes");
  return r.str();
}

std::string renderStep(const StepRow& row, const RenderOptions& options) {
  const auto& step = row.step;
  Record r;
  r.add("StepId", stepIdText(row))
      .add("UserId", idWithName(row.user, row.uid))
      .add("StartTime", formatTimestamp(step.start_time(), "Unknown"))
      .add("TimeLimit", "UNLIMITED")
      .next();
  r.add("State", stepStateName(step))
      .add("Partition", orNull(row.partition))
      .add("NodeList", orNull(step.node_list()))
      .next();
  r.add("Nodes", std::to_string(stepNodeCount(step)))
      .add("CPUs", std::to_string(stepCpuCount(step)))
      .add("Tasks", std::to_string(step.ntasks()))
      .add("Name", orNull(step.name()))
      .next();
  r.add("TRES", stepTres(step)).next();
  if (!step.running()) {
    r.add("EndTime", formatTimestamp(step.end_time(), "Unknown"))
        .add("ExitCode", std::to_string(step.exit_code()))
        .addIf(!step.message().empty(), "Reason", step.message())
        .next();
  }
  if (options.details) {
    for (const auto& node : step.allocation()) r.raw(allocationLine(node));
  }
  return r.str();
}

std::string renderNode(const gantry::v1::Node& node, const RenderOptions& options) {
  Record r;
  r.add("NodeName", node.name()).add("CoresPerSocket", std::to_string(node.cores_per_socket())).next();
  r.add("CPUAlloc", std::to_string(node.alloc_cpus())).add("CPUTot", std::to_string(node.cpus())).next();
  std::string features;
  for (const auto& f : node.features()) features += (features.empty() ? "" : ",") + f;
  r.add("AvailableFeatures", orNull(features)).next();
  r.add("ActiveFeatures", orNull(features)).next();
  r.add("Gres", orNull(node.gres())).next();
  if (!node.restricted_cores_per_gpu().empty()) r.add("RestrictedCoresPerGPU", node.restricted_cores_per_gpu()).next();
  // Per-device drains: the limit only when configured, the list only when
  // something is drained.
  if (!node.max_drained_tres().empty()) r.add("MaxDrainedTres", node.max_drained_tres()).next();
  if (!node.drained_tres().empty()) r.add("DrainedTRES", node.drained_tres()).next();
  if (options.details) r.add("GresUsed", orNull(node.gres_used())).next();
  // Registered hardware (-d): chunk layouts only on chunked nodes, as the
  // spec asks, then one line per registered GRES record in index order.
  if (options.details && !node.gres_chunks().empty()) r.add("GresChunks", node.gres_chunks()).next();
  if (options.details) {
    for (const auto& device : node.gres_devices()) r.add("GresDevice", device).next();
  }
  r.add("NodeAddr", node.addr().empty() ? node.name() : node.addr())
      .addIf(node.port() > 0, "Port", std::to_string(node.port()))
      .next();
  r.add("RealMemory", std::to_string(node.real_memory_mb()))
      .add("AllocMem", std::to_string(node.alloc_memory_mb()))
      .add("Sockets", std::to_string(node.sockets()))
      .add("Boards", std::to_string(node.boards()))
      .next();
  r.add("State", node.state().empty() ? "UNKNOWN" : node.state())
      .add("ThreadsPerCore", std::to_string(node.threads_per_core()))
      .add("TmpDisk", std::to_string(node.tmp_disk_mb()))
      .add("Weight", std::to_string(node.weight()))
      .next();
  std::string partitions;
  for (const auto& p : node.partitions()) partitions += (partitions.empty() ? "" : ",") + p;
  r.addIf(!partitions.empty(), "Partitions", partitions).next();
  r.add("SlurmdStartTime", formatTimestamp(node.agent_start_time(), "None")).next();
  r.add("LastBusyTime", formatTimestamp(node.last_busy_time(), "None")).next();
  r.add("CfgTRES", node.cfg_tres()).next();
  r.add("AllocTRES", node.alloc_tres()).next();
  if (!node.reason().empty()) {
    std::string reason = node.reason();
    if (!node.reason_user().empty() || node.reason_time() != 0) {
      reason += " [" + (node.reason_user().empty() ? std::string("Unknown") : node.reason_user()) +
                "@" + formatTimestamp(node.reason_time(), "Unknown") + "]";
    }
    r.add("Reason", reason);
  }
  return r.str();
}

std::string renderPartition(const gantry::v1::Partition& partition, const RenderOptions&) {
  Record r;
  r.add("PartitionName", partition.name()).next();
  r.add("Default", yesNo(partition.is_default()))
      .add("DefaultTime", limitLong(partition.default_time_minutes(), "NONE"))
      .next();
  r.add("MaxNodes",
        partition.max_nodes() < 0 ? "UNLIMITED" : std::to_string(partition.max_nodes()))
      .add("MaxTime", limitLong(partition.max_time_minutes(), "NONE"))
      .next();
  r.add("Nodes", orNull(partition.nodes())).next();
  r.add("PriorityTier", std::to_string(partition.priority_tier()))
      .add("OverSubscribe", partition.over_subscribe().empty() ? "NO" : partition.over_subscribe())
      .next();
  r.add("PreemptMode", partition.preempt_mode().empty() ? "OFF" : partition.preempt_mode()).next();
  r.add("State", partition.state().empty() ? "UP" : partition.state())
      .add("TotalCPUs", std::to_string(partition.total_cpus()))
      .add("TotalNodes", std::to_string(partition.total_nodes()))
      .next();
  r.add("TRES", orNull(partition.tres()));
  return r.str();
}

std::string renderConfig(const std::vector<gantry::v1::ConfigEntry>& entries,
                         const RenderOptions& options) {
  std::string out = "Configuration data as of " + formatTimestamp(options.now, "Unknown") + "\n";
  for (const auto& entry : entries) {
    std::string key = entry.key();
    if (key.size() < kConfigKeyWidth) key.resize(kConfigKeyWidth, ' ');
    out += key + " = " + entry.value() + "\n";
  }
  return out;
}

std::string oneLineRecord(const std::string& record) {
  std::string out;
  size_t start = 0;
  while (start < record.size()) {
    size_t end = record.find('\n', start);
    if (end == std::string::npos) end = record.size();
    size_t text = record.find_first_not_of(' ', start);
    if (text != std::string::npos && text < end) {
      if (!out.empty()) out += ' ';
      out.append(record, text, end - text);
    }
    start = end + 1;
  }
  return out + "\n";
}

std::string joinRecords(const std::vector<std::string>& records, bool oneLiner) {
  std::string out;
  for (size_t i = 0; i < records.size(); ++i) {
    if (oneLiner) {
      out += oneLineRecord(records[i]);
      continue;
    }
    if (i > 0) out += "\n";
    out += records[i];
  }
  return out;
}

}  // namespace gantry::cli
