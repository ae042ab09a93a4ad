// ControllerCore's gang scheduling (sched/gang): it feeds the timeslicing
// policy of controller/gang what happens to the jobs of over-subscribed
// partitions, and turns its answers into the lifecycle's GangSuspend and
// GangResume. The slice timer is the core's injected timer queue, so a
// test moves a 30-second slice in no wall time.
//
// Suspends go first and a joining job is resumed only once no suspend on
// its nodes waits for its agent's acknowledgement: two jobs sharing CPUs
// are never let run at the same moment.
#include <algorithm>
#include <spdlog/spdlog.h>

#include "controller/core/controller_core.h"
#include "controller/core/core_helpers.h"

namespace gantry::core {

namespace {

// The unit two jobs of a timesliced partition must not share, after the
// selection in use (docs/gang.md).
gang::Resolution resolutionOf(const config::GantryConf& conf) {
  if (conf.selectType == "select/linear") return gang::Resolution::WholeNode;
  if (conf.select.crSocket) return gang::Resolution::Socket;
  if (conf.select.crCpu) return gang::Resolution::CpuCount;
  return gang::Resolution::Core;
}

// Partitions whose jobs may share CPUs: every job of FORCE:N, the
// -s/--oversubscribe jobs of YES:N.
bool timesliced(const config::PartitionConf& partition) { return partition.cpuSharers() > 1; }

std::vector<int> capacities(const select::Cluster& cluster, gang::Resolution resolution) {
  std::vector<int> capacity(cluster.nodeCount(), 1);
  for (int n = 0; n < cluster.nodeCount(); ++n) {
    const select::NodeInfo& node = cluster.node(n);
    int cores = node.sockets * node.coresPerSocket;
    switch (resolution) {
      case gang::Resolution::WholeNode: break;
      case gang::Resolution::Socket: capacity[n] = node.sockets; break;
      case gang::Resolution::Core: capacity[n] = cores; break;
      case gang::Resolution::CpuCount: capacity[n] = cores * node.threadsPerCore; break;
    }
  }
  return capacity;
}

// What the allocation claims at the partition's resolution, node by node
// (selection indexes).
gang::GangJob gangJobOf(uint64_t id, const select::Allocation& allocation, const select::Cluster& cluster,
                        gang::Resolution resolution) {
  gang::GangJob job{.id = id, .claims = {}};
  for (const auto& grant : allocation.nodes) {
    if (grant.node < 0 || grant.node >= cluster.nodeCount()) continue;
    const select::NodeInfo& node = cluster.node(grant.node);
    int threads = std::max(node.threadsPerCore, 1);
    int cores = node.sockets * node.coresPerSocket;
    gang::NodeClaim claim{.node = static_cast<uint32_t>(grant.node), .units = {}, .count = 0};
    std::vector<int> held = grant.cores;
    if (held.empty()) {
      for (int cpu : grant.cpus) held.push_back(cpu / threads);
    }
    switch (resolution) {
      case gang::Resolution::WholeNode: break;
      case gang::Resolution::Socket:
        claim.units = select::CpuSet(node.sockets, false);
        for (int core : held) {
          int socket = core / std::max(node.coresPerSocket, 1);
          if (socket >= 0 && socket < node.sockets) claim.units.set(socket);
        }
        break;
      case gang::Resolution::Core:
        claim.units = select::CpuSet(cores, false);
        for (int core : held) {
          if (core >= 0 && core < cores) claim.units.set(core);
        }
        break;
      case gang::Resolution::CpuCount: claim.count = detail::cpusOf(grant, node); break;
    }
    job.claims.push_back(std::move(claim));
  }
  return job;
}

}  // namespace

CoreState::GangPartition* ControllerCore::gangOf(const JobRecord& job) {
  auto found = state_.gangs.find(job.spec.partition());
  return found == state_.gangs.end() ? nullptr : &found->second;
}

void ControllerCore::rebuildGangs() {
  if (!gangActive()) return;
  gang::Resolution resolution = resolutionOf(conf_);
  for (const auto& partition : conf_.partitions) {
    if (!timesliced(partition)) continue;
    auto existing = state_.gangs.find(partition.name);
    if (existing != state_.gangs.end() && existing->second.nodeCount == state_.cluster.nodeCount()) continue;
    // Waiting jobs first, longest waiting first; then the administrator's;
    // then the running ones, which stay running where they still fit.
    std::vector<const JobRecord*> members;
    for (const auto& [id, job] : state_.jobs) {
      if (job.holdsResources && job.spec.partition() == partition.name &&
          (job.state == JobState::Running || job.state == JobState::Suspended))
        members.push_back(&job);
    }
    auto rank = [](const JobRecord* job) {
      if (job->state == JobState::Running) return 2;
      return job->suspendedBy == SuspendedBy::Gang ? 0 : 1;
    };
    std::stable_sort(members.begin(), members.end(), [&](const JobRecord* a, const JobRecord* b) {
      if (rank(a) != rank(b)) return rank(a) < rank(b);
      return rank(a) == 0 && a->suspendTime < b->suspendTime;
    });
    CoreState::GangPartition fresh{.policy = gang::PartitionGang(resolution, capacities(state_.cluster, resolution)),
                                   .nodeCount = state_.cluster.nodeCount()};
    gang::GangChanges changes;
    for (const JobRecord* job : members) {
      gang::GangState as = rank(job) == 0 ? gang::GangState::Waiting
                           : rank(job) == 1 ? gang::GangState::Held
                                            : gang::GangState::Running;
      auto restored = fresh.policy.restore(gangJobOf(job->id, job->allocation, state_.cluster, resolution), as);
      changes.suspend.insert(changes.suspend.end(), restored.suspend.begin(), restored.suspend.end());
    }
    state_.gangs.insert_or_assign(partition.name, std::move(fresh));
    spdlog::info("gang: partition {} timesliced with {} jobs", partition.name, members.size());
    applyGangChanges(changes);
  }
}

bool ControllerCore::admitToGang(const JobRecord& job, const select::Allocation& allocation) {
  CoreState::GangPartition* gang = gangOf(job);
  if (gang == nullptr) return false;
  return !gang->policy.admit(gangJobOf(job.id, allocation, state_.cluster, resolutionOf(conf_)));
}

void ControllerCore::leaveGang(const JobRecord& job) {
  auto found = state_.gangs.find(job.spec.partition());
  if (found == state_.gangs.end() || !found->second.policy.state(job.id)) return;
  gang::GangChanges changes = found->second.policy.remove(job.id);
  const config::PartitionConf* partition = conf_.findPartition(found->first);
  // A partition no longer timesliced keeps its timeslicer only while gang
  // jobs remain.
  if (found->second.policy.size() == 0 && (partition == nullptr || !timesliced(*partition))) {
    state_.gangs.erase(found);
  }
  applyGangChanges(changes);
}

void ControllerCore::applyGangChanges(const gang::GangChanges& changes) {
  auto& waiting = state_.gangResumesWaiting;
  for (uint64_t id : changes.suspend) {
    waiting.erase(std::remove(waiting.begin(), waiting.end(), id), waiting.end());
    JobRecord* job = state_.findJob(id);
    if (job != nullptr && job->state == JobState::Running) (void)applyJob(*job, job_event::GangSuspend{});
  }
  for (uint64_t id : changes.resume) {
    if (std::find(waiting.begin(), waiting.end(), id) == waiting.end()) waiting.push_back(id);
  }
  resumeWaitingGangJobs();
}

void ControllerCore::resumeWaitingGangJobs() {
  auto& waiting = state_.gangResumesWaiting;
  for (auto it = waiting.begin(); it != waiting.end();) {
    JobRecord* job = state_.findJob(*it);
    if (job == nullptr || job->state != JobState::Suspended || job->suspendedBy != SuspendedBy::Gang) {
      it = waiting.erase(it);
      continue;
    }
    bool suspendsPending = std::any_of(job->nodeNames.begin(), job->nodeNames.end(),
                                       [&](const std::string& node) { return executor_.suspendsInFlight(node) > 0; });
    if (suspendsPending) {
      ++it;
      continue;
    }
    uint64_t id = *it;
    it = waiting.erase(it);
    (void)applyJob(*state_.findJob(id), job_event::GangResume{});
    it = waiting.begin();  // applyJob may have changed the list
  }
}

void ControllerCore::armSlice() {
  if (!gangActive()) return;
  sliceTimer_ = timers_->after(std::chrono::seconds(gangSliceSeconds_), [this] { onStrand([this] { sliceEnded(); }); });
}

void ControllerCore::sliceEnded() {
  if (stopped_) return;
  std::vector<std::string> names;
  for (const auto& [name, gang] : state_.gangs) names.push_back(name);
  for (const auto& name : names) {
    auto found = state_.gangs.find(name);
    if (found == state_.gangs.end()) continue;
    gang::GangChanges changes = found->second.policy.rotate();
    if (!changes.empty()) {
      spdlog::info("gang: slice ended in partition {}: suspending {} job(s), resuming {}", name,
                   changes.suspend.size(), changes.resume.size());
    }
    applyGangChanges(changes);
  }
  armSlice();
}

Result<Ok> ControllerCore::suspendByAdmin(JobRecord& job, std::function<void(const Status&)> persisted) {
  auto applied = applyJob(job, job_event::Suspend{}, std::move(persisted));
  if (!applied) return applied;
  if (CoreState::GangPartition* gang = gangOf(job)) applyGangChanges(gang->policy.hold(job.id));
  return Ok{};
}

Result<Ok> ControllerCore::resumeByAdmin(JobRecord& job, std::function<void(const Status&)> persisted) {
  CoreState::GangPartition* gang = gangOf(job);
  if (gang == nullptr || !gang->policy.state(job.id) || job.state != JobState::Suspended ||
      job.suspendedBy != SuspendedBy::Admin) {
    return applyJob(job, job_event::Resume{}, std::move(persisted));
  }
  // Back to the timeslicer: it runs now only if it fits beside the jobs
  // running in this slice, otherwise at its turn.
  gang::GangChanges changes = gang->policy.release(job.id);
  bool runsNow = std::find(changes.resume.begin(), changes.resume.end(), job.id) != changes.resume.end();
  changes.resume.erase(std::remove(changes.resume.begin(), changes.resume.end(), job.id), changes.resume.end());
  auto applied = applyJob(job, job_event::Resume{.waitForTurn = true}, std::move(persisted));
  if (runsNow) changes.resume.insert(changes.resume.begin(), job.id);
  applyGangChanges(changes);
  return applied;
}

}  // namespace gantry::core
