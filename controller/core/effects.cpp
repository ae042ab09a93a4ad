#include "controller/core/effects.h"

#include <algorithm>
#include <cctype>
#include <spdlog/spdlog.h>

#include "common/hostlist/hostlist.h"
#include "controller/core/core_helpers.h"
#include "controller/core/launch_request.h"
#include "controller/core/select_info.h"
#include "controller/rpc/views.h"

namespace gantry::core {

namespace {

constexpr std::chrono::seconds kFirstRetry{1};
constexpr std::chrono::seconds kLongestRetry{30};

std::string toLower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

AgentAddress addressOf(const NodeRecord& node) {
  return AgentAddress{.node = node.conf.name, .addr = node.addr, .port = node.port};
}

// The grants of a job's allocation that lie on one node.
select::Allocation sliceOn(const JobRecord& job, int selectIndex) {
  select::Allocation slice;
  slice.owner = job.allocation.owner;
  for (const auto& grant : job.allocation.nodes) {
    if (grant.node == selectIndex) slice.nodes.push_back(grant);
  }
  return slice;
}

// Where each device of `before` is in `after`, found by its UUID, else by
// its first device file; -1 for a device gone. Empty when nothing moved, or
// when `before` did not know its devices (the configured view before any
// registration), where positions are all there is to go by.
std::vector<int> devicePositionsMoved(const select::NodeInfo& before, const select::NodeInfo& after) {
  std::vector<int> moved(before.devices.size(), -1);
  bool changed = false;
  for (size_t old = 0; old < before.devices.size(); ++old) {
    const select::DeviceInfo& device = before.devices[old];
    if (device.uuid.empty() && device.files.empty()) return {};
    for (size_t now = 0; now < after.devices.size(); ++now) {
      const select::DeviceInfo& candidate = after.devices[now];
      bool same = candidate.name == device.name &&
                  (!device.uuid.empty() ? candidate.uuid == device.uuid
                                        : !candidate.files.empty() && candidate.files.front() == device.files.front());
      if (same) {
        moved[old] = static_cast<int>(now);
        break;
      }
    }
    changed = changed || moved[old] != static_cast<int>(old);
  }
  return changed ? moved : std::vector<int>{};
}

// Rewrites the device indexes an allocation holds on node `selectIndex`.
void moveDevices(select::Allocation& allocation, int selectIndex, const std::vector<int>& moved) {
  auto at = [&](int device) { return device >= 0 && device < static_cast<int>(moved.size()) ? moved[device] : -1; };
  for (auto& grant : allocation.nodes) {
    if (grant.node != selectIndex) continue;
    std::vector<int> devices;
    for (int device : grant.devices) {
      if (at(device) >= 0) devices.push_back(at(device));
    }
    std::sort(devices.begin(), devices.end());
    grant.devices = std::move(devices);
    std::erase_if(grant.shares, [&](const select::ShareGrant& share) { return at(share.device) < 0; });
    for (auto& share : grant.shares) share.device = at(share.device);
  }
}

}  // namespace

// PrologFlags=Contain (a comma-separated list, any case) asks for the
// extern step.
bool detail::wantsExternStep(const config::GantryConf& conf) {
  for (const auto& [key, value] : conf.entries) {
    if (toLower(key) != "prologflags") continue;
    std::string flags = "," + toLower(value) + ",";
    if (flags.find(",contain,") != std::string::npos) return true;
  }
  return false;
}

EffectExecutor::EffectExecutor(CoreState& state, store::JobStore& store, AgentGateway& agents,
                               TimerQueue& timers, Hooks hooks)
    : state_(state), store_(store), agents_(agents), timers_(timers), hooks_(std::move(hooks)) {}

void EffectExecutor::execute(const Effects& effects, std::function<void(const Status&)> persisted) {
  size_t lastPersist = effects.size();
  for (size_t i = 0; i < effects.size(); ++i) {
    if (std::holds_alternative<PersistJob>(effects[i])) lastPersist = i;
  }
  auto launches = [&](uint64_t job) {
    return std::any_of(effects.begin(), effects.end(), [job](const Effect& effect) {
      const auto* launch = std::get_if<LaunchJob>(&effect);
      return launch != nullptr && launch->job == job;
    });
  };
  bool persistedRan = false;
  for (size_t i = 0; i < effects.size(); ++i) {
    const Effect& effect = effects[i];
    if (const auto* persist = std::get_if<PersistJob>(&effect)) {
      JobRecord* job = state_.findJob(persist->job);
      if (job == nullptr) continue;
      std::function<void(const Status&)> answer = i == lastPersist ? std::move(persisted) : nullptr;
      persistedRan = persistedRan || i == lastPersist;
      bool thenLaunch = launches(persist->job);
      uint64_t id = persist->job;
      int attempt = job->restartCount;
      persistJob(*job, [this, id, attempt, thenLaunch, answer = std::move(answer)](const Status& status) {
        if (thenLaunch) {
          hooks_.post([this, id, attempt, status] {
            JobRecord* job = state_.findJob(id);
            if (job == nullptr || job->restartCount != attempt) return;
            if (!status) return hooks_.jobEvent(id, job_event::StartNotStored{status.error()});
            launch(id);
          });
        }
        if (answer) answer(status);
      });
    } else if (const auto* hold = std::get_if<HoldResources>(&effect)) {
      if (JobRecord* job = state_.findJob(hold->job)) {
        supersede(job->id);
        holdResources(*job);
      }
    } else if (const auto* release = std::get_if<ReleaseResources>(&effect)) {
      if (JobRecord* job = state_.findJob(release->job)) releaseResources(*job);
    } else if (const auto* launch = std::get_if<LaunchJob>(&effect)) {
      bool persistedFirst = std::any_of(effects.begin(), effects.end(), [&](const Effect& e) {
        const auto* p = std::get_if<PersistJob>(&e);
        return p != nullptr && p->job == launch->job;
      });
      if (!persistedFirst) this->launch(launch->job);
    } else if (const auto* terminate = std::get_if<TerminateOnNodes>(&effect)) {
      toNodes(Command::Terminate, terminate->job, terminate->nodes);
    } else if (const auto* suspend = std::get_if<SuspendOnNodes>(&effect)) {
      toNodes(Command::Suspend, suspend->job, suspend->nodes);
    } else if (const auto* resume = std::get_if<ResumeOnNodes>(&effect)) {
      toNodes(Command::Resume, resume->job, resume->nodes);
    } else if (const auto* signal = std::get_if<SignalOnNodes>(&effect)) {
      // A user's signal is best effort, never retried (as scancel -s).
      for (const auto& name : signal->nodes) {
        if (NodeRecord* node = state_.findNode(name)) {
          agents_.signalJob(addressOf(*node), signal->job, signal->step, signal->signal, signal->scope, {});
        }
      }
    } else if (const auto* drain = std::get_if<DrainNode>(&effect)) {
      hooks_.nodeEvent(drain->node, node_event::Drain{drain->reason});
    } else if (const auto* persistNode = std::get_if<PersistNode>(&effect)) {
      if (NodeRecord* node = state_.findNode(persistNode->node)) this->persistNode(*node);
    } else if (const auto* refresh = std::get_if<RefreshNode>(&effect)) {
      if (NodeRecord* node = state_.findNode(refresh->node)) refreshNode(*node, refresh->hardwareChanged);
    } else if (std::holds_alternative<Schedule>(effect)) {
      hooks_.schedule();
    }
  }
  if (!persistedRan && persisted) persisted(okStatus());
}

// ---------------------------------------------------------------- resources

void EffectExecutor::holdResources(JobRecord& job) {
  state_.cluster.commit(job.allocation);
  for (const auto& grant : job.allocation.nodes) {
    NodeRecord& node = state_.nodeAt(grant.node);
    node.allocCpus = state_.cluster.heldCpus(grant.node);
    node.allocMemoryMb += grant.memoryMb;
    node.jobs.insert(job.id);
    if (hooks_.now) node.lastBusyTime = hooks_.now();
  }
}

void EffectExecutor::releaseResources(JobRecord& job) {
  state_.cluster.release(job.allocation);
  for (const auto& grant : job.allocation.nodes) {
    NodeRecord& node = state_.nodeAt(grant.node);
    node.allocCpus = state_.cluster.heldCpus(grant.node);
    node.allocMemoryMb -= std::min(node.allocMemoryMb, grant.memoryMb);
    node.jobs.erase(job.id);
    if (hooks_.now) node.lastBusyTime = hooks_.now();
  }
}

void EffectExecutor::refreshNode(NodeRecord& node, bool hardwareChanged) {
  if (hardwareChanged) {
    // Take what the node's jobs hold off the old view and lay it on the new
    // one, so the devices a job holds stay held whatever the old view knew
    // of them (before the first registration it may have known none).
    std::vector<select::Allocation> held;
    for (uint64_t id : node.jobs) {
      if (const JobRecord* job = state_.findJob(id)) held.push_back(sliceOn(*job, node.selectIndex));
    }
    for (const auto& slice : held) state_.cluster.release(slice);
    select::NodeInfo fresh = selectInfoFor(node);
    // A layout change (a saved order taken up or dropped, a lowered count)
    // can move a card to another index: the jobs holding it follow it there.
    std::vector<int> moved = devicePositionsMoved(state_.cluster.node(node.selectIndex), fresh);
    state_.cluster.replaceNode(node.selectIndex, std::move(fresh));
    if (!moved.empty()) {
      held.clear();
      for (uint64_t id : node.jobs) {
        JobRecord* job = state_.findJob(id);
        if (job == nullptr) continue;
        moveDevices(job->allocation, node.selectIndex, moved);
        for (auto& [stepId, step] : job->steps) moveDevices(step.allocation, node.selectIndex, moved);
        held.push_back(sliceOn(*job, node.selectIndex));
        persistJob(*job);
      }
    }
    for (const auto& slice : held) state_.cluster.commit(slice);
    node.allocCpus = state_.cluster.heldCpus(node.selectIndex);
  }
  // Drains follow the record on every refresh: a job holding a drained
  // resource keeps it, and no new allocation gets it.
  const select::NodeInfo& info = state_.cluster.node(node.selectIndex);
  SelectDrains drains = selectDrainsFor(node, info);
  for (int device = 0; device < static_cast<int>(info.devices.size()) && device < gres::kMaxDevicesPerNode; ++device) {
    state_.cluster.setDeviceDrained(node.selectIndex, device, (drains.devices & gres::bitOf(device)) != 0);
  }
  state_.cluster.setResourceDrains(node.selectIndex, std::move(drains.resources));
  state_.cluster.setAvailable(node.selectIndex, node.schedulable());
}

// ---------------------------------------------------------------- store

void EffectExecutor::persistJob(const JobRecord& job, std::function<void(const Status&)> done) {
  v1::Job stored = views::jobToWire(job, state_.cluster, views::kStoredDetail);
  if (journal_ == nullptr) return store_.saveJob(stored, std::move(done));
  // The job's accounting records are built from the stored form on the
  // store's writer thread and journaled in the same transaction.
  AccountingJournal::Persist persist = journal_->persistOf(job, state_.cluster, std::move(stored));
  store_.saveJob(
      *persist.stored,
      [committed = std::move(persist.committed), done = std::move(done)](const Status& status) {
        committed(status);
        if (done) done(status);
      },
      std::move(persist.encoder));
}

void EffectExecutor::persistNode(const NodeRecord& node, std::function<void(const Status&)> done) {
  store::NodeAdminState saved{.name = node.conf.name,
                              .state = std::string(toString(node.admin)),
                              .reason = node.reason,
                              .user = node.reasonUser,
                              .reasonTime = node.reasonTime};
  if (node.hardwareKnown) store_.saveNodeHardware(node.conf.name, node.hardware.SerializeAsString());
  store_.saveNodeDrains(node.conf.name, node.drainedTres);
  store_.saveNode(saved, std::move(done));
}

// ---------------------------------------------------------------- nodes

void EffectExecutor::supersede(uint64_t job) {
  for (auto it = latest_.lower_bound({job, std::string()}); it != latest_.end() && it->first.first == job;) {
    it = forget(it);
  }
}

void EffectExecutor::remember(uint64_t job, const std::string& node, Pending pending) {
  auto [entry, inserted] = latest_.try_emplace({job, node}, pending);
  if (!inserted) {
    bool wasSuspend = entry->second.command == Command::Suspend;
    entry->second = pending;
    if (wasSuspend) {
      if (--suspendsInFlight_[node] <= 0) suspendsInFlight_.erase(node);
      if (hooks_.suspendSettled) hooks_.post(hooks_.suspendSettled);
    }
  }
  if (pending.command == Command::Suspend) ++suspendsInFlight_[node];
}

EffectExecutor::PendingMap::iterator EffectExecutor::forget(PendingMap::iterator entry) {
  if (entry->second.command == Command::Suspend) {
    const std::string& node = entry->first.second;
    if (--suspendsInFlight_[node] <= 0) suspendsInFlight_.erase(node);
    if (hooks_.suspendSettled) hooks_.post(hooks_.suspendSettled);
  }
  return latest_.erase(entry);
}

int EffectExecutor::suspendsInFlight(const std::string& node) const {
  auto found = suspendsInFlight_.find(node);
  return found == suspendsInFlight_.end() ? 0 : found->second;
}

void EffectExecutor::toNodes(Command command, uint64_t job, const std::vector<std::string>& nodes) {
  for (const auto& node : nodes) {
    uint64_t sequence = nextSequence_++;
    remember(job, node, Pending{sequence, command});
    send(command, job, node, sequence, 0);
  }
}

void EffectExecutor::send(Command command, uint64_t job, const std::string& nodeName, uint64_t sequence,
                          int attempt) {
  NodeRecord* node = state_.findNode(nodeName);
  if (node == nullptr) {
    if (auto entry = latest_.find({job, nodeName}); entry != latest_.end()) forget(entry);
    return;
  }
  auto answered = [this, command, job, nodeName, sequence, attempt](const Status& status) {
    hooks_.post([this, command, job, nodeName, sequence, attempt, status] {
      auto newest = latest_.find({job, nodeName});
      if (newest == latest_.end() || newest->second.sequence != sequence) return;  // superseded
      if (status) {
        forget(newest);
        return;
      }
      auto delay = std::min<std::chrono::seconds>(kFirstRetry * (1 << std::min(attempt, 5)), kLongestRetry);
      spdlog::warn("job {}: node {} did not acknowledge ({}); retrying in {} s", job, nodeName, status.error(),
                   delay.count());
      timers_.after(delay, [this, command, job, nodeName, sequence, attempt] {
        hooks_.post([this, command, job, nodeName, sequence, attempt] {
          auto still = latest_.find({job, nodeName});
          if (still == latest_.end() || still->second.sequence != sequence) return;
          send(command, job, nodeName, sequence, attempt + 1);
        });
      });
    });
  };
  AgentAddress to = addressOf(*node);
  switch (command) {
    case Command::Terminate: agents_.terminateJob(to, job, std::move(answered)); break;
    case Command::Suspend: agents_.suspendJob(to, job, std::move(answered)); break;
    case Command::Resume: agents_.resumeJob(to, job, std::move(answered)); break;
  }
}

// ---------------------------------------------------------------- launches

void EffectExecutor::launch(uint64_t id) {
  JobRecord* job = state_.findJob(id);
  if (job == nullptr || job->state != JobState::Running) return;
  launchBatch(*job);
  launchExtern(*job);
}

void EffectExecutor::launchBatch(JobRecord& job) {
  // A job without a script (salloc, srun outside a job) only holds its
  // allocation; its steps come through createStep.
  if (!job.isBatch() || job.allocation.nodes.empty()) {
    job.launchInFlight = false;
    return;
  }
  NodeRecord* node = state_.findNode(job.batchHost());
  if (node == nullptr) return;
  const select::NodeGrant& grant = job.allocation.nodes.front();
  StepPlacement placement{.stepId = "batch",
                          .grant = &grant,
                          .nodeList = hostlist::compress(job.nodeNames),
                          .nodeId = 0,
                          .numNodes = static_cast<int>(job.nodeNames.size()),
                          .ntasks = job.spec.ntasks() > 0 ? job.spec.ntasks() : 1,
                          .tasksOnNode = 1,
                          .firstTaskId = 0};
  auto request = buildLaunchRequest(job, *node, state_.cluster.node(grant.node), placement);
  describeSwitchForStep(job, state_.conf.clusterName, request);
  uint64_t id = job.id;
  int attempt = job.restartCount;
  agents_.launchStep(addressOf(*node), std::move(request), [this, id, attempt](const Status& status) {
    hooks_.post([this, id, attempt, status] {
      JobRecord* job = state_.findJob(id);
      // An answer for an earlier start of a requeued job changes nothing.
      if (job == nullptr || job->restartCount != attempt) return;
      hooks_.jobEvent(id, job_event::LaunchAnswered{status.ok(), status.ok() ? "" : status.error()});
    });
  });
}

void EffectExecutor::launchExtern(JobRecord& job) {
  if (!detail::wantsExternStep(state_.conf)) return;
  for (size_t i = 0; i < job.allocation.nodes.size(); ++i) {
    const select::NodeGrant& grant = job.allocation.nodes[i];
    NodeRecord& node = state_.nodeAt(grant.node);
    StepPlacement placement{.stepId = "extern",
                            .grant = &grant,
                            .nodeList = hostlist::compress(job.nodeNames),
                            .nodeId = static_cast<int>(i),
                            .numNodes = static_cast<int>(job.nodeNames.size()),
                            .ntasks = 0,
                            .tasksOnNode = 1};
    // The extern step only holds the job's confinement; a node that cannot
    // start it still runs the job's other steps.
    auto request = buildLaunchRequest(job, node, state_.cluster.node(grant.node), placement);
    describeSwitchForStep(job, state_.conf.clusterName, request);
    agents_.launchStep(addressOf(node), std::move(request), {});
  }
}

void EffectExecutor::launchInteractive(const JobRecord& job, const StepRecord& step,
                                       const v1::CreateStepRequest& request) {
  int firstTask = 0;
  std::string nodeList = hostlist::compress(step.nodes);
  for (size_t i = 0; i < step.allocation.nodes.size(); ++i) {
    const select::NodeGrant& grant = step.allocation.nodes[i];
    NodeRecord& node = state_.nodeAt(grant.node);
    StepPlacement placement{.stepId = std::to_string(step.id),
                            .grant = &grant,
                            .nodeList = nodeList,
                            .nodeId = static_cast<int>(i),
                            .numNodes = static_cast<int>(step.nodes.size()),
                            .ntasks = step.ntasks,
                            .tasksOnNode = grant.tasks,
                            .firstTaskId = firstTask,
                            .interactive = &request};
    firstTask += grant.tasks;
    uint64_t jobId = job.id;
    uint32_t stepId = step.id;
    std::string name = node.conf.name;
    auto launch = buildLaunchRequest(job, node, state_.cluster.node(grant.node), placement);
    describeSwitchForStep(job, state_.conf.clusterName, launch);
    agents_.launchStep(addressOf(node), std::move(launch),
                       [this, jobId, stepId, name](const Status& status) {
                         if (status) return;
                         hooks_.post([this, jobId, stepId, name, status] {
                           hooks_.stepNotStarted(jobId, stepId, name, "launch failed on " + name + ": " + status.error());
                         });
                       });
  }
}

}  // namespace gantry::core
