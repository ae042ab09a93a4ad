// ControllerCore's scheduling pass: pending jobs in order through the
// selection library; what a placement changes is the lifecycle's Placed.
#include "controller/core/controller_core.h"
#include "controller/core/backfill_plan.h"
#include "controller/core/running_ends.h"
#include "controller/core/scheduling_pass.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <spdlog/spdlog.h>

namespace gantry::core {

// The scheduling pass's view of --dependency (dependency.h): the jobs named,
// and which user's job names hold resources (built on the first singleton).
class DependencyGate {
 public:
  DependencyGate(const CoreState& state, int64_t now, bool killInvalid) : state_(state), now_(now), killInvalid_(killInvalid) {}

  // What the job's dependency says now, as the event that records it.
  job_event::DependencyChecked check(const JobRecord& job) {
    int64_t selfTask = job.holdsArrayTasks() ? int64_t{job.arrayPending.first()}
                       : job.arrayTaskId       ? int64_t{*job.arrayTaskId}
                                               : -1;
    DependencyWorld world{.job = [this](uint64_t id) { return target(id); },
                          .arrayTask = [this](uint64_t array, uint32_t task) { return taskTarget(array, task); },
                          .selfTask = selfTask,
                          .selfHoldsArrayTasks = job.holdsArrayTasks(),
                          .singletonBusy = [this, &job] { return singletonBusy(job); },
                          .now = now_};
    DependencyCheck checked = checkDependency(job.dependency, world);
    return job_event::DependencyChecked{std::move(checked.remaining), checked.verdict, killInvalid_};
  }

  void placed(const JobRecord& job) {
    if (busyNames_) busyNames_->insert({job.uid, job.spec.name()});
  }

 private:
  static DependencyTarget targetOf(const JobRecord& job) {
    return DependencyTarget{.started = job.startTime > 0 && job.state != JobState::Pending,
                            .ended = isEnded(job.state),
                            .completedOk = job.state == JobState::Completed && job.exitCode == 0,
                            .startTime = job.startTime,
                            .endTime = job.endTime};
  }

  // A job array's id stands for all of its tasks, as in Slurm: started
  // when one has, ended when all have, completed well when all did.
  std::optional<DependencyTarget> target(uint64_t id) const {
    if (auto members = state_.arrayMembers.find(id); members != state_.arrayMembers.end()) {
      std::optional<DependencyTarget> all;
      for (uint64_t member : members->second) {
        const JobRecord* task = state_.findJob(member);
        if (task == nullptr) continue;
        DependencyTarget one = targetOf(*task);
        if (!all) {
          all = one;
          continue;
        }
        all->started = all->started || one.started;
        all->ended = all->ended && one.ended;
        all->completedOk = all->completedOk && one.completedOk;
        if (one.startTime > 0 && (all->startTime == 0 || one.startTime < all->startTime)) all->startTime = one.startTime;
        all->endTime = std::max(all->endTime, one.endTime);
      }
      if (all) return all;
    }
    const JobRecord* named = state_.findJob(id);
    if (named == nullptr) return std::nullopt;
    return targetOf(*named);
  }

  // One task of an array: its own record once it has one, pending while
  // the array's record still holds its index.
  std::optional<DependencyTarget> taskTarget(uint64_t array, uint32_t task) const {
    const JobRecord* record = state_.arrayTaskRecord(array, task);
    if (record == nullptr) return std::nullopt;
    if (record->holdsArrayTasks()) return DependencyTarget{};
    return targetOf(*record);
  }

  bool singletonBusy(const JobRecord& job) {
    if (!busyNames_) {
      busyNames_.emplace();
      for (const auto& [id, other] : state_.jobs) {
        if (other.holdsResources || other.state == JobState::Completing) busyNames_->insert({other.uid, other.spec.name()});
      }
    }
    return busyNames_->count({job.uid, job.spec.name()}) > 0;
  }

  const CoreState& state_;
  int64_t now_;
  bool killInvalid_;
  std::optional<std::set<std::pair<uint32_t, std::string>>> busyNames_;
};

namespace {

// Plans a start for a job that waits for resources (backfill_plan.h),
// unless a job of the same request was planned earlier in the pass; the
// job keeps what was planned for squeue --start.
void planStart(SchedulingPass& pass, std::optional<std::vector<select::RunningJob>>& running, const CoreState& state,
               const select::Request& request, const select::PartitionView& view, int64_t now,
               select::Cluster& cluster, JobRecord& job) {
  BackfillPlan& plan = *pass.plan;
  auto keep = [&job, &cluster](const BackfillPlan::Planned& planned) {
    job.plannedStart = planned.nodes.empty() ? 0 : planned.start;
    job.plannedNodes.clear();
    for (int node : planned.nodes) job.plannedNodes.push_back(cluster.node(node).name);
  };
  if (const BackfillPlan::Planned* alike = plan.plannedAlike(request, view)) return keep(*alike);
  if (!running) running = runningJobEnds(state.jobs, now, pass.resolution);
  select::StartEstimate estimate = cluster.estimateStartSorted(request, view, *running, now, now + pass.window);
  BackfillPlan::Planned planned;
  if (estimate.outcome.verdict == select::Verdict::Placed && estimate.startTime <= now + pass.window) {
    planned.start = estimate.startTime;
    for (const auto& grant : estimate.outcome.allocation.nodes) planned.nodes.push_back(grant.node);
  }
  keep(planned);
  plan.plan(request, view, std::move(planned));
}

// Between full passes: bf_interval under backfill, sched_interval, the
// shorter of those on; 0 when neither runs.
int fullPassPeriodSeconds(const config::GantryConf& conf) {
  const config::SchedulingParameters& p = conf.scheduling;
  int period = p.mainPassesOn() ? p.schedIntervalSec : 0;
  if (conf.schedulerType == "sched/backfill" && p.backfillOn()) {
    period = period == 0 ? p.bfIntervalSec : std::min(period, p.bfIntervalSec);
  }
  return period;
}

}  // namespace

// What one slice of a pass shares between its jobs; made again after the
// pass gave the strand back, since the jobs and nodes may have changed.
struct PassScratch {
  PassScratch(const CoreState& state, int64_t now, bool killInvalid) : now(now), gate(state, now, killInvalid) {}
  int64_t now;
  DependencyGate gate;
  // Per partition, its nodes with drains, to tell a job that waits for them.
  std::map<const select::PartitionView*, std::vector<std::string>> degradedByView;
  std::optional<std::vector<select::RunningJob>> running;  // for planned starts, built on the first
};

void ControllerCore::requestSchedule() {
  if (scheduleRequested_) return;
  scheduleRequested_ = true;
  onStrand([this] {
    scheduleRequested_ = false;
    schedule();
  });
}

void ControllerCore::schedulePass(Reply<SchedulePassReport> reply, size_t depth) {
  onStrand([this, reply = std::move(reply), depth] {
    SchedulePassReport report;
    size_t runningBefore = 0;
    for (const auto& [id, job] : state_.jobs) {
      if (job.state == JobState::Pending && !job.held()) ++report.pending;
      if (job.holdsResources) ++runningBefore;
    }
    SchedulingPass pass = beginPass(depth);
    runPass(pass, std::numeric_limits<size_t>::max());
    size_t runningAfter = 0;
    for (const auto& [id, job] : state_.jobs) {
      runningAfter += job.holdsResources ? 1 : 0;
      report.planned += job.state == JobState::Pending && job.plannedStart > 0 ? 1 : 0;
    }
    report.started = runningAfter - runningBefore;
    reply(report);
  });
}

void ControllerCore::schedule() {
  // sched_interval=-1: only the backfill pass starts jobs, as in Slurm.
  if (stopped_ || !conf_.scheduling.mainPassesOn()) return;
  SchedulingPass pass = beginPass(static_cast<size_t>(conf_.scheduling.defaultQueueDepth));
  runPass(pass, std::numeric_limits<size_t>::max());
}

void ControllerCore::armFullPass() {
  int period = fullPassPeriodSeconds(conf_);
  if (period == 0) return;
  fullPassTimer_ = timers_->after(std::chrono::seconds(period), [this] {
    onStrand([this] {
      fullPassTimer_ = 0;
      if (stopped_) return;
      // A pass still giving the strand back is not started again.
      if (!fullPass_) {
        fullPass_ = beginPass(std::numeric_limits<size_t>::max());
        continueFullPass();
      }
      armFullPass();
    });
  });
}

void ControllerCore::continueFullPass() {
  if (!fullPass_) return;
  if (stopped_ || !passGoesOn(*fullPass_, stateEpoch_, configurations_, conf_.scheduling.bfContinue)) {
    if (!stopped_) {
      spdlog::debug("full scheduling pass ended after {} of {} jobs: jobs, nodes or the configuration changed",
                    fullPass_->next, fullPass_->order.size());
    }
    fullPass_.reset();
    return;
  }
  if (runPass(*fullPass_, kFullPassSlice)) {
    fullPass_.reset();
    return;
  }
  fullPass_->epoch = stateEpoch_;
  onStrand([this] { continueFullPass(); });
}

void ControllerCore::armBeginTimer(int64_t at) {
  if (at == beginTimerAt_) return;
  if (beginTimer_ != 0) timers_->cancel(beginTimer_);
  beginTimer_ = 0;
  beginTimerAt_ = at;
  if (at == 0) return;
  // A job's begin time (or the end of a requeued job's delay) starts a pass
  // then, not at the next tick.
  beginTimer_ = timers_->after(std::chrono::seconds(std::max<int64_t>(at - now(), 0)), [this] {
    onStrand([this] {
      beginTimer_ = 0;
      beginTimerAt_ = 0;
      requestSchedule();
    });
  });
}

SchedulingPass ControllerCore::beginPass(size_t depth) {
  SchedulingPass pass;
  pass.configuration = configurations_;
  const int64_t t = now();
  int64_t nextBegin = 0;
  std::vector<std::pair<uint32_t, JobRecord*>> ordered;
  const PriorityContext context = priorityContext();
  for (auto& [id, job] : state_.jobs) {
    if (job.state != JobState::Pending) continue;
    if (job.held() || job.eligibleTime > t) {
      job.plannedStart = 0;
      job.plannedNodes.clear();
    }
    if (job.held()) continue;
    // A job given --begin, or a requeued one waiting out its delay.
    if (job.eligibleTime > t) {
      if (job.reason != JobReason::BeginTime) (void)applyJob(job, job_event::StillPending{JobReason::BeginTime, ""});
      if (nextBegin == 0 || job.eligibleTime < nextBegin) nextBegin = job.eligibleTime;
      continue;
    }
    // A requeued job whose previous run's setup still runs waits for it:
    // its record takes one setup at a time (its nodes are held meanwhile).
    if (job.network && job.network->setup != interconnect::SetupPhase::None) continue;
    ordered.emplace_back(effectivePriority(job, context), &job);
  }
  armBeginTimer(nextBegin);
  // Highest priority first (priorities.cpp), then submission order; an
  // event's pass sorts only as deep as it tests.
  auto before = [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second->id < b.second->id;
  };
  if (depth < ordered.size()) {
    std::partial_sort(ordered.begin(), ordered.begin() + static_cast<std::ptrdiff_t>(depth), ordered.end(), before);
    ordered.resize(depth);
  } else {
    std::sort(ordered.begin(), ordered.end(), before);
  }
  pass.order.reserve(ordered.size());
  for (const auto& [priority, job] : ordered) pass.order.push_back(job->id);
  // sched/backfill: a job that cannot start now gets a planned start, and
  // the jobs behind it keep clear of it (backfill_plan.h). Not under gang
  // timeslicing, where jobs take turns on shared nodes instead.
  const config::SchedulingParameters& knobs = conf_.scheduling;
  if (conf_.schedulerType == "sched/backfill" && knobs.backfillOn() && !conf_.gangScheduling()) {
    pass.plan.emplace(knobs.bfMaxJobTest, knobs.bfMaxJobUser);
    pass.window = knobs.bfWindowSec;
    pass.resolution = knobs.bfResolutionSec;
  }
  return pass;
}

bool ControllerCore::runPass(SchedulingPass& pass, size_t budget) {
  // Accounting's background work waits while a pass runs (accounting_journal.h).
  AccountingJournal::CoreBusy busy(accountingJournal_.get());
  PassScratch scratch(state_, now(), conf_.killInvalidDepend);
  for (size_t tested = 0; pass.next < pass.order.size() && tested < budget; ++pass.next) {
    JobRecord* job = state_.findJob(pass.order[pass.next]);
    // Gone, started, held or given a later begin since the pass began.
    if (job == nullptr || job->state != JobState::Pending || job->held() || job->eligibleTime > scratch.now) continue;
    ++tested;
    job->plannedStart = 0;
    job->plannedNodes.clear();
    testPendingJob(*job, pass, scratch);
  }
  return pass.next >= pass.order.size();
}

void ControllerCore::testPendingJob(JobRecord& pendingJob, SchedulingPass& pass, PassScratch& scratch) {
  JobRecord* job = &pendingJob;
  const int64_t t = scratch.now;
  // Checked in this order, so a job placed earlier in the pass counts for
  // the singletons after it. An array's record checks again for each task
  // it starts (aftercorr names the task of the same index).
  auto dependencyMet = [&] {
    if (job->dependency.empty()) return true;
    auto checked = scratch.gate.check(*job);
    bool satisfied = checked.verdict == DependencyVerdict::Satisfied;
    (void)applyJob(*job, checked);
    return satisfied;
  };
  if (!dependencyMet()) return;
  const select::PartitionView* view = state_.partitionView(job->spec.partition());
  if (view == nullptr) return;
  auto request = toSelectRequest(job->spec);
  if (!request) {
    // Accepted once, refused now (the configuration changed since, e.g.
    // SelectType): it waits, and says why, until it is fixed or cancelled.
    (void)applyJob(*job, job_event::StillPending{JobReason::BadConstraints, request.error()});
    return;
  }
  request->uid = job->uid;
  std::optional<BackfillPlan>& plan = pass.plan;
  auto& running = scratch.running;
  const int64_t end = job->timeLimitSeconds > 0 ? roundUpTo(t + job->timeLimitSeconds, pass.resolution) : kNeverEnds;
  // An array's record starts its tasks lowest index first, each as a
  // record of its own, while they fit and its throttle (%N) allows.
  int activeTasks = job->holdsArrayTasks() && job->arrayThrottle > 0 ? activeArrayTasks(job->arrayJobId) : 0;
  for (bool more = true, firstTask = true; more; firstTask = false) {
    more = false;
    if (job->holdsArrayTasks() && job->arrayThrottle > 0 && activeTasks >= static_cast<int>(job->arrayThrottle)) {
      (void)applyJob(*job, job_event::StillPending{JobReason::JobArrayTaskLimit, ""});
      break;
    }
    if (!firstTask && !dependencyMet()) break;
    const select::PartitionView& allowed = plan ? plan->viewFor(*view, end) : *view;
    select::SelectTrace trace;
    select::Outcome outcome = state_.cluster.select(*request, *view, conf_.debugSelectType ? &trace : nullptr);
    for (const auto& rejection : trace) {
      spdlog::info("select: job {} not on node {}: {}", job->id, state_.cluster.node(rejection.node).name,
                   rejection.rule);
    }
    // A place on planned nodes, for a job that would still run at their
    // planned start: it may go elsewhere, or it waits behind the plans
    // (reason Priority, as in Slurm). A job that fits nowhere now waits
    // for resources, as without plans, at the cost of one selection.
    bool behindPlans = false;
    if (outcome.verdict == select::Verdict::Placed && &allowed != view && plan->anyPlanned(outcome.allocation)) {
      select::Outcome elsewhere = state_.cluster.select(*request, allowed);
      behindPlans = elsewhere.verdict != select::Verdict::Placed;
      outcome = std::move(elsewhere);
    }
    if (outcome.verdict == select::Verdict::Placed) {
      const bool fromArray = job->holdsArrayTasks();
      JobRecord& started = fromArray ? splitArrayTask(*job, job->arrayPending.first()) : *job;
      std::vector<std::string> names;
      for (const auto& grant : outcome.allocation.nodes) names.push_back(state_.cluster.node(grant.node).name);
      bool startSuspended = admitToGang(started, outcome.allocation);
      bool configureNetwork = switchActive() && interconnect::requestsNetwork(started.spec.network());
      auto placed = applyJob(started, job_event::Placed{std::move(outcome.allocation), std::move(names),
                                                        startSuspended, configureNetwork});
      if (placed) scratch.gate.placed(started);
      if (placed && running) {
        addRunningJob(*running,
                      {.allocation = started.allocation, .endTime = end == kNeverEnds ? t + kUnlimitedRunSeconds : end});
      }
      if (!placed) {
        leaveGang(started);  // admitted for nothing: free its place in the rotation
      } else if (configureNetwork) {
        startSwitchSetup(started);
      }
      // The next task of the array, if any is left in its record.
      if (placed && fromArray && job->holdsArrayTasks()) {
        ++activeTasks;
        more = true;
      }
    } else if (behindPlans) {
      (void)applyJob(*job, job_event::StillPending{JobReason::Priority, ""});
    } else if (outcome.verdict == select::Verdict::Never) {
      (void)applyJob(*job, job_event::StillPending{JobReason::ReqNodeNotAvail, ""});
    } else {
      if (plan && plan->canPlan(job->uid)) planStart(pass, running, state_, *request, *view, t, state_.cluster, *job);
      std::string detail = outcome.reason == select::kReasonResources ? "" : outcome.reason;
      if (detail.empty()) {
        auto known = scratch.degradedByView.find(view);
        if (known == scratch.degradedByView.end()) known = scratch.degradedByView.emplace(view, degradedNodesOf(*view)).first;
        detail = drainedWaitReason(*request, *view, known->second);
      }
      (void)applyJob(*job, job_event::StillPending{JobReason::Resources, detail});
    }
  }
}

}  // namespace gantry::core
