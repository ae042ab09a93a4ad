// ControllerCore: construction, recovery from the store at start, the
// periodic checks (time limits, heartbeats, forgetting old jobs), and the
// one path every change takes: an event through the lifecycle, its effects
// through the executor.
#include "controller/core/controller_core.h"

#include <spdlog/spdlog.h>

#include "controller/core/job_request.h"
#include "controller/core/select_info.h"
#include "controller/rpc/views.h"

namespace gantry::core {

namespace {

std::string upper(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

NodeAdminState adminStateFrom(const std::string& text) {
  std::string state = upper(text);
  if (state == "DOWN") return NodeAdminState::Down;
  if (state == "DOWN+DRAIN") return NodeAdminState::DownDrain;
  if (state == "DRAIN") return NodeAdminState::Drain;
  // A node configured FAILING has no jobs yet: it is simply failing.
  if (state == "FAIL" || state == "FAILING") return NodeAdminState::Fail;
  return NodeAdminState::None;
}

}  // namespace

ControllerCore::ControllerCore(boost::asio::io_context& io, CoreOptions options)
    : io_(io),
      strand_(boost::asio::make_strand(io)),
      options_(options),
      conf_(*options.conf),
      ownTimers_(options.timers == nullptr ? std::make_unique<AsioTimerQueue>(strand_) : nullptr),
      timers_(options.timers != nullptr ? options.timers : ownTimers_.get()),
      state_(*options.conf),
      accountingJournal_(makeAccountingJournal()),
      executor_(state_, *options.store, *options.agents, *timers_,
                EffectExecutor::Hooks{
                    .post = [this](std::function<void()> work) { onStrand(std::move(work)); },
                    .jobEvent =
                        [this](uint64_t id, JobEvent event) {
                          if (JobRecord* job = state_.findJob(id)) (void)applyJob(*job, event);
                        },
                    .nodeEvent =
                        [this](const std::string& name, NodeEvent event) {
                          if (NodeRecord* node = state_.findNode(name)) applyNode(*node, event);
                        },
                    .stepNotStarted =
                        [this](uint64_t job, uint32_t step, const std::string& node, const std::string& why) {
                          stepEndedOnNode(job, step, node, 1, why);
                        },
                    .schedule = [this] { requestSchedule(); },
                    .suspendSettled = [this] { resumeWaitingGangJobs(); },
                    .now = [this] { return now(); }}) {
  executor_.setAccountingJournal(accountingJournal_.get());
}

int64_t ControllerCore::now() const { return toUnixSeconds(options_.clock->now()); }

bool ControllerCore::isAdministrator(const auth::Identity& caller) const {
  return caller.uid == 0 || caller.uid == options_.slurmUserUid;
}

Result<Ok> ControllerCore::applyJob(JobRecord& job, const JobEvent& event,
                                    std::function<void(const Status&)> persisted) {
  bool held = job.holdsResources;
  // The nodes of a run whose interconnect switch.lua set up, for its teardown.
  std::vector<std::string> runNodes = held && job.network ? job.nodeNames : std::vector<std::string>{};
  auto effects = onJobEvent(job, event, now(), policy());
  if (!effects) return Error{effects.failure()};
  // A pass's verdicts on pending jobs, and the agents' answers to the starts
  // it made, change nothing a full pass that gave the strand back relies on.
  if (!std::holds_alternative<job_event::StillPending>(event) &&
      !std::holds_alternative<job_event::DependencyChecked>(event) &&
      !std::holds_alternative<job_event::LaunchAnswered>(event)) {
    ++stateEpoch_;
  }
  // A job that stops running (ends, is requeued or suspended) is no longer
  // STOPPED: what it shows next is its new state. Before the effects, so
  // the job is stored without the flag.
  if (job.state != JobState::Running) job.stopped = false;
  executor_.execute(*effects, std::move(persisted));
  if (held && !job.holdsResources) {
    leaveGang(job);
    if (job.network) switchRunEnded(job, std::move(runNodes));
  }
  return Ok{};
}

void ControllerCore::applyNode(NodeRecord& node, const NodeEvent& event) {
  ++stateEpoch_;
  executor_.execute(onNodeEvent(node, event, now()));
  recordNodeEvents(node);
}

int ControllerCore::shareGroupFor(const JobRecord& job) {
  return maySharePartitionCpus(conf_.findPartition(job.spec.partition()), job.spec)
             ? state_.shareGroupOf(job.spec.partition())
             : select::kUnshared;
}

void ControllerCore::loseJobsOn(NodeRecord& node, JobReason why) {
  for (uint64_t id : std::set<uint64_t>(node.jobs)) {
    if (JobRecord* job = state_.findJob(id)) (void)applyJob(*job, job_event::NodeLost{node.conf.name, why});
  }
}

// ---------------------------------------------------------------- start

void ControllerCore::addConfiguredNode(const config::NodeConf& nodeConf) {
  NodeRecord node;
  node.conf = nodeConf;
  node.addr = nodeConf.addr.empty() ? nodeConf.name : nodeConf.addr;
  node.port = nodeConf.port != 0 ? nodeConf.port : conf_.slurmdPort;
  node.selectIndex = state_.cluster.addNode(selectInfoFor(node));
  state_.nodeIndex[node.conf.name] = state_.nodes.size();
  state_.nodes.push_back(std::move(node));
}

Status ControllerCore::start() {
  startTime_ = now();
  for (const auto& nodeConf : conf_.nodes) addConfiguredNode(nodeConf);
  for (auto& node : state_.nodes) {
    // A node configured DOWN, DRAIN or FAIL starts that way.
    NodeAdminState configured = adminStateFrom(node.conf.state);
    if (configured != NodeAdminState::None) {
      node.admin = configured;
      node.reason = "configured " + std::string(toString(configured));
      node.reasonTime = startTime_;
    }
  }
  state_.rebuildPartitions();
  auto snapshot = options_.store->load(now(), options_.keepFinishedSeconds);
  if (!snapshot) return Error{snapshot.failure()};
  switchActive_ = options_.switchCalls != nullptr && conf_.switchType == "switch/lua";
  switchAnswers_ = options_.switchAnswers;
  // The journal first: what recovery persists is numbered after the rows
  // still waiting from before the restart.
  if (accountingJournal_) accountingJournal_->recover(snapshot->accountingJournal);
  recover(*snapshot);
  startUsageLedger(snapshot->usageLedger);
  startAccounting();
  recoverSwitchRecords();
  armSwitchCheck();
  if (conf_.gangScheduling()) {
    gangSliceSeconds_ = std::max(conf_.schedulerTimeSliceSec, 1);
    spdlog::info("gang scheduling on: SchedulerTimeSlice={} s", gangSliceSeconds_);
  }
  rebuildGangs();
  armTick();
  armSlice();
  armPriorityCalc();
  armFullPass();
  requestSchedule();
  return okStatus();
}

void ControllerCore::recover(const store::Snapshot& snapshot) {
  state_.nextJobId = snapshot.maxJobId + 1;
  // Nodes first, with the hardware of their last registration, so that the
  // allocations recovered below land on the devices they really hold.
  for (const auto& saved : snapshot.nodes) {
    if (NodeRecord* node = state_.findNode(saved.name)) {
      node->admin = adminStateFrom(saved.state);
      node->reason = saved.reason;
      node->reasonUser = saved.user;
      node->reasonTime = saved.reasonTime;
    }
  }
  // Drains and saved device orders before the hardware: the order lays the
  // devices out at their saved indexes.
  for (const auto& [name, drains] : snapshot.nodeDrains) {
    if (NodeRecord* node = state_.findNode(name)) node->drainedTres = drains;
  }
  for (const auto& [name, hardware] : snapshot.nodeHardware) {
    NodeRecord* node = state_.findNode(name);
    if (node == nullptr || hardware.empty() || !node->hardware.ParseFromString(hardware)) continue;
    node->hardwareKnown = true;
    state_.cluster.replaceNode(node->selectIndex, selectInfoFor(*node));
  }
  auto indexOf = [this](const std::string& name) {
    const NodeRecord* node = state_.findNode(name);
    return node == nullptr ? -1 : node->selectIndex;
  };
  for (const auto& stored : snapshot.jobs) {
    JobRecord job = views::jobFromWire(stored, indexOf);
    uint64_t id = job.id;
    state_.addJob(std::move(job));
    JobRecord& record = state_.jobs.at(id);
    if (stored.has_switch_state() && !record.network) {
      spdlog::error("job {}: its stored switch/lua state cannot be read back; none of its switch calls runs again",
                    id);
    }
    record.allocation.owner.shareGroup = shareGroupFor(record);
    // Its -w/-x names are checked again against the nodes configured now;
    // the scheduling pass keeps a job whose names no longer resolve
    // pending with the reason (BadConstraints).
    if (record.state == JobState::Pending &&
        (!record.spec.required_nodes().empty() || !record.spec.excluded_nodes().empty())) {
      if (auto request = toSelectRequest(record.spec); !request) {
        spdlog::warn("job {}: its stored node lists no longer fit the configuration: {}", id, request.error());
      }
    }
    if (!isEnded(record.state) && record.state != JobState::Pending) {
      // Re-attach: the job keeps running on its agents; hold its resources
      // again so nothing else is placed on them.
      record.holdsResources = true;
      executor_.holdResources(record);
    }
  }
  // A task stored on its own while its array's record still lists it (the
  // controller stopped between the two writes of a split) runs once.
  for (const auto& [array, members] : state_.arrayMembers) {
    JobRecord* holder = state_.findJob(array);
    if (holder == nullptr || !holder->holdsArrayTasks()) continue;
    for (uint64_t member : members) {
      const JobRecord* task = state_.findJob(member);
      if (task != nullptr && task->arrayTaskId && holder->arrayPending.erase(*task->arrayTaskId)) {
        spdlog::warn("job array {}: task {} was stored on its own and in the array's record; it runs once", array,
                     *task->arrayTaskId);
      }
    }
    if (holder->arrayPending.empty()) {
      // Every index has a record of its own: nothing is left to start from it.
      holder->state = JobState::Cancelled;
      holder->endTime = now();
      executor_.persistJob(*holder);
    }
  }
  for (auto& node : state_.nodes) executor_.refreshNode(node, false);
  // A MaxDrainedTres lowered while the controller was down applies now.
  for (auto& node : state_.nodes) drainedTresChanged(node, node.drainedTres, false);
}

void ControllerCore::stop(std::function<void()> stopped) {
  onStrand([this, stopped = std::move(stopped)] {
    stopped_ = true;
    // Calls still running are killed now, so that a controller started
    // after this one runs them again without overlapping them.
    stopSwitchCalls();
    if (switchCheckTimer_ != 0) timers_->cancel(switchCheckTimer_);
    timers_->cancel(tickTimer_);
    if (sliceTimer_ != 0) timers_->cancel(sliceTimer_);
    if (priorityTimer_ != 0) timers_->cancel(priorityTimer_);
    if (fullPassTimer_ != 0) timers_->cancel(fullPassTimer_);
    if (beginTimer_ != 0) timers_->cancel(beginTimer_);
    fullPass_.reset();
    if (stopped) stopped();
  });
}

// ---------------------------------------------------------------- periodic

void ControllerCore::armTick() {
  tickTimer_ = timers_->after(options_.tick, [this] { onStrand([this] { tick(); }); });
}

void ControllerCore::tick() {
  if (stopped_) return;
  checkTimeLimits();
  checkHeartbeats();
  checkAllocationClients();
  forgetOldJobs();
  schedule();
  armTick();
}

void ControllerCore::checkTimeLimits() {
  int64_t t = now();
  for (auto& [id, job] : state_.jobs) {
    if (job.state != JobState::Running || job.timeLimitSeconds <= 0) continue;
    if (job.runSeconds(t) >= job.timeLimitSeconds) {
      (void)applyJob(job, job_event::TimeLimitReached{});
      continue;
    }
    sendWarnSignal(job, t);
  }
}

// --signal=[B:]sig@secs: once a run is within secs of its limit, sig goes
// to the job's steps (B: to the batch shell alone), as scancel -s would
// send it; the limit still ends the job.
void ControllerCore::sendWarnSignal(JobRecord& job, int64_t t) {
  const v1::JobSpec& spec = job.spec;
  if (spec.warn_signal() <= 0 || job.warnedRunStart == job.startTime) return;
  if (job.timeLimitSeconds - job.runSeconds(t) > spec.warn_time_seconds()) return;
  job.warnedRunStart = job.startTime;
  SignalScope scope = spec.warn_flags().find('B') != std::string::npos ? SignalScope::Batch : SignalScope::Steps;
  executor_.execute({SignalOnNodes{job.id, job.nodeNames, spec.warn_signal(), scope}});
}

void ControllerCore::checkHeartbeats() {
  int64_t t = now();
  for (auto& node : state_.nodes) {
    int64_t last = node.registered ? node.lastHeartbeat : startTime_;
    if (node.notResponding || t - last < conf_.slurmdTimeoutSec) continue;
    applyNode(node, node_event::HeartbeatMissed{});
    loseJobsOn(node, JobReason::NodeNotResponding);
  }
}

void ControllerCore::forgetOldJobs() {
  int64_t keep = options_.keepFinishedSeconds;
  if (keep <= 0) return;  // MinJobAge=0: ended jobs stay
  int64_t t = now();
  for (auto it = state_.jobs.begin(); it != state_.jobs.end();) {
    const JobRecord& job = it->second;
    // A job whose switch teardown is still to report stays (its record
    // says what to run again after a restart).
    bool switchBusy = job.network && (interconnect::hasOutstandingCalls(*job.network) || !job.switchHeldNodes.empty());
    if (isEnded(job.state) && job.endTime + keep < t && !switchBusy) {
      std::erase_if(setupSnapshots_, [id = it->first](const auto& entry) { return entry.first.first == id; });
      if (accountingJournal_) accountingJournal_->forgetJob(it->first);
      uint64_t id = it->first;
      ++it;
      state_.eraseJob(id);
    } else {
      ++it;
    }
  }
}

void ControllerCore::unacknowledgedNodeCommands(Reply<size_t> reply) {
  onStrand([this, reply = std::move(reply)] { reply(executor_.unacknowledged()); });
}

}  // namespace gantry::core
