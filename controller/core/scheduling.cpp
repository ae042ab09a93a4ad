// ControllerCore's scheduling: pending jobs in order through the selection
// library, starting, launching, requeueing and ending jobs.
#include "controller/core/controller_core.h"

#include <algorithm>
#include <csignal>
#include <spdlog/spdlog.h>

#include "controller/core/core_helpers.h"

namespace gantry::core {

using detail::cpusOf;
using detail::nodeListOf;

// ---------------------------------------------------------------- scheduling

void ControllerCore::requestSchedule() {
  if (scheduleRequested_) return;
  scheduleRequested_ = true;
  onStrand([this] {
    scheduleRequested_ = false;
    schedule();
  });
}

void ControllerCore::schedulePass(Reply<SchedulePassReport> reply) {
  onStrand([this, reply = std::move(reply)] {
    SchedulePassReport report;
    size_t runningBefore = 0;
    for (const auto& [id, entry] : jobs_) {
      if (entry.job.state() == v1::PENDING && !entry.job.spec().hold()) ++report.pending;
      if (entry.holdsResources) ++runningBefore;
    }
    schedule();
    size_t runningAfter = 0;
    for (const auto& [id, entry] : jobs_) runningAfter += entry.holdsResources ? 1 : 0;
    report.started = runningAfter - runningBefore;
    reply(report);
  });
}

void ControllerCore::schedule() {
  if (stopped_) return;
  // Pending jobs in priority order, then submission order. A job that does
  // not fit now does not stop smaller ones behind it from starting.
  std::vector<JobEntry*> pending;
  for (auto& [id, entry] : jobs_) {
    if (entry.job.state() == v1::PENDING && !entry.job.spec().hold()) pending.push_back(&entry);
  }
  std::stable_sort(pending.begin(), pending.end(), [](const JobEntry* a, const JobEntry* b) {
    return a->job.spec().priority() > b->job.spec().priority();
  });
  for (JobEntry* entry : pending) {
    auto partition = partitionFor(entry->job.spec());
    if (!partition) continue;
    auto request = toSelectRequest(entry->job.spec());
    if (!request) continue;
    select::PartitionView view = partitionView(**partition);
    select::SelectTrace trace;
    select::Outcome outcome = cluster_.select(*request, view, conf_.debugSelectType ? &trace : nullptr);
    for (const auto& rejection : trace) {
      spdlog::info("select: job {} not on node {}: {}", entry->job.job_id(),
                   cluster_.node(rejection.node).name, rejection.rule);
    }
    if (outcome.verdict == select::Verdict::Placed) {
      startJob(*entry, std::move(outcome.allocation));
    } else {
      std::string reason = outcome.verdict == select::Verdict::Never
                               ? "ReqNodeNotAvail"
                               : (outcome.reason.empty() ? "Resources" : outcome.reason);
      if (entry->job.reason() != reason) entry->job.set_reason(reason);
    }
  }
}

void ControllerCore::holdResources(JobEntry& entry) {
  if (entry.holdsResources) return;
  cluster_.commit(entry.allocation);
  for (const auto& grant : entry.allocation.nodes) {
    NodeEntry& node = nodes_[nodeIndex_.at(cluster_.node(grant.node).name)];
    node.allocCpus += cpusOf(grant, cluster_.node(grant.node));
    node.allocMemoryMb += grant.memoryMb;
    node.jobs.insert(entry.job.job_id());
  }
  entry.holdsResources = true;
}

void ControllerCore::releaseResources(JobEntry& entry) {
  if (!entry.holdsResources) return;
  cluster_.release(entry.allocation);
  for (const auto& grant : entry.allocation.nodes) {
    NodeEntry& node = nodes_[nodeIndex_.at(cluster_.node(grant.node).name)];
    node.allocCpus -= cpusOf(grant, cluster_.node(grant.node));
    node.allocMemoryMb -= grant.memoryMb;
    node.jobs.erase(entry.job.job_id());
  }
  entry.holdsResources = false;
  requestSchedule();
}

void ControllerCore::startJob(JobEntry& entry, select::Allocation allocation) {
  entry.allocation = std::move(allocation);
  holdResources(entry);
  v1::Job& job = entry.job;
  job.clear_allocation();
  std::vector<std::string> names;
  for (const auto& grant : entry.allocation.nodes) {
    const select::NodeInfo& info = cluster_.node(grant.node);
    names.push_back(info.name);
    v1::NodeAllocation* alloc = job.add_allocation();
    alloc->set_node(info.name);
    for (int core : grant.cores) alloc->add_cores(core);
    alloc->set_memory_mb(grant.memoryMb);
    for (int device : grant.devices) alloc->add_devices(device);
    for (int cpu : grant.cpus) alloc->add_cpus(cpu);
    alloc->set_tasks(grant.tasks);
    for (const auto& share : grant.shares) {
      v1::ShareGrant* out = alloc->add_shares();
      out->set_name(share.name);
      out->set_device(share.device);
      out->set_count(share.count);
    }
    if (!grant.devices.empty() || !grant.countGres.empty() || !grant.shares.empty()) alloc->set_gres(select::formatGrantGres(info, grant));
  }
  job.set_node_list(nodeListOf(names));
  job.set_batch_host(names.empty() ? "" : names.front());
  job.set_state(v1::RUNNING);
  job.set_reason("None");
  job.set_start_time(now());
  uint64_t id = job.job_id();
  entry.launchInFlight = true;
  // The batch step is sent only once the RUNNING record is durable, so a
  // controller restart never finds a job running that it thinks is pending.
  persist(entry, [this, id](const Status& status) {
    onStrand([this, id, status] {
      auto found = jobs_.find(id);
      if (found == jobs_.end()) return;
      if (!status) {
        requeueJob(found->second, "cannot store the job start: " + status.error());
        return;
      }
      launchBatch(id);
      launchExternSteps(id);
    });
  });
}

void ControllerCore::addStepGpus(const NodeEntry& node, const select::NodeGrant& grant,
                                 v1::LaunchStepRequest& request) const {
  const select::NodeInfo& info = cluster_.node(node.selectIndex);
  // The registered record of a device (for its PCI address and dmem
  // region), found by its first device file.
  auto recordOf = [&](const select::DeviceInfo& device) -> const v1::GresDevice* {
    for (const auto& record : node.hardware.gres()) {
      if (!device.files.empty() && record.files_size() > 0 && record.files(0) == device.files.front()) {
        return &record;
      }
    }
    return nullptr;
  };
  auto add = [&](int index, const std::string& name, uint64_t shares, uint64_t shareCount) {
    if (index < 0 || index >= static_cast<int>(info.devices.size())) return;
    const select::DeviceInfo& device = info.devices[index];
    v1::StepGpu* gpu = request.add_gpus();
    gpu->set_index(index);
    gpu->set_name(name);
    gpu->set_type(device.type);
    for (const auto& file : device.files) gpu->add_files(file);
    gpu->set_uuid(device.uuid);
    gpu->set_shares(shares);
    gpu->set_share_count(shareCount);
    if (const v1::GresDevice* record = recordOf(device)) {
      gpu->set_pci_bus_id(record->pci_bus_id());
      gpu->set_dmem_region(record->dmem_region());
      gpu->set_dmem_slice_bytes(record->dmem_slice_bytes());
      for (const auto& flag : record->flags()) {
        if (flag == "amd_gpu_env" || record->files(0).find("/dri/") != std::string::npos) gpu->set_vendor("amd");
      }
    }
    if (gpu->vendor().empty()) gpu->set_vendor("nvidia");
  };
  for (int index : grant.devices) add(index, info.devices[index].name, 0, 0);
  for (const auto& share : grant.shares) {
    uint64_t count = 0;
    if (share.device >= 0 && share.device < static_cast<int>(info.devices.size())) {
      for (const auto& offered : info.devices[share.device].shared) {
        if (offered.name == share.name) count = offered.count;
      }
    }
    add(share.device, share.name, share.count, count);
  }
}

void ControllerCore::describeJobOnNode(const JobEntry& entry, int selectIndex,
                                       v1::LaunchStepRequest& request) const {
  for (const auto& grant : entry.allocation.nodes) {
    if (grant.node != selectIndex) continue;
    request.set_job_whole_node(grant.wholeNode);
    for (int device : grant.devices) request.add_job_gpu_indexes(device);
    for (const auto& share : grant.shares) request.add_job_gpu_indexes(share.device);
  }
}

void ControllerCore::launchBatch(uint64_t jobId) {
  auto found = jobs_.find(jobId);
  if (found == jobs_.end()) return;
  JobEntry& entry = found->second;
  // A job without a script (salloc, srun outside a job) only holds its
  // allocation; its steps come through createStep.
  if (entry.job.state() != v1::RUNNING || entry.job.spec().script().empty()) {
    entry.launchInFlight = false;
    return;
  }
  const v1::Job& job = entry.job;
  const v1::JobSpec& spec = job.spec();
  NodeEntry* node = findNode(job.batch_host());
  if (node == nullptr) return;
  const v1::NodeAllocation& alloc = job.allocation(0);

  v1::LaunchStepRequest request;
  request.set_job_id(job.job_id());
  request.set_step_id("batch");
  request.set_job_name(spec.name());
  request.set_uid(job.uid());
  request.set_gid(job.gid());
  request.set_user(job.user());
  request.set_work_dir(spec.work_dir());
  request.set_script(spec.script());
  request.set_stdout_pattern(spec.stdout_pattern());
  request.set_stderr_pattern(spec.stderr_pattern());
  request.set_stdin_path(spec.stdin_path().empty() ? "/dev/null" : spec.stdin_path());
  *request.mutable_environment() = spec.environment();
  request.set_node_list(job.node_list());
  request.set_node_id(0);
  request.set_num_nodes(job.allocation_size());
  request.set_ntasks(spec.ntasks() > 0 ? spec.ntasks() : 1);
  request.set_tasks_on_node(1);
  request.set_first_task_id(0);
  const select::NodeInfo& info = cluster_.node(node->selectIndex);
  request.set_cpus_on_node(alloc.cpus_size() > 0 ? alloc.cpus_size() : alloc.cores_size() * info.threadsPerCore);
  *request.mutable_cores() = alloc.cores();
  request.set_memory_mb(alloc.memory_mb());
  request.set_partition(spec.partition());
  request.set_submit_host(spec.submit_host());
  request.set_submit_dir(spec.work_dir());
  request.set_time_limit_seconds(std::max<int64_t>(job.time_limit_seconds(), 0));
  if (!entry.allocation.nodes.empty()) {
    const select::NodeGrant& grant = entry.allocation.nodes.front();
    addStepGpus(*node, grant, request);
  }
  describeJobOnNode(entry, node->selectIndex, request);
  options_.agents->launchStep(addressOf(*node), std::move(request), [this, jobId](const Status& status) {
    onStrand([this, jobId, status] {
      auto found = jobs_.find(jobId);
      if (found == jobs_.end()) return;
      found->second.launchInFlight = false;
      if (!status && found->second.job.state() == v1::RUNNING) {
        // A node that cannot start a step would fail every job sent to it:
        // drain it so the requeued job (and the rest) go elsewhere.
        if (NodeEntry* node = findNode(found->second.job.batch_host())) {
          drainNode(*node, "batch job launch failed: " + status.error());
        }
        requeueJob(found->second, "launch failed: " + status.error());
      }
    });
  });
}

void ControllerCore::requeueJob(JobEntry& entry, const std::string& reason) {
  forgetSteps(entry.job.job_id());
  releaseResources(entry);
  entry.allocation = {};
  v1::Job& job = entry.job;
  bool requeue = conf_.jobRequeue ? !job.spec().no_requeue() : job.spec().requeue();
  if (!requeue) {
    endJob(entry, v1::NODE_FAIL, reason, 1, 0);
    return;
  }
  job.set_state(v1::PENDING);
  job.set_reason(reason);
  job.set_restart_count(job.restart_count() + 1);
  job.clear_allocation();
  job.set_node_list("");
  job.set_batch_host("");
  job.set_start_time(0);
  persist(entry);
  requestSchedule();
}

void ControllerCore::endJob(JobEntry& entry, v1::JobState state, const std::string& reason,
                            int exitCode, int signal) {
  v1::Job& job = entry.job;
  // Every end reaches the job's nodes, normal completions included: the
  // agents end any step still running and run the Epilog. A TerminateJob
  // for a job whose steps already ended is harmless.
  for (const auto& alloc : job.allocation()) {
    if (NodeEntry* node = findNode(alloc.node())) {
      options_.agents->terminateJob(addressOf(*node), job.job_id(), {});
    }
  }
  job.set_state(state);
  job.set_reason(reason);
  job.set_exit_code(exitCode);
  job.set_term_signal(signal);
  job.set_end_time(now());
  if (job.start_time() == 0) job.set_start_time(job.end_time());
  forgetSteps(job.job_id());
  releaseResources(entry);
  persist(entry);
}

void ControllerCore::drainNode(NodeEntry& node, const std::string& reason) {
  node.adminState = "DRAIN";
  node.reason = reason;
  node.reasonUser = "root";
  node.reasonTime = now();
  refreshSelectAvailability(node);
  options_.store->saveNode(store::NodeAdminState{.name = node.conf.name, .state = node.adminState,
                                                 .reason = node.reason, .user = node.reasonUser,
                                                 .reasonTime = node.reasonTime});
}

}  // namespace gantry::core
