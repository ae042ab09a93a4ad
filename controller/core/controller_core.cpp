#include "controller/core/controller_core.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <csignal>
#include <ctime>
#include <spdlog/spdlog.h>

#include "common/gres/index_list.h"
#include "common/gres/shared.h"
#include "common/hostlist/hostlist.h"
#include "controller/core/job_request.h"
#include "controller/drain/registration_check.h"

namespace gantry::core {

namespace {
constexpr const char* kNotAvailable = "Requested node configuration is not available";

std::string nodeListOf(const std::vector<std::string>& names) {
  return hostlist::compress(names);
}

// CPUs (hardware threads) a grant gives on its node.
int cpusOf(const select::NodeGrant& grant, const select::NodeInfo& node) {
  if (!grant.cpus.empty()) return static_cast<int>(grant.cpus.size());
  return static_cast<int>(grant.cores.size()) * node.threadsPerCore;
}
}  // namespace

ControllerCore::ControllerCore(boost::asio::io_context& io, CoreOptions options)
    : io_(io),
      strand_(boost::asio::make_strand(io)),
      timer_(strand_),
      options_(options),
      conf_(*options.conf),
      cluster_(select::ClusterOptions{.allocateByCpu = options.conf->select.crCpu,
                                      .allowSpecResourcesUsage = options.conf->allowSpecResourcesUsage,
                                      .multipleSharingGresPj = options.conf->select.multipleSharingGresPj}) {}


int64_t ControllerCore::now() const { return toUnixSeconds(options_.clock->now()); }

bool ControllerCore::isTerminal(v1::JobState state) const {
  return state == v1::COMPLETED || state == v1::FAILED || state == v1::CANCELLED ||
         state == v1::TIMEOUT || state == v1::NODE_FAIL;
}

bool ControllerCore::isAdministrator(const auth::Identity& caller) const {
  return caller.uid == 0 || caller.uid == options_.slurmUserUid;
}

Status ControllerCore::start() {
  startTime_ = now();
  for (const auto& nodeConf : conf_.nodes) {
    NodeEntry node;
    node.conf = nodeConf;
    node.addr = nodeConf.addr.empty() ? nodeConf.name : nodeConf.addr;
    node.port = nodeConf.port != 0 ? nodeConf.port : conf_.slurmdPort;
    node.selectIndex = cluster_.addNode(selectInfoFor(node));
    nodeIndex_[node.conf.name] = nodes_.size();
    nodes_.push_back(std::move(node));
  }
  for (auto& node : nodes_) {
    // A node configured DOWN or DRAIN starts that way.
    std::string state = node.conf.state;
    for (auto& c : state) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (state == "DOWN" || state == "DRAIN") {
      node.adminState = state;
      node.reason = "configured " + state;
      node.reasonTime = startTime_;
    }
    refreshSelectAvailability(node);
  }

  auto snapshot = options_.store->load(now(), options_.keepFinishedSeconds);
  if (!snapshot) return Error{snapshot.error()};
  nextJobId_ = snapshot->maxJobId + 1;
  for (const auto& admin : snapshot->nodes) {
    if (NodeEntry* node = findNode(admin.name)) {
      node->adminState = admin.state;
      node->reason = admin.reason;
      node->reasonUser = admin.user;
      node->reasonTime = admin.reasonTime;
      refreshSelectAvailability(*node);
    }
  }
  for (const auto& job : snapshot->jobs) {
    JobEntry entry;
    entry.job = job;
    uint64_t id = job.job_id();
    if (!isTerminal(job.state()) && job.state() != v1::PENDING) {
      // Re-attach: the job keeps running on its agents; hold its resources
      // again so nothing else is placed on them.
      for (const auto& alloc : job.allocation()) {
        NodeEntry* node = findNode(alloc.node());
        if (node == nullptr) continue;
        select::NodeGrant grant;
        grant.node = node->selectIndex;
        grant.cores.assign(alloc.cores().begin(), alloc.cores().end());
        grant.memoryMb = alloc.memory_mb();
        grant.devices.assign(alloc.devices().begin(), alloc.devices().end());
        grant.cpus.assign(alloc.cpus().begin(), alloc.cpus().end());
        grant.tasks = alloc.tasks();
        for (const auto& share : alloc.shares()) {
          grant.shares.push_back({.name = share.name(), .device = share.device(), .count = share.count()});
        }
        entry.allocation.nodes.push_back(std::move(grant));
      }
      holdResources(entry);
    }
    jobs_.emplace(id, std::move(entry));
  }
  timer_.expires_after(options_.tick);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) tick();
  });
  requestSchedule();
  return okStatus();
}

void ControllerCore::stop() {
  onStrand([this] {
    stopped_ = true;
    timer_.cancel();
  });
}

// ---------------------------------------------------------------- nodes

ControllerCore::NodeEntry* ControllerCore::findNode(const std::string& name) {
  auto found = nodeIndex_.find(name);
  return found == nodeIndex_.end() ? nullptr : &nodes_[found->second];
}

select::NodeInfo ControllerCore::selectInfoFor(const NodeEntry& node) const {
  select::NodeInfo info;
  info.name = node.conf.name;
  info.sockets = node.conf.sockets;
  info.coresPerSocket = node.conf.coresPerSocket;
  info.threadsPerCore = node.conf.threadsPerCore;
  info.realMemoryMb = node.conf.realMemoryMb;
  for (const auto& device : node.hardware.gres()) {
    // Shared GRES (shard, mps) are not devices: each record offers shares
    // of the GPU with the same device file, which comes earlier in device
    // order. Count-only GRES have no device identity: selection counts them.
    bool shared = device.name() == "shard" || device.name() == "mps";
    if (shared && device.files_size() > 0) {
      auto gpu = std::find_if(info.devices.begin(), info.devices.end(), [&](const select::DeviceInfo& d) {
        return !d.files.empty() && d.files.front() == device.files(0);
      });
      if (gpu != info.devices.end()) {
        gpu->shared.push_back(gres::SharedCount{.name = device.name(), .count = device.count()});
        continue;
      }
    }
    if (shared || (device.files_size() == 0 && device.count() != 1)) {
      // Typed and no_consume count-only GRES keep what gantry.conf says of them.
      bool noConsume = false;
      for (const auto& configured : node.conf.gres) {
        if (configured.name == device.name() && configured.type == device.type()) noConsume = configured.noConsume;
      }
      auto counted = std::find_if(info.countedGres.begin(), info.countedGres.end(), [&](const auto& entry) {
        return entry.name == device.name() && entry.type == device.type();
      });
      if (counted == info.countedGres.end()) {
        info.countedGres.push_back(gres::CountedGres{
            .name = device.name(), .type = device.type(), .count = device.count(), .noConsume = noConsume});
      } else {
        counted->count += device.count();
      }
      continue;
    }
    // One chunk layout per name and Type, from its first record; records
    // that disagree drained the node at registration.
    if (device.chunk_sizes_size() > 0) {
      bool known = std::any_of(info.chunks.begin(), info.chunks.end(), [&](const select::ChunkLayout& layout) {
        return layout.name == device.name() && layout.type == device.type();
      });
      if (!known) {
        info.chunks.push_back(select::ChunkLayout{
            .type = device.type(),
            .sizes = {device.chunk_sizes().begin(), device.chunk_sizes().end()},
            .order = {device.chunk_order().begin(), device.chunk_order().end()},
            .name = device.name()});
      }
    }
    select::DeviceInfo d;
    d.name = device.name();
    d.type = device.type();
    d.files.assign(device.files().begin(), device.files().end());
    d.cores.assign(device.cores().begin(), device.cores().end());
    d.links.assign(device.links().begin(), device.links().end());
    d.uuid = device.uuid();
    for (const auto& flag : device.flags()) {
      if (flag == "explicit") d.explicitOnly = true;
    }
    info.devices.push_back(std::move(d));
  }
  return info;
}

bool ControllerCore::nodeSchedulable(const NodeEntry& node) const {
  return node.registered && !node.notResponding && node.adminState.empty() &&
         node.registrationErrors.empty();
}

void ControllerCore::refreshSelectAvailability(NodeEntry& node) {
  cluster_.setAvailable(node.selectIndex, nodeSchedulable(node));
}

std::string ControllerCore::nodeStateText(const NodeEntry& node) const {
  int totalCpus = node.conf.cpus;
  std::string base;
  if (!node.registered) {
    base = node.notResponding ? "DOWN" : "UNKNOWN";
  } else if (node.notResponding || node.adminState == "DOWN") {
    base = "DOWN";
  } else if (node.allocCpus == 0 && node.jobs.empty()) {
    base = "IDLE";
  } else if (node.allocCpus >= totalCpus) {
    base = "ALLOCATED";
  } else {
    base = "MIXED";
  }
  std::string text = base;
  if (node.adminState == "DRAIN" || !node.registrationErrors.empty()) text += "+DRAIN";
  if (node.notResponding) text += "+NOT_RESPONDING";
  return text;
}

AgentAddress ControllerCore::addressOf(const NodeEntry& node) const {
  return AgentAddress{.node = node.conf.name, .addr = node.addr, .port = node.port};
}

v1::Node ControllerCore::nodeView(const NodeEntry& node) const {
  v1::Node view;
  view.set_name(node.conf.name);
  view.set_addr(node.addr);
  view.set_port(node.port);
  view.set_state(nodeStateText(node));
  std::string reason = node.reason;
  if (!node.registrationErrors.empty()) {
    reason.clear();
    for (const auto& error : node.registrationErrors) {
      if (!reason.empty()) reason += "; ";
      reason += error;
    }
  }
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
  for (const auto& feature : node.conf.features) view.add_features(feature);
  for (const auto& partition : conf_.partitions) {
    for (const auto& member : partition.nodes) {
      if (member == node.conf.name) {
        view.add_partitions(partition.name);
        break;
      }
    }
  }
  view.set_gres_used(cluster_.gresUsed(node.selectIndex));
  // Registered hardware for `scontrol show node -d`.
  view.set_gres_chunks(select::formatNodeGresChunks(selectInfoFor(node)));
  std::map<std::string, int> nextIndex;
  for (const auto& device : node.hardware.gres()) {
    std::string line = device.name() + (device.type().empty() ? "" : ":" + device.type());
    if (device.files_size() > 0 && device.name() != "shard" && device.name() != "mps") {
      line += " Index=" + std::to_string(nextIndex[device.name()]++);
    } else {
      line += " Count=" + std::to_string(device.count());
    }
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
    view.add_gres_devices(line);
  }
  return view;
}

// ---------------------------------------------------------------- submit

Result<const config::PartitionConf*> ControllerCore::partitionFor(const v1::JobSpec& spec) const {
  if (spec.partition().empty()) {
    const config::PartitionConf* partition = conf_.defaultPartition();
    if (partition == nullptr) return Error{"No partition specified or system default partition"};
    return partition;
  }
  const config::PartitionConf* partition = conf_.findPartition(spec.partition());
  if (partition == nullptr) return Error{"invalid partition specified: " + spec.partition()};
  return partition;
}

select::PartitionView ControllerCore::partitionView(const config::PartitionConf& partition) const {
  select::PartitionView view;
  for (const auto& name : partition.nodes) {
    auto found = nodeIndex_.find(name);
    if (found != nodeIndex_.end()) view.nodes.push_back(nodes_[found->second].selectIndex);
  }
  view.maxNodes = partition.maxNodes;
  view.exclusive = partition.overSubscribe == config::OverSubscribeMode::Exclusive;
  return view;
}

Result<int64_t> ControllerCore::effectiveTimeLimit(const v1::JobSpec& spec,
                                                   const config::PartitionConf& partition) const {
  // Seconds; -1 is UNLIMITED.
  int64_t requested = spec.time_limit_seconds() > 0 ? spec.time_limit_seconds()
                                                     : spec.time_limit_minutes() * 60;
  if (spec.time_limit_seconds() < 0) {
    return Error{"Requested time limit is invalid (missing or exceeds some limit)"};
  }
  if (spec.time_limit_minutes() < 0 && spec.time_limit_seconds() == 0) {
    // --time=UNLIMITED: only where the partition has no maximum.
    if (partition.maxTimeMinutes >= 0) {
      return Error{"Requested time limit is invalid (missing or exceeds some limit)"};
    }
    return -1;
  }
  if (requested == 0) {
    if (partition.defaultTimeMinutes > 0) return partition.defaultTimeMinutes * 60;
    return partition.maxTimeMinutes < 0 ? -1 : partition.maxTimeMinutes * 60;
  }
  if (partition.maxTimeMinutes >= 0 && requested > partition.maxTimeMinutes * 60) {
    return Error{"Requested time limit is invalid (missing or exceeds some limit)"};
  }
  return requested;
}

Result<select::Request> ControllerCore::toSelectRequest(const v1::JobSpec& spec) const {
  return jobSpecToRequest(spec, conf_);
}

void ControllerCore::submitJob(v1::SubmitJobRequest request, auth::Identity caller,
                               Reply<v1::SubmitJobResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller),
            reply = std::move(reply)]() mutable {
    const v1::JobSpec& spec = request.spec();
    auto partition = partitionFor(spec);
    if (!partition) return reply(Error{partition.error()});
    if ((*partition)->state != "UP") {
      return reply(Error{"Partition " + (*partition)->name + " is not accepting jobs (State=" +
                         (*partition)->state + ")"});
    }
    auto selectRequest = toSelectRequest(spec);
    if (!selectRequest) return reply(Error{selectRequest.error()});
    auto timeLimit = effectiveTimeLimit(spec, **partition);
    if (!timeLimit) return reply(Error{timeLimit.error()});
    select::PartitionView view = partitionView(**partition);
    select::Outcome ever = cluster_.canEverRun(*selectRequest, view);
    if (ever.verdict == select::Verdict::Never) {
      return reply(Error{ever.reason.empty() ? kNotAvailable : ever.reason});
    }

    if (request.test_only()) {
      return reply(testOnly(*selectRequest, view, **partition));
    }

    size_t active = 0;
    for (const auto& [id, entry] : jobs_) active += isTerminal(entry.job.state()) ? 0 : 1;
    if (active >= static_cast<size_t>(conf_.maxJobCount)) {
      return reply(Error{"Slurm temporarily unable to accept job, sleeping and retrying"});
    }

    JobEntry entry;
    v1::Job& job = entry.job;
    job.set_job_id(nextJobId_++);
    *job.mutable_spec() = spec;
    job.mutable_spec()->set_partition((*partition)->name);
    if (job.spec().name().empty()) job.mutable_spec()->set_name("sbatch");
    job.set_user(caller.user);
    job.set_uid(caller.uid);
    job.set_gid(caller.gid);
    job.set_state(v1::PENDING);
    job.set_reason(spec.hold() ? "JobHeldUser" : "None");
    job.set_submit_time(now());
    job.set_time_limit_seconds(*timeLimit);
    job.set_time_limit_minutes(*timeLimit < 0 ? -1 : (*timeLimit + 59) / 60);
    uint64_t id = job.job_id();
    auto [it, inserted] = jobs_.emplace(id, std::move(entry));
    persist(it->second, [this, id, reply = std::move(reply)](const Status& status) {
      if (!status) {
        // Not durable, so not accepted: forget it again.
        onStrand([this, id] { jobs_.erase(id); });
        return reply(Error{"cannot store the job: " + status.error()});
      }
      v1::SubmitJobResponse response;
      response.set_job_id(id);
      reply(std::move(response));
      onStrand([this] { requestSchedule(); });
    });
  });
}

v1::SubmitJobResponse ControllerCore::testOnly(const select::Request& request,
                                               const select::PartitionView& view,
                                               const config::PartitionConf& partition) {
  // Running jobs free their resources at their time limit; one without a
  // limit is taken to run for a year, so it never makes room in the estimate.
  std::vector<select::RunningJob> running;
  int64_t t = now();
  for (const auto& [id, entry] : jobs_) {
    if (!entry.holdsResources) continue;
    int64_t limit = entry.job.time_limit_seconds() > 0 ? entry.job.time_limit_seconds() : 365 * 86400;
    running.push_back({.allocation = entry.allocation, .endTime = entry.job.start_time() + limit});
  }
  select::StartEstimate estimate = cluster_.estimateStart(request, view, std::move(running), t);
  v1::SubmitJobResponse response;
  std::string job = "Job " + std::to_string(nextJobId_);
  if (estimate.outcome.verdict != select::Verdict::Placed) {
    response.set_test_only_result(job + " cannot be placed in partition " + partition.name + " (" +
                                  estimate.outcome.reason + ")");
    return response;
  }
  std::vector<std::string> names;
  int cpus = 0;
  for (const auto& grant : estimate.outcome.allocation.nodes) {
    const select::NodeInfo& info = cluster_.node(grant.node);
    names.push_back(info.name);
    cpus += cpusOf(grant, info);
  }
  char when[32];
  std::time_t start = static_cast<std::time_t>(estimate.startTime);
  std::tm local{};
  localtime_r(&start, &local);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &local);
  response.set_test_only_result(job + " to start at " + when + " using " + std::to_string(cpus) +
                                " processors on nodes " + nodeListOf(names) + " in partition " +
                                partition.name);
  return response;
}

void ControllerCore::persist(const JobEntry& entry, std::function<void(const Status&)> done) {
  options_.store->saveJob(entry.job, std::move(done));
}

// ---------------------------------------------------------------- scheduling

void ControllerCore::requestSchedule() {
  if (scheduleRequested_) return;
  scheduleRequested_ = true;
  onStrand([this] {
    scheduleRequested_ = false;
    schedule();
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
    endJob(entry, v1::NODE_FAIL, reason, 1, 0, false);
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
                            int exitCode, int signal, bool terminateOnNodes) {
  v1::Job& job = entry.job;
  if (terminateOnNodes) {
    for (const auto& alloc : job.allocation()) {
      if (NodeEntry* node = findNode(alloc.node())) {
        options_.agents->terminateJob(addressOf(*node), job.job_id(), {});
      }
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

// ---------------------------------------------------------------- cancel and admin

void ControllerCore::cancelJob(v1::CancelJobRequest request, auth::Identity caller,
                               Reply<v1::CancelJobResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller),
            reply = std::move(reply)]() mutable {
    v1::CancelJobResponse response;
    std::vector<uint64_t> ids(request.job_ids().begin(), request.job_ids().end());
    if (ids.empty() && !request.user().empty()) {
      for (const auto& [id, entry] : jobs_) {
        if (entry.job.user() == request.user() && !isTerminal(entry.job.state())) ids.push_back(id);
      }
    }
    std::vector<uint64_t> changed;
    for (uint64_t id : ids) {
      auto found = jobs_.find(id);
      if (found == jobs_.end()) {
        response.add_errors("Kill job error on job id " + std::to_string(id) + ": Invalid job id specified");
        continue;
      }
      JobEntry& entry = found->second;
      if (entry.job.uid() != caller.uid && !isAdministrator(caller)) {
        response.add_errors("Kill job error on job id " + std::to_string(id) +
                            ": Access/permission denied");
        continue;
      }
      if (isTerminal(entry.job.state())) {
        response.add_errors("Kill job error on job id " + std::to_string(id) +
                            ": Job/step already completing or completed");
        continue;
      }
      if (request.signal() != 0) {
        for (const auto& alloc : entry.job.allocation()) {
          if (NodeEntry* node = findNode(alloc.node())) {
            options_.agents->signalJob(addressOf(*node), id, request.signal(), {});
          }
        }
        continue;
      }
      bool running = entry.job.state() != v1::PENDING;
      endJob(entry, v1::CANCELLED, "None", 0, running ? SIGTERM : 0, running);
      changed.push_back(id);
    }
    if (changed.empty()) return reply(std::move(response));
    // Answer once the cancellations are durable: flush ordering is FIFO, so
    // waiting for a no-op save of the last job covers every earlier one.
    auto shared = std::make_shared<v1::CancelJobResponse>(std::move(response));
    persist(jobs_.at(changed.back()), [shared, reply = std::move(reply)](const Status& status) {
      if (!status) return reply(Error{"cannot store the cancellation: " + status.error()});
      reply(std::move(*shared));
    });
  });
}

void ControllerCore::updateNode(v1::UpdateNodeRequest request, auth::Identity caller,
                                Reply<v1::UpdateNodeResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller),
            reply = std::move(reply)]() mutable {
    if (!isAdministrator(caller)) {
      return reply(Error{"Access/permission denied: node updates are for root or SlurmUser"});
    }
    auto names = hostlist::expand(request.node_names());
    if (!names) return reply(Error{names.error()});
    std::string state = request.state();
    for (auto& c : state) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (state != "DOWN" && state != "DRAIN" && state != "RESUME" && state != "IDLE" &&
        state != "UNDRAIN") {
      return reply(Error{"Invalid node state specified: " + request.state() +
                         " (use DOWN, DRAIN, RESUME, IDLE or UNDRAIN)"});
    }
    if ((state == "DOWN" || state == "DRAIN") && request.reason().empty()) {
      return reply(Error{"You must specify a reason when changing a node's state to " + state});
    }
    std::vector<NodeEntry*> targets;
    for (const auto& name : *names) {
      NodeEntry* node = findNode(name);
      if (node == nullptr) return reply(Error{"Invalid node name specified: " + name});
      targets.push_back(node);
    }
    if (targets.empty()) return reply(Error{"no node names given"});
    for (NodeEntry* node : targets) {
      if (state == "RESUME" || state == "IDLE" || state == "UNDRAIN") {
        node->adminState.clear();
        node->reason.clear();
        node->registrationErrors.clear();
      } else {
        node->adminState = state;
        node->reason = request.reason();
      }
      node->reasonUser = caller.user;
      node->reasonTime = now();
      refreshSelectAvailability(*node);
      if (state == "DOWN") {
        for (uint64_t id : std::set<uint64_t>(node->jobs)) {
          auto found = jobs_.find(id);
          if (found != jobs_.end() && !isTerminal(found->second.job.state())) {
            for (const auto& alloc : found->second.job.allocation()) {
              if (NodeEntry* n = findNode(alloc.node())) {
                options_.agents->terminateJob(addressOf(*n), id, {});
              }
            }
            requeueJob(found->second, "Node " + node->conf.name + " set DOWN");
          }
        }
      }
    }
    for (size_t i = 0; i < targets.size(); ++i) {
      NodeEntry* node = targets[i];
      store::NodeAdminState admin{.name = node->conf.name, .state = node->adminState,
                                  .reason = node->reason, .user = node->reasonUser,
                                  .reasonTime = node->reasonTime};
      bool last = i + 1 == targets.size();
      options_.store->saveNode(admin, last ? std::function<void(const Status&)>(
                                                 [reply](const Status& status) {
                                                   if (!status) return reply(Error{status.error()});
                                                   reply(v1::UpdateNodeResponse{});
                                                 })
                                           : nullptr);
    }
    requestSchedule();
  });
}

void ControllerCore::jobAction(JobAction action, uint64_t jobId, auth::Identity caller,
                               Reply<Ok> reply) {
  onStrand([this, action, jobId, caller = std::move(caller), reply = std::move(reply)]() mutable {
    auto found = jobs_.find(jobId);
    if (found == jobs_.end()) return reply(Error{"Invalid job id specified: " + std::to_string(jobId)});
    JobEntry& entry = found->second;
    v1::Job& job = entry.job;
    bool owner = job.uid() == caller.uid;
    switch (action) {
      case JobAction::Hold:
      case JobAction::Release: {
        if (!owner && !isAdministrator(caller)) return reply(Error{"Access/permission denied"});
        if (job.state() != v1::PENDING) return reply(Error{"Job is no longer pending execution"});
        bool hold = action == JobAction::Hold;
        job.mutable_spec()->set_hold(hold);
        job.set_reason(hold ? (isAdministrator(caller) && !owner ? "JobHeldAdmin" : "JobHeldUser")
                            : "None");
        break;
      }
      case JobAction::Suspend:
      case JobAction::Resume: {
        if (!isAdministrator(caller)) return reply(Error{"Access/permission denied: suspend and resume are for root or SlurmUser"});
        bool suspend = action == JobAction::Suspend;
        if (suspend && job.state() != v1::RUNNING) return reply(Error{"Job is not running"});
        if (!suspend && job.state() != v1::SUSPENDED) return reply(Error{"Job is not suspended"});
        for (const auto& alloc : job.allocation()) {
          if (NodeEntry* node = findNode(alloc.node())) {
            if (suspend) {
              options_.agents->suspendJob(addressOf(*node), jobId, {});
            } else {
              options_.agents->resumeJob(addressOf(*node), jobId, {});
            }
          }
        }
        // Suspended jobs keep their resources; only the clock stops.
        if (suspend) {
          job.set_pre_suspend_seconds(job.pre_suspend_seconds() + now() - job.start_time());
          job.set_suspend_time(now());
          job.set_state(v1::SUSPENDED);
        } else {
          job.set_start_time(now());
          job.set_state(v1::RUNNING);
        }
        break;
      }
    }
    persist(entry, [reply = std::move(reply)](const Status& status) {
      if (!status) return reply(Error{status.error()});
      reply(Ok{});
    });
    requestSchedule();
  });
}

// ---------------------------------------------------------------- queries

void ControllerCore::listJobs(v1::ListJobsRequest request, Reply<v1::ListJobsResponse> reply) {
  onStrand([this, request = std::move(request), reply = std::move(reply)] {
    v1::ListJobsResponse response;
    std::set<uint64_t> ids(request.job_ids().begin(), request.job_ids().end());
    std::set<int> states(request.states().begin(), request.states().end());
    for (const auto& [id, entry] : jobs_) {
      const v1::Job& job = entry.job;
      if (!ids.empty() && ids.count(id) == 0) continue;
      if (!states.empty() && states.count(job.state()) == 0) continue;
      if (!request.user().empty() && job.user() != request.user()) continue;
      // Ended jobs are listed when asked for by id or explicitly.
      if (isTerminal(job.state()) && ids.empty() && !request.include_finished()) continue;
      *response.add_jobs() = job;
    }
    reply(std::move(response));
  });
}

void ControllerCore::listNodes(v1::ListNodesRequest request, Reply<v1::ListNodesResponse> reply) {
  onStrand([this, request = std::move(request), reply = std::move(reply)] {
    v1::ListNodesResponse response;
    std::set<std::string> names;
    for (const auto& expr : request.names()) {
      auto expanded = hostlist::expand(expr);
      if (!expanded) return reply(Error{expanded.error()});
      names.insert(expanded->begin(), expanded->end());
    }
    for (const auto& node : nodes_) {
      if (!names.empty() && names.count(node.conf.name) == 0) continue;
      *response.add_nodes() = nodeView(node);
    }
    if (!names.empty() && response.nodes_size() == 0) {
      return reply(Error{"Node " + *names.begin() + " not found"});
    }
    reply(std::move(response));
  });
}

void ControllerCore::listPartitions(v1::ListPartitionsRequest request,
                                    Reply<v1::ListPartitionsResponse> reply) {
  onStrand([this, request = std::move(request), reply = std::move(reply)] {
    v1::ListPartitionsResponse response;
    std::set<std::string> names(request.names().begin(), request.names().end());
    for (const auto& partition : conf_.partitions) {
      if (!names.empty() && names.count(partition.name) == 0) continue;
      v1::Partition* view = response.add_partitions();
      view->set_name(partition.name);
      view->set_nodes(partition.nodesExpr.empty() ? nodeListOf(partition.nodes) : partition.nodesExpr);
      view->set_is_default(partition.isDefault);
      view->set_max_nodes(partition.maxNodes);
      view->set_max_time_minutes(partition.maxTimeMinutes);
      view->set_default_time_minutes(partition.defaultTimeMinutes);
      view->set_state(partition.state);
      int cpus = 0;
      for (const auto& name : partition.nodes) {
        auto found = nodeIndex_.find(name);
        if (found != nodeIndex_.end()) cpus += nodes_[found->second].conf.cpus;
      }
      view->set_total_cpus(cpus);
      view->set_total_nodes(static_cast<int>(partition.nodes.size()));
      std::string over(config::toString(partition.overSubscribe));
      if (partition.overSubscribe == config::OverSubscribeMode::Yes ||
          partition.overSubscribe == config::OverSubscribeMode::Force) {
        over += ":" + std::to_string(partition.overSubscribeCount);
      }
      view->set_over_subscribe(over);
      view->set_priority_tier(partition.priorityTier);
      view->set_preempt_mode(partition.preemptMode);
    }
    if (!names.empty() && response.partitions_size() == 0) {
      return reply(Error{"Partition " + *names.begin() + " not found"});
    }
    reply(std::move(response));
  });
}

void ControllerCore::getConfig(Reply<v1::GetConfigResponse> reply) {
  onStrand([this, reply = std::move(reply)] {
    v1::GetConfigResponse response;
    for (const auto& [key, value] : conf_.entries) {
      v1::ConfigEntry* entry = response.add_entries();
      entry->set_key(key);
      entry->set_value(value);
    }
    reply(std::move(response));
  });
}

// ---------------------------------------------------------------- agents

void ControllerCore::registerNode(v1::RegisterRequest request, Reply<v1::RegisterResponse> reply) {
  onStrand([this, request = std::move(request), reply = std::move(reply)] {
    NodeEntry* node = findNode(request.node_name());
    if (node == nullptr) {
      return reply(Error{"node " + request.node_name() + " is not in gantry.conf"});
    }
    node->registered = true;
    node->notResponding = false;
    node->lastHeartbeat = now();
    if (!request.addr().empty()) node->addr = request.addr();
    if (request.port() != 0) node->port = request.port();
    node->hardware = request.hardware();
    // GRES against gantry.conf (short counts, chunk layouts) plus what the
    // agent found wrong itself. A bad registration drains the node with the
    // reasons; a good one leaves an earlier drain in place, because the spec
    // returns such a node only through `scontrol update State=RESUME`
    // (which clears registrationErrors; a still-bad node drains again).
    drain::RegistrationInput gresCheck{.configured = node->conf.gres,
                                       .configOverrides = conf_.configOverrides,
                                       .registered = {},
                                       .agentErrors = {request.errors().begin(), request.errors().end()}};
    for (const auto& device : request.hardware().gres()) {
      gresCheck.registered.push_back(drain::RegisteredGres{
          .name = device.name(),
          .type = device.type(),
          .files = device.files_size(),
          .count = device.count(),
          .chunkSizes = {device.chunk_sizes().begin(), device.chunk_sizes().end()},
          .chunkOrder = {device.chunk_order().begin(), device.chunk_order().end()}});
    }
    std::vector<std::string> drainReasons = drain::registrationDrainReasons(gresCheck);
    // Per-GPU shard/mps counts against the node's Gres= totals.
    std::vector<gres::ConfiguredGres> configuredShared;
    for (const auto& configured : node->conf.gres) {
      if (gres::isSharedGresName(configured.name)) {
        configuredShared.push_back({.name = configured.name, .type = configured.type, .count = configured.count});
      }
    }
    if (auto shared = gres::checkSharedTotals(selectInfoFor(*node).devices, configuredShared); !shared) {
      drainReasons.push_back(shared.error());
    }
    // Detected hardware below what gantry.conf promises drains the node,
    // unless SlurmdParameters=config_overrides makes the configuration stand.
    if (!conf_.configOverrides) {
      const auto& hw = request.hardware();
      if (hw.cpus() > 0 && hw.cpus() < node->conf.cpus) {
        drainReasons.push_back("Low CPUs: configured " + std::to_string(node->conf.cpus) +
                               ", found " + std::to_string(hw.cpus()));
      }
      if (hw.real_memory_mb() > 0 && hw.real_memory_mb() < node->conf.realMemoryMb) {
        drainReasons.push_back("Low RealMemory: configured " + std::to_string(node->conf.realMemoryMb) +
                               "MB, found " + std::to_string(hw.real_memory_mb()) + "MB");
      }
    }
    if (!drainReasons.empty()) node->registrationErrors = std::move(drainReasons);
    cluster_.replaceNode(node->selectIndex, selectInfoFor(*node));
    refreshSelectAvailability(*node);

    // Jobs we believe run here but the agent does not have were lost with
    // the node (or never reached it): requeue them. Steps the agent runs for
    // jobs we do not know as running here are orphans: the agent ends them.
    std::set<uint64_t> reported;
    for (const auto& step : request.running()) reported.insert(step.job_id());
    v1::RegisterResponse response;
    for (uint64_t id : std::set<uint64_t>(node->jobs)) {
      auto found = jobs_.find(id);
      if (found == jobs_.end()) continue;
      JobEntry& entry = found->second;
      // Allocations without a script (salloc, srun) have no batch step to lose.
      if (entry.launchInFlight || entry.job.batch_host() != node->conf.name ||
          entry.job.spec().script().empty()) {
        continue;
      }
      if (!isTerminal(entry.job.state()) && reported.count(id) == 0) {
        requeueJob(entry, "batch step lost when node " + node->conf.name + " restarted");
      }
    }
    for (uint64_t id : reported) {
      auto found = jobs_.find(id);
      if (found == jobs_.end() || isTerminal(found->second.job.state()) ||
          node->jobs.count(id) == 0) {
        response.add_orphan_jobs(id);
      }
    }
    reply(std::move(response));
    requestSchedule();
  });
}

void ControllerCore::heartbeat(v1::HeartbeatRequest request, Reply<v1::HeartbeatResponse> reply) {
  onStrand([this, request = std::move(request), reply = std::move(reply)] {
    v1::HeartbeatResponse response;
    NodeEntry* node = findNode(request.node_name());
    if (node == nullptr) return reply(Error{"node " + request.node_name() + " is not in gantry.conf"});
    if (!node->registered) {
      response.set_reregister(true);
      return reply(std::move(response));
    }
    node->lastHeartbeat = now();
    if (node->notResponding) {
      node->notResponding = false;
      refreshSelectAvailability(*node);
      requestSchedule();
    }
    for (const auto& step : request.running()) {
      auto found = jobs_.find(step.job_id());
      if (found == jobs_.end() || isTerminal(found->second.job.state()) ||
          node->jobs.count(step.job_id()) == 0) {
        response.add_orphan_jobs(step.job_id());
      }
    }
    reply(std::move(response));
  });
}

void ControllerCore::stepComplete(v1::StepCompleteRequest request,
                                  Reply<v1::StepCompleteResponse> reply) {
  onStrand([this, request = std::move(request), reply = std::move(reply)] {
    if (numberedStepComplete(request)) return reply(v1::StepCompleteResponse{});
    auto found = jobs_.find(request.job_id());
    // Reports are retried until acknowledged, so a repeat (or a report for a
    // job that already ended) is simply acknowledged.
    if (found == jobs_.end() || isTerminal(found->second.job.state()) ||
        request.step_id() != "batch") {
      return reply(v1::StepCompleteResponse{});
    }
    JobEntry& entry = found->second;
    if (entry.job.batch_host() != request.node_name()) return reply(v1::StepCompleteResponse{});
    bool ok = request.exit_code() == 0 && request.term_signal() == 0;
    std::string reason = ok ? "None" : (request.term_signal() != 0 ? "RaisedSignal:" + std::to_string(request.term_signal())
                                                               : "NonZeroExitCode");
    if (!request.message().empty() && !ok) reason = request.message();
    endJob(entry, ok ? v1::COMPLETED : v1::FAILED, reason, request.exit_code(),
           request.term_signal(), false);
    if (request.end_time() > 0) entry.job.set_end_time(request.end_time());
    persist(entry, [reply = std::move(reply)](const Status& status) {
      if (!status) return reply(Error{status.error()});
      reply(v1::StepCompleteResponse{});
    });
  });
}

// ---------------------------------------------------------------- periodic

void ControllerCore::tick() {
  if (stopped_) return;
  checkTimeLimits();
  checkHeartbeats();
  forgetOldJobs();
  schedule();
  timer_.expires_after(options_.tick);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) tick();
  });
}

void ControllerCore::checkTimeLimits() {
  int64_t t = now();
  for (auto& [id, entry] : jobs_) {
    v1::Job& job = entry.job;
    if (job.state() != v1::RUNNING || job.time_limit_seconds() <= 0) continue;
    int64_t ran = job.pre_suspend_seconds() + (t - job.start_time());
    if (ran >= job.time_limit_seconds()) {
      endJob(entry, v1::TIMEOUT, "TimeLimit", 0, SIGTERM, true);
    }
  }
}

void ControllerCore::checkHeartbeats() {
  int64_t t = now();
  for (auto& node : nodes_) {
    int64_t last = node.registered ? node.lastHeartbeat : startTime_;
    if (node.notResponding || t - last < conf_.slurmdTimeoutSec) continue;
    node.notResponding = true;
    node.reasonTime = t;
    refreshSelectAvailability(node);
    for (uint64_t id : std::set<uint64_t>(node.jobs)) {
      auto found = jobs_.find(id);
      if (found == jobs_.end() || isTerminal(found->second.job.state())) continue;
      for (const auto& alloc : found->second.job.allocation()) {
        if (NodeEntry* other = findNode(alloc.node()); other != nullptr && other != &node) {
          options_.agents->terminateJob(addressOf(*other), id, {});
        }
      }
      requeueJob(found->second, "Node " + node.conf.name + " not responding");
    }
  }
}

void ControllerCore::forgetOldJobs() {
  int64_t t = now();
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const v1::Job& job = it->second.job;
    if (isTerminal(job.state()) && job.end_time() + options_.keepFinishedSeconds < t) {
      it = jobs_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace gantry::core
