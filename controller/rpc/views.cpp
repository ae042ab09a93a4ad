#include "controller/rpc/views.h"

#include <map>
#include <set>

#include "common/gres/index_list.h"
#include "common/hostlist/hostlist.h"
#include "controller/core/accounting_view.h"
#include "controller/drain/drained_tres_text.h"

namespace gantry::views {

using core::JobReason;
using core::JobRecord;
using core::JobState;
using core::NodeRecord;

v1::JobState toWire(JobState state) {
  switch (state) {
    case JobState::Pending: return v1::PENDING;
    case JobState::Configuring: return v1::CONFIGURING;
    case JobState::Running: return v1::RUNNING;
    case JobState::Suspended: return v1::SUSPENDED;
    case JobState::Completing: return v1::COMPLETING;
    case JobState::Completed: return v1::COMPLETED;
    case JobState::Failed: return v1::FAILED;
    case JobState::Cancelled: return v1::CANCELLED;
    case JobState::Timeout: return v1::TIMEOUT;
    case JobState::NodeFail: return v1::NODE_FAIL;
  }
  return v1::JOB_STATE_UNSPECIFIED;
}

JobState fromWire(v1::JobState state) {
  switch (state) {
    case v1::CONFIGURING: return JobState::Configuring;
    case v1::RUNNING: return JobState::Running;
    case v1::SUSPENDED: return JobState::Suspended;
    case v1::COMPLETING: return JobState::Completing;
    case v1::COMPLETED: return JobState::Completed;
    case v1::FAILED: return JobState::Failed;
    case v1::CANCELLED: return JobState::Cancelled;
    case v1::TIMEOUT: return JobState::Timeout;
    case v1::NODE_FAIL: return JobState::NodeFail;
    default: return JobState::Pending;
  }
}

namespace {

void grantToWire(const select::NodeGrant& grant, const select::Cluster& cluster, const std::string& name,
                 v1::NodeAllocation& alloc) {
  alloc.set_node(name);
  for (int core : grant.cores) alloc.add_cores(core);
  alloc.set_memory_mb(grant.memoryMb);
  for (int device : grant.devices) alloc.add_devices(device);
  for (int cpu : grant.cpus) alloc.add_cpus(cpu);
  alloc.set_tasks(grant.tasks);
  alloc.set_whole_node(grant.wholeNode);
  for (const auto& share : grant.shares) {
    v1::ShareGrant* out = alloc.add_shares();
    out->set_name(share.name);
    out->set_device(share.device);
    out->set_count(share.count);
  }
  for (const auto& [name, count] : grant.countGres) {
    v1::CountGrant* out = alloc.add_count_gres();
    out->set_name(name);
    out->set_count(count);
  }
  bool hasGres = !grant.devices.empty() || !grant.countGres.empty() || !grant.shares.empty();
  if (hasGres && grant.node >= 0 && grant.node < cluster.nodeCount()) {
    alloc.set_gres(select::formatGrantGres(cluster.node(grant.node), grant));
  }
}

select::NodeGrant grantFromWire(const v1::NodeAllocation& alloc, int index) {
  select::NodeGrant grant;
  grant.node = index;
  grant.cores.assign(alloc.cores().begin(), alloc.cores().end());
  grant.memoryMb = alloc.memory_mb();
  grant.devices.assign(alloc.devices().begin(), alloc.devices().end());
  grant.cpus.assign(alloc.cpus().begin(), alloc.cpus().end());
  grant.tasks = alloc.tasks();
  grant.wholeNode = alloc.whole_node();
  for (const auto& share : alloc.shares()) {
    grant.shares.push_back({.name = share.name(), .device = share.device(), .count = share.count()});
  }
  // Held again after a restart like the devices: without them a second
  // job could be given the same units.
  for (const auto& count : alloc.count_gres()) grant.countGres.emplace_back(count.name(), count.count());
  return grant;
}

void allocationToWire(const select::Allocation& allocation, const std::vector<std::string>& names,
                      const select::Cluster& cluster,
                      google::protobuf::RepeatedPtrField<v1::NodeAllocation>& out) {
  for (size_t i = 0; i < allocation.nodes.size() && i < names.size(); ++i) {
    grantToWire(allocation.nodes[i], cluster, names[i], *out.Add());
  }
}

void usageToWire(const std::vector<accounting::TaskUsageSample>& samples,
                 google::protobuf::RepeatedPtrField<v1::NodeTaskUsage>& out) {
  for (const auto& sample : samples) {
    v1::NodeTaskUsage* stored = out.Add();
    stored->set_node(sample.node);
    *stored->mutable_usage() = taskUsageToWire(sample);
  }
}

std::vector<accounting::TaskUsageSample> usageFromWire(
    const google::protobuf::RepeatedPtrField<v1::NodeTaskUsage>& stored) {
  std::vector<accounting::TaskUsageSample> samples;
  samples.reserve(static_cast<size_t>(stored.size()));
  for (const auto& task : stored) samples.push_back(taskUsageFromWire(task.node(), task.usage()));
  return samples;
}

void stepToWire(const core::StepRecord& step, const select::Cluster& cluster, bool withUsage, v1::JobStep& out) {
  out.set_step_id(step.id);
  out.set_name(step.name);
  out.set_node_list(hostlist::compress(step.nodes));
  for (const auto& node : step.nodesLeft) out.add_nodes_left(node);
  out.set_ntasks(step.ntasks);
  out.set_overlap(step.overlap);
  out.set_exit_code(step.exitCode);
  out.set_message(step.message);
  out.set_start_time(step.startTime);
  out.set_end_time(step.endTime);
  out.set_running(!step.ended());
  allocationToWire(step.allocation, step.nodes, cluster, *out.mutable_allocation());
  if (withUsage) {
    usageToWire(step.usage, *out.mutable_usage());
    for (const auto& node : step.usageReported) out.add_usage_reported(node);
  }
}

}  // namespace

v1::SwitchState switchToWire(const interconnect::SwitchRecord& record) {
  v1::SwitchState wire;
  wire.set_setup(static_cast<int32_t>(record.setup));
  for (const auto& node : record.nodes) wire.add_nodes(node);
  wire.set_has_stepinfo(record.stepinfo.has_value());
  if (record.stepinfo) wire.set_stepinfo(*record.stepinfo);
  wire.set_ended_during_setup(record.endedDuringSetup);
  wire.set_next_call(record.nextCall);
  wire.set_run(record.run);
  for (const auto& call : record.calls) {
    v1::SwitchCallState* out = wire.add_calls();
    out->set_id(call.id);
    out->set_kind(static_cast<int32_t>(call.kind));
    out->set_state(static_cast<int32_t>(call.state));
    out->set_deadline_ms(call.deadlineMs);
    for (const auto& node : call.nodes) out->add_nodes(node);
    out->set_holds_nodes(call.holdsNodes);
    out->set_retries_done(call.retriesDone);
    out->set_run(call.run);
    out->set_has_jobinfo(call.jobinfo.has_value());
    if (call.jobinfo) out->set_jobinfo(*call.jobinfo);
  }
  return wire;
}

Result<interconnect::SwitchRecord> switchFromWire(uint64_t job, const v1::SwitchState& wire) {
  using namespace interconnect;
  SwitchRecord record = newSwitchRecord(job);
  if (wire.setup() < 0 || wire.setup() > static_cast<int32_t>(SetupPhase::Abandoned)) {
    return Error{ErrorCode::Invalid, "switch setup phase " + std::to_string(wire.setup()) + " is unknown"};
  }
  record.setup = static_cast<SetupPhase>(wire.setup());
  record.nodes.assign(wire.nodes().begin(), wire.nodes().end());
  if (wire.has_stepinfo()) record.stepinfo = wire.stepinfo();
  record.endedDuringSetup = wire.ended_during_setup();
  record.nextCall = std::max<uint64_t>(wire.next_call(), 1);
  record.run = wire.run();
  for (const auto& stored : wire.calls()) {
    if (stored.kind() < 0 || stored.kind() > static_cast<int32_t>(CallKind::LateTeardown) || stored.state() < 0 ||
        stored.state() > static_cast<int32_t>(CallState::Killed)) {
      return Error{ErrorCode::Invalid, "switch call " + std::to_string(stored.id()) + " has an unknown kind or state"};
    }
    SwitchCall call;
    call.id = stored.id();
    call.kind = static_cast<CallKind>(stored.kind());
    call.state = static_cast<CallState>(stored.state());
    call.deadlineMs = stored.deadline_ms();
    call.nodes.assign(stored.nodes().begin(), stored.nodes().end());
    call.holdsNodes = stored.holds_nodes();
    call.retriesDone = stored.retries_done();
    call.run = stored.run();
    if (stored.has_jobinfo()) call.jobinfo = stored.jobinfo();
    record.nextCall = std::max(record.nextCall, call.id + 1);
    record.calls.push_back(std::move(call));
  }
  return record;
}

v1::Job jobToWire(const JobRecord& job, const select::Cluster& cluster, const JobDetail& detail) {
  v1::Job wire;
  wire.set_job_id(job.id);
  *wire.mutable_spec() = job.spec;
  wire.set_batch_flag(job.isBatch());
  if (!detail.scriptAndEnvironment) {
    wire.mutable_spec()->clear_script();
    wire.mutable_spec()->clear_environment();
  }
  wire.set_user(job.user);
  wire.set_uid(job.uid);
  wire.set_gid(job.gid);
  // An ended job whose switch teardown still holds its nodes is shown
  // COMPLETING, as its nodes are; it is stored with its final state.
  bool completing = !detail.switchState && isEnded(job.state) && !job.switchHeldNodes.empty();
  wire.set_state(completing ? v1::COMPLETING : toWire(job.state));
  wire.set_stopped(job.stopped);
  wire.set_dependency(core::formatDependency(job.dependency));
  wire.set_array_job_id(job.arrayJobId);
  if (job.arrayTaskId) wire.set_array_task_id(*job.arrayTaskId);
  wire.set_array_pending(job.arrayPending.format());
  wire.set_array_throttle(job.arrayThrottle);
  wire.set_planned_start(job.plannedStart);
  if (!job.plannedNodes.empty()) wire.set_planned_nodes(hostlist::compress(job.plannedNodes));
  wire.set_reason(core::reasonText(job.reason, job.reasonDetail));
  wire.set_reason_code(static_cast<int32_t>(job.reason));
  wire.set_reason_detail(job.reasonDetail);
  wire.set_submit_time(job.submitTime);
  wire.set_eligible_time(job.eligibleTime);
  wire.set_requeue_time(job.requeueTime);
  if (job.cancelledBy) wire.set_cancelled_by_uid(*job.cancelledBy);
  wire.set_start_time(job.startTime);
  wire.set_end_time(job.endTime);
  wire.set_exit_code(job.exitCode);
  wire.set_term_signal(job.termSignal);
  wire.set_restart_count(job.restartCount);
  wire.set_suspend_time(job.suspendTime);
  wire.set_pre_suspend_seconds(job.runSecondsBefore);
  wire.set_suspended_seconds(job.suspendedSeconds);
  wire.set_suspended_by(static_cast<int32_t>(job.suspendedBy));
  wire.set_launch_deferred(job.launchDeferred);
  wire.set_time_limit_seconds(job.timeLimitSeconds);
  wire.set_time_limit_minutes(job.timeLimitSeconds < 0 ? -1 : (job.timeLimitSeconds + 59) / 60);
  if (!job.nodeNames.empty()) {
    wire.set_node_list(hostlist::compress(job.nodeNames));
    wire.set_batch_host(job.batchHost());
    allocationToWire(job.allocation, job.nodeNames, cluster, *wire.mutable_allocation());
  }
  if (job.network) {
    if (detail.switchState) *wire.mutable_switch_state() = switchToWire(*job.network);
    wire.set_switch_setup(interconnect::toString(job.network->setup));
  }
  for (const auto& [key, bytes] : job.dmemPeakBytes) (*wire.mutable_dmem_peak_bytes())[key] = bytes;
  wire.set_next_step_id(job.nextStepId);
  if (detail.steps) {
    for (const auto& [id, step] : job.steps) stepToWire(step, cluster, detail.usage, *wire.add_steps());
  }
  if (detail.usage) usageToWire(job.batchUsage, *wire.mutable_batch_usage());
  return wire;
}

JobRecord jobFromWire(const v1::Job& wire, const std::function<int(const std::string&)>& indexOf) {
  JobRecord job;
  job.id = wire.job_id();
  job.spec = wire.spec();
  job.user = wire.user();
  job.uid = wire.uid();
  job.gid = wire.gid();
  job.state = fromWire(wire.state());
  job.stopped = wire.stopped() && job.state == JobState::Running;
  // Written by formatDependency; a text that no longer reads is dropped
  // rather than keeping the job from loading.
  if (auto dependency = core::parseStoredDependency(wire.dependency())) job.dependency = std::move(*dependency);
  job.arrayJobId = wire.array_job_id();
  if (wire.has_array_task_id()) job.arrayTaskId = wire.array_task_id();
  if (!wire.array_pending().empty()) {
    // Written by TaskSet::format; indexes are below MaxArraySize's bound.
    if (auto pending = TaskSet::parse(wire.array_pending(), 4000001)) job.arrayPending = std::move(*pending);
  }
  job.arrayThrottle = wire.array_throttle();
  if (wire.reason_code() > 0 && wire.reason_code() <= static_cast<int>(core::kLastJobReason)) {
    job.reason = static_cast<JobReason>(wire.reason_code());
    job.reasonDetail = wire.reason_detail();
  } else if (!wire.reason().empty() && wire.reason() != "None") {
    // Written before reasons had codes: keep the text as it was.
    job.reason = JobReason::StepFailed;
    job.reasonDetail = wire.reason();
  }
  job.submitTime = wire.submit_time();
  job.eligibleTime = wire.eligible_time();
  job.requeueTime = wire.requeue_time();
  if (wire.has_cancelled_by_uid()) job.cancelledBy = wire.cancelled_by_uid();
  job.startTime = wire.start_time();
  job.endTime = wire.end_time();
  job.exitCode = wire.exit_code();
  job.termSignal = wire.term_signal();
  job.restartCount = wire.restart_count();
  job.suspendTime = wire.suspend_time();
  job.runSecondsBefore = wire.pre_suspend_seconds();
  job.suspendedSeconds = wire.suspended_seconds();
  if (job.state == JobState::Suspended) {
    // Saved before the field existed: an administrator's suspension.
    job.suspendedBy = wire.suspended_by() == static_cast<int32_t>(core::SuspendedBy::Gang) ? core::SuspendedBy::Gang
                                                                                           : core::SuspendedBy::Admin;
  }
  job.launchDeferred = wire.launch_deferred();
  job.timeLimitSeconds = wire.time_limit_seconds();
  if (job.timeLimitSeconds == 0 && wire.time_limit_minutes() != 0) {
    job.timeLimitSeconds = wire.time_limit_minutes() < 0 ? -1 : wire.time_limit_minutes() * 60;
  }
  for (const auto& alloc : wire.allocation()) {
    int index = indexOf(alloc.node());
    if (index < 0) continue;
    job.allocation.nodes.push_back(grantFromWire(alloc, index));
    job.nodeNames.push_back(alloc.node());
  }
  // Whose it is follows from the job, so it is not stored apart.
  job.allocation.owner = select::AllocationOwner{.uid = job.uid, .userExclusive = job.spec.exclusive_mode() == "user"};
  for (const auto& [key, bytes] : wire.dmem_peak_bytes()) job.dmemPeakBytes[key] = bytes;
  if (wire.has_switch_state()) {
    // A record that cannot be read back is left out; recovery says so.
    if (auto record = switchFromWire(job.id, wire.switch_state())) job.network = std::move(*record);
  }
  job.batchUsage = usageFromWire(wire.batch_usage());
  job.nextStepId = wire.next_step_id();
  for (const auto& stored : wire.steps()) {
    core::StepRecord step;
    step.id = stored.step_id();
    step.name = stored.name();
    step.ntasks = stored.ntasks();
    step.overlap = stored.overlap();
    step.exitCode = stored.exit_code();
    step.message = stored.message();
    step.startTime = stored.start_time();
    step.endTime = stored.end_time();
    step.nodesLeft.insert(stored.nodes_left().begin(), stored.nodes_left().end());
    step.usage = usageFromWire(stored.usage());
    step.usageReported.insert(stored.usage_reported().begin(), stored.usage_reported().end());
    for (const auto& alloc : stored.allocation()) {
      int index = indexOf(alloc.node());
      if (index < 0) continue;
      step.allocation.nodes.push_back(grantFromWire(alloc, index));
      step.nodes.push_back(alloc.node());
    }
    job.nextStepId = std::max(job.nextStepId, step.id + 1);
    job.steps.emplace(step.id, std::move(step));
  }
  return job;
}

accounting::TaskUsageSample taskUsageFromWire(const std::string& node, const v1::TaskUsage& wire) {
  accounting::TaskUsageSample sample;
  sample.node = node;
  sample.task = wire.task();
  sample.cpuSeconds = wire.cpu_usec() / 1000000;
  sample.memBytes = wire.mem_peak_bytes();
  sample.vmemBytes = wire.vmem_peak_bytes();
  sample.pages = wire.pages();
  sample.fsDiskBytes = wire.fs_disk_read_bytes();
  sample.energyJoules = wire.energy_joules();
  if (wire.has_gpu_mem_bytes()) sample.gpuMemBytes = wire.gpu_mem_bytes();
  if (wire.has_gpu_util_percent()) sample.gpuUtilPercent = wire.gpu_util_percent();
  return sample;
}

v1::TaskUsage taskUsageToWire(const accounting::TaskUsageSample& sample) {
  v1::TaskUsage wire;
  wire.set_task(sample.task);
  wire.set_cpu_usec(sample.cpuSeconds * 1000000);
  wire.set_mem_peak_bytes(sample.memBytes);
  wire.set_vmem_peak_bytes(sample.vmemBytes);
  wire.set_pages(sample.pages);
  wire.set_fs_disk_read_bytes(sample.fsDiskBytes);
  wire.set_energy_joules(sample.energyJoules);
  if (sample.gpuMemBytes) wire.set_gpu_mem_bytes(*sample.gpuMemBytes);
  if (sample.gpuUtilPercent) wire.set_gpu_util_percent(*sample.gpuUtilPercent);
  return wire;
}

// ---------------------------------------------------------------- nodes

v1::NodeBaseState nodeBaseState(const NodeRecord& node) {
  if (!node.registered) return node.notResponding ? v1::NODE_DOWN : v1::NODE_UNKNOWN;
  if (node.down()) return v1::NODE_DOWN;
  if (node.allocCpus == 0 && node.jobs.empty()) return v1::NODE_IDLE;
  if (node.allocCpus >= node.conf.cpus) return v1::NODE_ALLOCATED;
  return v1::NODE_MIXED;
}

uint32_t nodeStateFlags(const NodeRecord& node) {
  uint32_t flags = 0;
  if (node.drained()) flags |= v1::NODE_FLAG_DRAIN;
  if (node.failing()) flags |= v1::NODE_FLAG_FAIL;
  if (node.notResponding) flags |= v1::NODE_FLAG_NOT_RESPONDING;
  if (node.degraded()) flags |= v1::NODE_FLAG_DEGRADED;
  if (node.completing()) flags |= v1::NODE_FLAG_COMPLETING;
  return flags;
}

std::string nodeStateText(const NodeRecord& node) {
  std::string text;
  switch (nodeBaseState(node)) {
    case v1::NODE_IDLE: text = "IDLE"; break;
    case v1::NODE_MIXED: text = "MIXED"; break;
    case v1::NODE_ALLOCATED: text = "ALLOCATED"; break;
    case v1::NODE_DOWN: text = "DOWN"; break;
    case v1::NODE_COMPLETING: text = "COMPLETING"; break;
    default: text = "UNKNOWN"; break;
  }
  uint32_t flags = nodeStateFlags(node);
  if (flags & v1::NODE_FLAG_COMPLETING) text += "+COMPLETING";
  if (flags & v1::NODE_FLAG_DRAIN) text += "+DRAIN";
  if (flags & v1::NODE_FLAG_FAIL) text += "+FAIL";
  if (flags & v1::NODE_FLAG_DEGRADED) text += "+DEGRADED";
  if (flags & v1::NODE_FLAG_NOT_RESPONDING) text += "+NOT_RESPONDING";
  return text;
}

namespace {

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

// One registered device's line, for `scontrol show node -d`.
std::string deviceLine(const v1::GresDevice& device, const std::string& index) {
  std::string line = device.name() + (device.type().empty() ? "" : ":" + device.type());
  line += index.empty() ? " Count=" + std::to_string(device.count()) : " Index=" + index;
  if (device.files_size() > 0) {
    line += " File=";
    for (int i = 0; i < device.files_size(); ++i) line += (i > 0 ? "," : "") + device.files(i);
  }
  if (device.cores_size() > 0) line += " Cores=" + gres::formatIndexList({device.cores().begin(), device.cores().end()});
  if (device.links_size() > 0) {
    line += " Links=";
    for (int i = 0; i < device.links_size(); ++i) line += (i > 0 ? "," : "") + std::to_string(device.links(i));
  }
  if (!device.uuid().empty()) line += " UUID=" + device.uuid();
  return line;
}

// One line per registered device, for `scontrol show node -d`. A GRES with
// a saved device order is listed by it, at the indexes jobs and drains use,
// an empty slot as "Absent" with the UUID that left.
void addDeviceLines(const NodeRecord& node, v1::Node& view) {
  std::map<std::string, int> nextIndex;
  std::set<std::string> listedByOrder;
  for (const auto& device : node.hardware.gres()) {
    bool isDevice = device.files_size() > 0 && device.name() != "shard" && device.name() != "mps";
    const drain::SavedOrder* order = isDevice ? drain::savedOrderOf(node.drainedTres, device.name()) : nullptr;
    if (order == nullptr) {
      view.add_gres_devices(deviceLine(device, isDevice ? std::to_string(nextIndex[device.name()]++) : ""));
      continue;
    }
    if (!listedByOrder.insert(device.name()).second) continue;
    for (size_t slot = 0; slot < order->slots.size(); ++slot) {
      const drain::SavedSlot& saved = order->slots[slot];
      const v1::GresDevice* present = nullptr;
      for (const auto& record : node.hardware.gres()) {
        if (saved.present && record.name() == order->gres && record.uuid() == saved.uuid) present = &record;
      }
      if (present != nullptr) {
        view.add_gres_devices(deviceLine(*present, std::to_string(slot)));
      } else {
        view.add_gres_devices(order->gres + (saved.type.empty() ? "" : ":" + saved.type) + " Index=" +
                              std::to_string(slot) + " Absent" + (saved.uuid.empty() ? "" : " UUID=" + saved.uuid));
      }
    }
  }
}

// MaxDrainedTres as the NodeName line wrote it, items joined by a bare
// comma ("gres/gpu:2, mem:8G" reads "gres/gpu:2,mem:8G"); "" for no limit.
std::string configuredLimitText(const std::string& raw) {
  std::string out, item;
  auto flush = [&] {
    size_t first = item.find_first_not_of(" \t");
    size_t last = item.find_last_not_of(" \t");
    if (first != std::string::npos) out += (out.empty() ? "" : ",") + item.substr(first, last - first + 1);
    item.clear();
  };
  for (char c : raw) {
    if (c == ',') flush();
    else item += c;
  }
  flush();
  return out;
}

}  // namespace

namespace {

// "2(0-3,6-9)": RestrictedCoresPerGPU and the cores it keeps; "" for none.
std::string restrictedCoresText(const select::NodeInfo& info) {
  std::vector<int> cores;
  for (const auto& kept : select::restrictedCoresByDevice(info)) cores.insert(cores.end(), kept.begin(), kept.end());
  if (cores.empty()) return "";
  return std::to_string(info.restrictedCoresPerGpu) + "(" + gres::formatIndexList(std::move(cores)) + ")";
}

// What the node's jobs hold there, as AllocTRES: the job's TRES without
// node and billing, as Slurm writes a node's.
std::string nodeAllocTres(const NodeRecord& node, const core::CoreState& state) {
  core::HeldTres total;
  for (uint64_t id : node.jobs) {
    const core::JobRecord* job = state.findJob(id);
    if (job == nullptr) continue;
    select::Allocation here;
    for (const auto& grant : job->allocation.nodes) {
      if (grant.node == node.selectIndex) here.nodes.push_back(grant);
    }
    core::HeldTres held = core::heldTresOf(here, state.cluster);
    total.nodes += held.nodes;
    total.cpus += held.cpus;
    total.memoryMb += held.memoryMb;
    total.gres.insert(total.gres.end(), held.gres.begin(), held.gres.end());
  }
  auto counts = core::heldTresCounts(total);
  counts.erase("node");
  counts.erase("billing");
  return core::tresTextInIdOrder(counts);
}

}  // namespace

v1::Node nodeToWire(const NodeRecord& node, const core::CoreState& state, int64_t now) {
  v1::Node view;
  view.set_name(node.conf.name);
  view.set_addr(node.addr);
  view.set_port(node.port);
  view.set_state(nodeStateText(node));
  view.set_base_state(nodeBaseState(node));
  view.set_state_flags(nodeStateFlags(node));
  std::string reason = node.registrationErrors.empty() ? node.reason : joined(node.registrationErrors, "; ");
  if (node.notResponding && reason.empty()) reason = "Not responding";
  view.set_reason(reason);
  view.set_reason_time(node.reasonTime);
  view.set_reason_user(node.reasonUser);
  view.set_cpus(node.conf.cpus);
  view.set_boards(node.conf.boards);
  view.set_sockets(node.conf.sockets);
  view.set_cores_per_socket(node.conf.coresPerSocket);
  view.set_threads_per_core(node.conf.threadsPerCore);
  view.set_real_memory_mb(node.conf.realMemoryMb);
  view.set_tmp_disk_mb(node.conf.tmpDiskMb);
  view.set_weight(node.conf.weight);
  view.set_alloc_cpus(node.allocCpus);
  view.set_alloc_memory_mb(node.allocMemoryMb);
  view.set_last_heartbeat(node.lastHeartbeat);
  std::string gres;
  for (const auto& g : node.conf.gres) {
    if (!gres.empty()) gres += ",";
    gres += g.name;
    if (!g.type.empty()) gres += ":" + g.type;
    gres += ":" + std::to_string(g.count);
  }
  view.set_gres(gres.empty() ? "(null)" : gres);
  view.set_drained_tres(drain::formatDrainedTres(node.drainedTres));
  view.set_max_drained_tres(configuredLimitText(node.conf.maxDrainedTres));
  for (const auto& feature : node.conf.features) view.add_features(feature);
  auto position = state.nodeIndex.find(node.conf.name);
  if (position != state.nodeIndex.end() && position->second < state.partitionsOfNode.size()) {
    for (const auto& partition : state.partitionsOfNode[position->second]) view.add_partitions(partition);
  }
  view.set_gres_used(state.cluster.gresUsed(node.selectIndex));
  view.set_gres_chunks(select::formatNodeGresChunks(state.cluster.node(node.selectIndex)));
  view.set_restricted_cores_per_gpu(restrictedCoresText(state.cluster.node(node.selectIndex)));
  view.set_cfg_tres(core::tresTextInIdOrder(core::configuredTresCounts(node.conf)));
  view.set_alloc_tres(nodeAllocTres(node, state));
  view.set_last_busy_time(node.jobs.empty() ? node.lastBusyTime : now);
  view.set_agent_start_time(node.agentStartTime);
  addDeviceLines(node, view);
  return view;
}

}  // namespace gantry::views
