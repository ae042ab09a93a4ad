#include "controller/core/accounting_view.h"

#include <algorithm>

#include "common/accounting/tres_usage_format.h"
#include "controller/core/core_helpers.h"

namespace gantry::core {
namespace {

// sacct shows a job that is being set up as running.
std::string accountingState(JobState state) {
  if (state == JobState::Configuring) return "RUNNING";
  return std::string(toString(state));
}

// How a step ended. One cut short by its job's end (it ended when the job
// did) was cancelled when the job was cancelled or ran out of time, and
// failed when the job lost its node; any other ended by its own exit.
std::string endedStepState(const JobRecord& job, bool cutShort, int exitCode, int signal) {
  if (cutShort) {
    switch (job.state) {
      case JobState::Cancelled:
      case JobState::Timeout: return "CANCELLED";
      case JobState::NodeFail: return "FAILED";
      default: break;
    }
  }
  return exitCode == 0 && signal == 0 ? "COMPLETED" : "FAILED";
}

int64_t runSubmitTime(const JobRecord& job) { return job.requeueTime != 0 ? job.requeueTime : job.submitTime; }

accounting::TresUsageIn usageText(const std::vector<accounting::TaskUsageSample>& samples,
                                  const accounting::TrackedTres& tracked) {
  if (samples.empty()) return {};
  accounting::StepTresUsage usage = accounting::stepTresUsage(samples, tracked);
  return {.min = accounting::formatTresValues(usage.min),
          .minNode = accounting::formatTresNodes(usage.min),
          .minTask = accounting::formatTresTasks(usage.min),
          .max = accounting::formatTresValues(usage.max),
          .maxNode = accounting::formatTresNodes(usage.max),
          .maxTask = accounting::formatTresTasks(usage.max),
          .ave = accounting::formatTresValues(usage.ave),
          .tot = accounting::formatTresValues(usage.tot)};
}

void addGres(std::map<std::string, uint64_t>& counts, const std::string& name, const std::string& type,
             uint64_t amount) {
  if (amount == 0) return;
  counts["gres/" + name] += amount;
  if (!type.empty()) counts["gres/" + name + ":" + type] += amount;
}

// The grants on the named nodes only (the batch host's).
select::Allocation grantsOn(const select::Allocation& allocation, const std::vector<std::string>& names,
                            const std::string& wanted) {
  select::Allocation out;
  out.owner = allocation.owner;
  for (size_t i = 0; i < allocation.nodes.size() && i < names.size(); ++i) {
    if (names[i] == wanted) out.nodes.push_back(allocation.nodes[i]);
  }
  return out;
}

// Devices of one name and type come in runs (a node's GPUs are alike):
// a run is one entry.
void countGres(std::vector<HeldTres::Gres>& gres, const std::string& name, const std::string& type, uint64_t count) {
  if (count == 0) return;
  if (!gres.empty() && gres.back().name == name && gres.back().type == type) {
    gres.back().count += count;
    return;
  }
  gres.push_back({.name = name, .type = type, .count = count});
}

}  // namespace

namespace {

void appendTres(std::string& out, const std::string& name, uint64_t value) {
  if (!out.empty()) out += ',';
  out += name + "=";
  if (name == "mem") {
    constexpr uint64_t kG = 1024, kT = 1024 * 1024;
    if (value != 0 && value % kT == 0) out += std::to_string(value / kT) + "T";
    else if (value != 0 && value % kG == 0) out += std::to_string(value / kG) + "G";
    else out += std::to_string(value) + "M";
  } else {
    out += std::to_string(value);
  }
}

}  // namespace

std::string tresText(const std::map<std::string, uint64_t>& counts) {
  std::string out;
  for (const auto& [name, value] : counts) appendTres(out, name, value);
  return out;
}

std::string tresTextInIdOrder(const std::map<std::string, uint64_t>& counts) {
  static const std::vector<std::string> kBuiltIn = {"cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem",
                                                    "pages"};
  std::string out;
  for (const std::string& name : kBuiltIn) {
    if (auto it = counts.find(name); it != counts.end()) appendTres(out, name, it->second);
  }
  for (const auto& [name, value] : counts) {
    if (std::find(kBuiltIn.begin(), kBuiltIn.end(), name) == kBuiltIn.end()) appendTres(out, name, value);
  }
  return out;
}

std::map<std::string, uint64_t> configuredTresCounts(const config::NodeConf& node) {
  std::map<std::string, uint64_t> counts;
  counts["cpu"] = static_cast<uint64_t>(node.cpus);
  counts["billing"] = static_cast<uint64_t>(node.cpus);
  if (node.realMemoryMb != 0) counts["mem"] = node.realMemoryMb;
  for (const auto& gres : node.gres) addGres(counts, gres.name, gres.type, gres.count);
  return counts;
}

HeldTres heldTresOf(const select::Allocation& allocation, const select::Cluster& cluster) {
  HeldTres held;
  for (const auto& grant : allocation.nodes) {
    if (grant.node < 0 || grant.node >= cluster.nodeCount()) continue;
    const select::NodeInfo& info = cluster.node(grant.node);
    held.nodes += 1;
    held.cpus += static_cast<uint32_t>(detail::cpusOf(grant, info));
    held.memoryMb += grant.memoryMb;
    for (int device : grant.devices) {
      if (device < 0 || device >= static_cast<int>(info.devices.size())) continue;
      countGres(held.gres, info.devices[device].name, info.devices[device].type, 1);
    }
    for (const auto& share : grant.shares) countGres(held.gres, share.name, "", share.count);
    for (const auto& [key, amount] : grant.countGres) {
      auto colon = key.find(':');
      countGres(held.gres, key.substr(0, colon), colon == std::string::npos ? "" : key.substr(colon + 1), amount);
    }
  }
  return held;
}

std::map<std::string, uint64_t> heldTresCounts(const HeldTres& held) {
  std::map<std::string, uint64_t> counts;
  if (held.nodes == 0) return counts;
  counts["cpu"] = held.cpus;
  counts["billing"] = held.cpus;
  counts["node"] = held.nodes;
  if (held.memoryMb != 0) counts["mem"] = held.memoryMb;
  for (const auto& gres : held.gres) addGres(counts, gres.name, gres.type, gres.count);
  return counts;
}

JobHeldTres jobHeldTresOf(const JobRecord& job, const select::Cluster& cluster) {
  JobHeldTres held;
  if (job.nodeNames.empty()) return held;
  held.job = heldTresOf(job.allocation, cluster);
  // Steps are recorded once the job has started (accountingRecordsOf).
  if (job.startTime == 0) return held;
  if (job.isBatch()) {
    held.batchHost = job.nodeNames.size() == 1 ? held.job
                                               : heldTresOf(grantsOn(job.allocation, job.nodeNames, job.batchHost()),
                                                            cluster);
  }
  for (const auto& [id, step] : job.steps) {
    if (step.startTime < job.requeueTime) continue;
    held.steps.emplace(id, heldTresOf(step.allocation, cluster));
  }
  return held;
}

std::map<std::string, uint64_t> requestedTres(const v1::JobSpec& spec) {
  std::map<std::string, uint64_t> counts;
  uint64_t nodes = static_cast<uint64_t>(std::max(1, spec.min_nodes()));
  uint64_t tasks = static_cast<uint64_t>(std::max(1, spec.ntasks()));
  uint64_t cpus = std::max(tasks * static_cast<uint64_t>(std::max(1, spec.cpus_per_task())), nodes);
  counts["cpu"] = cpus;
  counts["billing"] = cpus;
  counts["node"] = nodes;
  if (spec.mem_per_node_mb() != 0) counts["mem"] = spec.mem_per_node_mb() * nodes;
  else if (spec.mem_per_cpu_mb() != 0) counts["mem"] = spec.mem_per_cpu_mb() * cpus;
  uint64_t gpus = spec.gpus() != 0            ? static_cast<uint64_t>(spec.gpus())
                  : spec.gpus_per_node() != 0 ? static_cast<uint64_t>(spec.gpus_per_node()) * nodes
                  : spec.gpus_per_task() != 0 ? static_cast<uint64_t>(spec.gpus_per_task()) * tasks
                                              : 0;
  addGres(counts, "gpu", spec.gpu_type(), gpus);
  for (const auto& gres : spec.gres()) addGres(counts, gres.name(), gres.type(), gres.count() * nodes);
  return counts;
}

std::vector<accounting::JobRecord> accountingRecordsOf(const JobRecord& job, const JobHeldTres& held,
                                                       const AccountingScope& scope) {
  std::vector<accounting::JobRecord> records;
  // Built on every persist of the job: one allocation, no record copied
  // when the vector grows.
  records.reserve(3 + job.steps.size());
  accounting::JobRecord base;
  base.cluster = scope.cluster;
  base.jobId = job.id;
  base.user = job.user;
  base.uid = job.uid;
  base.gid = job.gid;
  base.partition = job.spec.partition();
  base.submitTime = runSubmitTime(job);
  base.eligibleTime = job.eligibleTime;
  base.workDir = job.spec.work_dir();
  base.account = job.spec.account();
  // An array task is 12_4 in sacct; the array's record of tasks not yet
  // started is 12_[5-99] and lists them.
  base.arrayJobId = job.arrayJobId;
  base.arrayTaskId = job.arrayTaskId;
  if (job.holdsArrayTasks()) base.arrayTasks = job.arrayPending.format();

  accounting::JobRecord whole = base;
  whole.name = job.spec.name();
  whole.startTime = job.startTime;
  // The end comes from the node's clock: never before the start.
  whole.endTime = isEnded(job.state) || job.state == JobState::Completing ? std::max(job.endTime, job.startTime) : 0;
  if (job.timeLimitSeconds >= 0) whole.timeLimitMinutes = static_cast<uint32_t>((job.timeLimitSeconds + 59) / 60);
  whole.state = accountingState(job.state);
  if (job.state == JobState::Cancelled) whole.cancelledByUid = job.cancelledBy;
  whole.exitCode = {job.exitCode, job.termSignal};
  for (const auto& [id, step] : job.steps) {
    if (step.startTime < job.requeueTime) continue;
    whole.derivedExitCode.code = std::max(whole.derivedExitCode.code, step.exitCode);
  }
  whole.nodeCount = static_cast<uint32_t>(job.nodeNames.size());
  whole.nodeList = detail::nodeListOf(job.nodeNames);
  whole.allocCpus = held.job.cpus;
  whole.reqTres = tresText(requestedTres(job.spec));
  whole.allocTres = job.nodeNames.empty() ? "" : heldTresText(held.job);
  whole.reason = reasonText(job.reason, job.reasonDetail);
  whole.comment = job.spec.comment();
  if (job.startTime == 0 || job.nodeNames.empty()) {
    records.push_back(std::move(whole));
    return records;
  }
  records.push_back(whole);

  bool jobEnded = whole.endTime != 0;
  if (job.isBatch()) {
    accounting::JobRecord batch = base;
    batch.stepId = "batch";
    batch.name = "batch";
    batch.startTime = job.startTime;
    batch.endTime = whole.endTime;
    batch.state = jobEnded ? endedStepState(job, true, job.exitCode, job.termSignal) : "RUNNING";
    batch.exitCode = whole.exitCode;
    batch.nodeCount = 1;
    batch.nodeList = job.batchHost();
    if (job.nodeNames.size() == 1) {
      batch.allocCpus = whole.allocCpus;
      batch.allocTres = whole.allocTres;
    } else {
      batch.allocCpus = held.batchHost.cpus;
      batch.allocTres = heldTresText(held.batchHost);
    }
    batch.usageIn = usageText(job.batchUsage, scope.tracked);
    records.push_back(std::move(batch));
  }
  if (scope.externSteps) {
    accounting::JobRecord external = base;
    external.stepId = "extern";
    external.name = "extern";
    external.startTime = job.startTime;
    external.endTime = whole.endTime;
    external.state = jobEnded ? endedStepState(job, true, 0, 0) : "RUNNING";
    external.nodeCount = whole.nodeCount;
    external.nodeList = whole.nodeList;
    external.allocCpus = whole.allocCpus;
    external.allocTres = whole.allocTres;
    records.push_back(std::move(external));
  }
  for (const auto& [id, step] : job.steps) {
    // Steps of an earlier run were closed with it.
    if (step.startTime < job.requeueTime) continue;
    accounting::JobRecord numbered = base;
    numbered.stepId = std::to_string(id);
    numbered.name = step.name;
    numbered.startTime = step.startTime;
    numbered.endTime = step.ended() ? std::max(step.endTime, step.startTime) : 0;
    bool cutShort = isEnded(job.state) && step.endTime >= job.endTime;
    numbered.state = step.ended() ? endedStepState(job, cutShort, step.exitCode, 0) : "RUNNING";
    numbered.exitCode = {step.exitCode, 0};
    numbered.nodeCount = static_cast<uint32_t>(step.nodes.size());
    numbered.nodeList = detail::nodeListOf(step.nodes);
    auto stepHeld = held.steps.find(id);
    HeldTres none;
    const HeldTres& onStep = stepHeld != held.steps.end() ? stepHeld->second : none;
    numbered.allocCpus = onStep.cpus;
    numbered.allocTres = heldTresText(onStep);
    numbered.usageIn = usageText(step.usage, scope.tracked);
    records.push_back(std::move(numbered));
  }
  return records;
}

accounting::JobRecord requeuedRun(accounting::JobRecord lastWritten, int64_t now) {
  lastWritten.state = "REQUEUED";
  if (lastWritten.endTime == 0) lastWritten.endTime = std::max(now, lastWritten.startTime);
  lastWritten.cancelledByUid.reset();
  return lastWritten;
}

}  // namespace gantry::core
