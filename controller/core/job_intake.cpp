// ControllerCore's submissions: validation, --test-only estimates, and the
// durable record that comes before the answer.
#include "controller/core/controller_core.h"

#include <ctime>

#include "controller/core/core_helpers.h"
#include "controller/core/job_request.h"

namespace gantry::core {

using detail::cpusOf;
using detail::kNotAvailable;
using detail::nodeListOf;

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

}  // namespace gantry::core
