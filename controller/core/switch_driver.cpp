// ControllerCore's side of switch/lua: it feeds each job's SwitchRecord the
// events of the job's life (placed, ended, a call's report, a timeout, the
// periodic check, a restart) through the pure lifecycle of controller/switch
// and carries out what it decides: calls started and killed through
// SwitchCalls, timers armed, the record stored with the job, the job
// started, requeued or cancelled, nodes held COMPLETING, released or drained.
//
// Everything here runs on the core's strand and never waits: a call runs in
// a process of its own and its report is posted back.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/hostlist/hostlist.h"
#include "common/util/sluid.h"
#include "controller/core/controller_core.h"

namespace gantry::core {

namespace sw = interconnect;

interconnect::SwitchSettings ControllerCore::switchSettings() const {
  return sw::SwitchSettings{.timeoutMs = static_cast<int64_t>(conf_.switchTimeoutSec) * 1000,
                            .retries = conf_.switchRetries,
                            .drainOnFailure = conf_.switchDrainOnFailure,
                            .blockJobComplete = switchAnswers_.blockJobComplete,
                            .setupSpecialSteps = switchAnswers_.setupSpecialSteps};
}

int64_t ControllerCore::nowMs() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(options_.clock->now().time_since_epoch()).count();
}

namespace {

const interconnect::SwitchCall* callOf(const JobRecord& job, interconnect::CallId id) {
  for (const auto& call : job.network->calls) {
    if (call.id == id) return &call;
  }
  return nullptr;
}

}  // namespace

switchlua::SwitchJob ControllerCore::switchJobOf(const JobRecord& job, const interconnect::SwitchCall* call) const {
  const v1::JobSpec& spec = job.spec;
  // The run the call is for: a teardown may come after the job was
  // requeued (and placed again), and is about the run that ended.
  const int run = call != nullptr && call->run >= 0 ? call->run : job.restartCount;
  const std::vector<std::string>& nodes = call != nullptr ? call->nodes : job.nodeNames;
  switchlua::SwitchJob table;
  table.jobId = job.id;
  table.sluid = runSluid(conf_.clusterName, job.id, run);
  table.user = job.user;
  table.userId = job.uid;
  table.groupId = job.gid;
  if (!spec.partition().empty()) table.partition = spec.partition();
  table.name = spec.name();
  table.nodeNames = nodes;
  table.nodes = hostlist::compress(nodes);
  table.numNodes = static_cast<uint32_t>(nodes.size());
  table.numTasks = static_cast<uint32_t>(std::max(spec.ntasks(), 1));
  table.network = spec.network();
  table.batch = job.isBatch();
  table.requeue = job.isBatch() && (conf_.jobRequeue ? !spec.no_requeue() : spec.requeue());
  table.restartCount = run;
  if (job.timeLimitSeconds > 0) table.timeLimitMinutes = (job.timeLimitSeconds + 59) / 60;
  return table;
}

void ControllerCore::startSwitchSetup(JobRecord& job) {
  if (!job.network) job.network = sw::newSwitchRecord(job.id);
  job.network->run = job.restartCount;
  switchEvent(job.id, sw::switch_event::StartSetup{job.nodeNames});
}

void ControllerCore::switchRunEnded(JobRecord& job, std::vector<std::string> nodes) {
  // A run whose setup never started (the job was placed before switch/lua
  // ran, or it asked for no network) has nothing to tear down.
  if (!job.network || job.network->setup == sw::SetupPhase::None) return;
  switchEvent(job.id, sw::switch_event::JobEnded{std::move(nodes)});
}

void ControllerCore::switchEvent(uint64_t jobId, const interconnect::SwitchEvent& event) {
  JobRecord* job = state_.findJob(jobId);
  if (job == nullptr || !job->network) return;
  auto effects = sw::onSwitchEvent(*job->network, event, nowMs(), switchSettings());
  if (!effects) {
    // A report that raced with a restart, a timer for a call that already
    // reported: nothing to do, and nothing changed.
    spdlog::debug("switchlua: JobId={}: {}", jobId, effects.error());
    return;
  }
  executeSwitch(jobId, *effects);
  // Forget the job descriptions of setups that can no longer report.
  if (JobRecord* still = state_.findJob(jobId); still != nullptr && still->network) {
    const auto& calls = still->network->calls;
    for (auto it = setupSnapshots_.lower_bound({jobId, 0}); it != setupSnapshots_.end() && it->first.first == jobId;) {
      bool known = std::any_of(calls.begin(), calls.end(), [&](const sw::SwitchCall& call) {
        return call.id == it->first.second;
      });
      it = known ? std::next(it) : setupSnapshots_.erase(it);
    }
  }
}

void ControllerCore::executeSwitch(uint64_t jobId, const interconnect::SwitchEffects& effects) {
  for (const auto& effect : effects) {
    JobRecord* job = state_.findJob(jobId);
    if (job == nullptr) return;
    if (std::holds_alternative<sw::PersistSwitchState>(effect)) {
      executor_.persistJob(*job);
    } else if (const auto* setup = std::get_if<sw::RunSetup>(&effect)) {
      SwitchCallOrder order{.function = SwitchCallOrder::Function::JobStart,
                            .job = switchJobOf(*job, callOf(*job, setup->call))};
      setupSnapshots_[{jobId, setup->call}] = order.job;
      startSwitchCall(*job, setup->call, std::move(order));
    } else if (const auto* teardown = std::get_if<sw::RunTeardown>(&effect)) {
      SwitchCallOrder order{.function = SwitchCallOrder::Function::JobComplete, .jobinfo = teardown->jobinfo};
      auto snapshot = teardown->lateSetup ? setupSnapshots_.find({jobId, *teardown->lateSetup}) : setupSnapshots_.end();
      if (snapshot != setupSnapshots_.end()) {
        order.job = snapshot->second;  // a late setup's teardown: the job as that setup saw it
      } else {
        // The run it undoes, with the nodes the job had when that run ended.
        order.job = switchJobOf(*job, callOf(*job, teardown->call));
      }
      startSwitchCall(*job, teardown->call, std::move(order));
    } else if (const auto* kill = std::get_if<sw::KillCall>(&effect)) {
      auto running = switchCallsRunning_.find({jobId, kill->call});
      if (running != switchCallsRunning_.end()) options_.switchCalls->kill(running->second.handle);
    } else if (const auto* arm = std::get_if<sw::ArmTimeout>(&effect)) {
      auto delay = std::chrono::milliseconds(std::max<int64_t>(arm->atMs - nowMs(), 0));
      sw::CallId call = arm->call;
      if (auto armed = switchTimeouts_.find({jobId, call}); armed != switchTimeouts_.end()) timers_->cancel(armed->second);
      switchTimeouts_[{jobId, call}] = timers_->after(delay, [this, jobId, call] {
        onStrand([this, jobId, call] {
          switchTimeouts_.erase({jobId, call});
          switchEvent(jobId, sw::switch_event::CallTimedOut{call});
        });
      });
    } else if (std::holds_alternative<sw::JobConfigured>(effect)) {
      // The record holds the stepinfo already; a job that ended meanwhile
      // (cancelled during its setup) refuses the event and stays ended.
      (void)applyJob(*job, job_event::SwitchConfigured{});
    } else if (const auto* failed = std::get_if<sw::JobSetupFailed>(&effect)) {
      (void)applyJob(*job, job_event::SwitchSetupFailed{failed->reason});
    } else if (const auto* hold = std::get_if<sw::HoldNodes>(&effect)) {
      holdForSwitch(*job, hold->nodes, true);
    } else if (const auto* release = std::get_if<sw::ReleaseNodes>(&effect)) {
      holdForSwitch(*job, release->nodes, false);
    } else if (const auto* drain = std::get_if<sw::DrainNodes>(&effect)) {
      for (const auto& name : drain->nodes) {
        if (NodeRecord* node = state_.findNode(name)) applyNode(*node, node_event::Drain{drain->reason});
      }
    } else if (const auto* line = std::get_if<sw::LogLine>(&effect)) {
      if (line->level == sw::LogLevel::Error) spdlog::error("{}", line->text);
      else spdlog::info("{}", line->text);
    }
  }
}

void ControllerCore::startSwitchCall(JobRecord& job, interconnect::CallId call, SwitchCallOrder order) {
  bool setup = order.function == SwitchCallOrder::Function::JobStart;
  uint64_t jobId = job.id;
  if (options_.switchCalls == nullptr) {
    // switch/lua is no longer configured (a restart without it): a call
    // that is still asked for cannot run, which fails it.
    const std::string why = "switch/lua is not configured";
    SwitchCallOutcome outcome;
    if (setup) outcome.answer = sw::SetupAnswer::failed(why);
    else outcome.answer = sw::TeardownAnswer::failed(why);
    onStrand([this, jobId, call, outcome = std::move(outcome)]() mutable {
      switchCallEnded(jobId, call, std::move(outcome));
    });
    return;
  }
  // The lifecycle kills the call at its own deadline; this later one only
  // stops a process whose kill was lost.
  order.timeout = std::chrono::milliseconds(switchSettings().timeoutMs + 5'000);
  uint64_t handle = options_.switchCalls->start(std::move(order), [this, jobId, call](SwitchCallOutcome outcome) {
    onStrand([this, jobId, call, outcome = std::move(outcome)]() mutable {
      switchCallEnded(jobId, call, std::move(outcome));
    });
  });
  switchCallsRunning_[{jobId, call}] = RunningSwitchCall{.handle = handle, .setup = setup};
}

void ControllerCore::switchCallEnded(uint64_t jobId, interconnect::CallId call, SwitchCallOutcome outcome) {
  // The script's own lines go to the controller's log as it wrote them.
  for (const auto& line : outcome.log) {
    switch (line.level) {
      case SwitchCallLogLine::Level::Error: spdlog::error("{}", line.text); break;
      case SwitchCallLogLine::Level::Info: spdlog::info("{}", line.text); break;
      case SwitchCallLogLine::Level::Debug: spdlog::debug("{}", line.text); break;
    }
  }
  switchCallsRunning_.erase({jobId, call});
  if (const auto* setup = std::get_if<sw::SetupAnswer>(&outcome.answer)) {
    switchEvent(jobId, sw::switch_event::SetupReported{call, *setup});
  } else {
    switchEvent(jobId, sw::switch_event::TeardownReported{call, std::get<sw::TeardownAnswer>(outcome.answer)});
  }
}

void ControllerCore::holdForSwitch(JobRecord& job, const std::vector<std::string>& nodes, bool hold) {
  for (const auto& name : nodes) {
    NodeRecord* node = state_.findNode(name);
    if (node == nullptr) continue;
    auto& held = job.switchHeldNodes;
    if (hold) {
      node->switchHolds.insert(job.id);
      if (std::find(held.begin(), held.end(), name) == held.end()) held.push_back(name);
    } else {
      node->switchHolds.erase(job.id);
      std::erase(held, name);
    }
    executor_.refreshNode(*node, false);
  }
  if (!hold) requestSchedule();
}

void ControllerCore::recoverSwitchRecords() {
  bool callsCanRun = switchActive();
  for (auto& [id, job] : state_.jobs) {
    if (job.network) switchEvent(id, sw::switch_event::Recovered{callsCanRun});
    // The job's record and its switch record are stored by separate writes;
    // a controller that died between them left one behind the other.
    if (job.state == JobState::Configuring && (!job.network || job.network->setup == sw::SetupPhase::None)) {
      // Placed, but its setup never recorded: set it up now.
      if (callsCanRun) startSwitchSetup(job);
      else (void)applyJob(job, job_event::SwitchSetupFailed{sw::kSetupFailedReason});
    } else if (job.network && !job.holdsResources && job.network->setup != sw::SetupPhase::None &&
               !job.network->endedDuringSetup) {
      // Ended (or requeued), but the end of its run never recorded.
      switchRunEnded(job, job.network->nodes);
    }
  }
}

void ControllerCore::stopSwitchCalls() {
  for (auto& [id, job] : state_.jobs) {
    if (job.network && sw::hasOutstandingCalls(*job.network)) switchEvent(id, sw::switch_event::Stopping{});
  }
  // The killed calls' deadlines are armed again by whatever runs them next.
  for (const auto& [key, timer] : switchTimeouts_) timers_->cancel(timer);
  switchTimeouts_.clear();
}

void ControllerCore::armSwitchCheck() {
  if (!switchActive()) return;
  // One chain only: a reconfigure may re-arm while a check is queued.
  if (switchCheckTimer_ != 0) timers_->cancel(switchCheckTimer_);
  auto interval = std::chrono::milliseconds(sw::periodicCheckIntervalMs(switchSettings()));
  switchCheckTimer_ = timers_->after(interval, [this] { onStrand([this] { switchCheck(); }); });
}

void ControllerCore::switchCheck() {
  if (stopped_) return;
  for (auto& [id, job] : state_.jobs) {
    if (job.network && sw::hasOutstandingCalls(*job.network)) switchEvent(id, sw::switch_event::PeriodicCheck{});
  }
  armSwitchCheck();
}

}  // namespace gantry::core
