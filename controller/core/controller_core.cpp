// ControllerCore: construction, recovery from the store at start, and the
// periodic checks (time limits, heartbeats, forgetting old jobs).
#include "controller/core/controller_core.h"

#include <csignal>
#include <spdlog/spdlog.h>


namespace gantry::core {

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
      endJob(entry, v1::TIMEOUT, "TimeLimit", 0, SIGTERM);
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
