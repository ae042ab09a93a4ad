// ControllerCore's scheduling pass: pending jobs in order through the
// selection library; what a placement changes is the lifecycle's Placed.
#include "controller/core/controller_core.h"
#include "controller/core/backfill_plan.h"
#include "controller/core/running_ends.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <spdlog/spdlog.h>

namespace gantry::core {
namespace {

// The scheduling pass's view of --dependency (dependency.h): the jobs named,
// and which user's job names hold resources (built on the first singleton).
class DependencyGate {
 public:
  DependencyGate(const CoreState& state, int64_t now, bool killInvalid) : state_(state), now_(now), killInvalid_(killInvalid) {}

  // What the job's dependency says now, as the event that records it.
  job_event::DependencyChecked check(const JobRecord& job) {
    DependencyWorld world{.job = [this](uint64_t id) { return target(id); },
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

// Plans a start for a job that waits for resources (backfill_plan.h),
// unless a job of the same request was planned earlier in the pass; the
// job keeps what was planned for squeue --start.
void planStart(BackfillPlan& plan, std::optional<std::vector<select::RunningJob>>& running, const CoreState& state,
               const select::Request& request, const select::PartitionView& view, int64_t now, int64_t window,
               select::Cluster& cluster, JobRecord& job) {
  auto keep = [&job, &cluster](const BackfillPlan::Planned& planned) {
    job.plannedStart = planned.nodes.empty() ? 0 : planned.start;
    job.plannedNodes.clear();
    for (int node : planned.nodes) job.plannedNodes.push_back(cluster.node(node).name);
  };
  if (const BackfillPlan::Planned* alike = plan.plannedAlike(request, view)) return keep(*alike);
  if (!running) running = runningJobEnds(state.jobs, now);
  select::StartEstimate estimate = cluster.estimateStartSorted(request, view, *running, now, now + window);
  BackfillPlan::Planned planned;
  if (estimate.outcome.verdict == select::Verdict::Placed && estimate.startTime <= now + window) {
    planned.start = estimate.startTime;
    for (const auto& grant : estimate.outcome.allocation.nodes) planned.nodes.push_back(grant.node);
  }
  keep(planned);
  plan.plan(request, view, std::move(planned));
}

}  // namespace

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
    for (const auto& [id, job] : state_.jobs) {
      if (job.state == JobState::Pending && !job.held()) ++report.pending;
      if (job.holdsResources) ++runningBefore;
    }
    schedule();
    size_t runningAfter = 0;
    for (const auto& [id, job] : state_.jobs) runningAfter += job.holdsResources ? 1 : 0;
    report.started = runningAfter - runningBefore;
    reply(report);
  });
}

void ControllerCore::schedule() {
  if (stopped_) return;
  // Accounting's background work waits while a pass runs (accounting_journal.h).
  AccountingJournal::CoreBusy busy(accountingJournal_.get());
  // Pending jobs in priority order, then submission order. A job that does
  // not fit now does not stop smaller ones behind it from starting.
  std::vector<JobRecord*> pending;
  const int64_t t = now();
  for (auto& [id, job] : state_.jobs) {
    if (job.state != JobState::Pending) continue;
    job.plannedStart = 0;
    job.plannedNodes.clear();
    if (job.held()) continue;
    // A requeued job waits out its delay; the tick's passes take it after.
    if (job.eligibleTime > t) {
      if (job.reason != JobReason::BeginTime) (void)applyJob(job, job_event::StillPending{JobReason::BeginTime, ""});
      continue;
    }
    // A requeued job whose previous run's setup still runs waits for it:
    // its record takes one setup at a time (its nodes are held meanwhile).
    if (job.network && job.network->setup != interconnect::SetupPhase::None) continue;
    pending.push_back(&job);
  }
  // Highest priority first (priorities.cpp), then submission order.
  {
    const PriorityContext context = priorityContext();
    std::vector<std::pair<uint32_t, JobRecord*>> ordered;
    ordered.reserve(pending.size());
    for (JobRecord* job : pending) ordered.emplace_back(effectivePriority(*job, context), job);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t i = 0; i < ordered.size(); ++i) pending[i] = ordered[i].second;
  }
  // Per partition, its nodes with drains, to tell a job that waits for them.
  std::map<const select::PartitionView*, std::vector<std::string>> degradedByView;
  DependencyGate gate(state_, t, conf_.killInvalidDepend);
  // sched/backfill: a job that cannot start now gets a planned start, and
  // the jobs behind it keep clear of it (backfill_plan.h). Not under gang
  // timeslicing, where jobs take turns on shared nodes instead.
  std::optional<BackfillPlan> plan;
  int64_t window = 0;
  if (conf_.schedulerType == "sched/backfill" && !conf_.gangScheduling()) {
    plan.emplace(backfillMaxJobTest(conf_.schedulerParameters));
    window = backfillWindowSeconds(conf_.schedulerParameters);
  }
  std::optional<std::vector<select::RunningJob>> running;  // for planned starts, built on the first
  for (JobRecord* job : pending) {
    // Checked in this order, so a job placed earlier in the pass counts
    // for the singletons after it.
    if (!job->dependency.empty()) {
      auto checked = gate.check(*job);
      bool satisfied = checked.verdict == DependencyVerdict::Satisfied;
      (void)applyJob(*job, checked);
      if (!satisfied) continue;
    }
    const select::PartitionView* view = state_.partitionView(job->spec.partition());
    if (view == nullptr) continue;
    auto request = toSelectRequest(job->spec);
    if (!request) {
      // Accepted once, refused now (the configuration changed since, e.g.
      // SelectType): it waits, and says why, until it is fixed or cancelled.
      (void)applyJob(*job, job_event::StillPending{JobReason::BadConstraints, request.error()});
      continue;
    }
    request->uid = job->uid;
    const int64_t end = job->timeLimitSeconds > 0 ? t + job->timeLimitSeconds : kNeverEnds;
    // An array's record starts its tasks lowest index first, each as a
    // record of its own, while they fit and its throttle (%N) allows.
    int activeTasks = job->holdsArrayTasks() && job->arrayThrottle > 0 ? activeArrayTasks(job->arrayJobId) : 0;
    for (bool more = true; more;) {
      more = false;
      if (job->holdsArrayTasks() && job->arrayThrottle > 0 && activeTasks >= static_cast<int>(job->arrayThrottle)) {
        (void)applyJob(*job, job_event::StillPending{JobReason::JobArrayTaskLimit, ""});
        break;
      }
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
        if (placed) gate.placed(started);
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
        if (plan && plan->canPlan()) planStart(*plan, running, state_, *request, *view, t, window, state_.cluster, *job);
        std::string detail = outcome.reason == select::kReasonResources ? "" : outcome.reason;
        if (detail.empty()) {
          auto known = degradedByView.find(view);
          if (known == degradedByView.end()) known = degradedByView.emplace(view, degradedNodesOf(*view)).first;
          detail = drainedWaitReason(*request, *view, known->second);
        }
        (void)applyJob(*job, job_event::StillPending{JobReason::Resources, detail});
      }
    }
  }
}

}  // namespace gantry::core
