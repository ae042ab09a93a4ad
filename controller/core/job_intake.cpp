// ControllerCore's submissions: validation, --test-only estimates, and the
// durable record that comes before the answer.
#include "controller/core/controller_core.h"
#include "controller/core/running_ends.h"

#include <ctime>

#include "controller/core/core_helpers.h"
#include "controller/core/job_request.h"
#include "controller/core/partition_fit.h"

namespace gantry::core {
namespace {

// Slurm's bound on --nice (NICE_OFFSET - 3).
constexpr int32_t kLargestNice = 2147483645;

}  // namespace

using detail::cpusOf;
using detail::kNotAvailable;
using detail::nodeListOf;

// ---------------------------------------------------------------- submit

Result<const config::PartitionConf*> ControllerCore::partitionFor(const v1::JobSpec& spec) const {
  if (spec.partition().empty()) {
    const config::PartitionConf* partition = conf_.defaultPartition();
    if (partition == nullptr) return Error{ErrorCode::Invalid, "No partition specified or system default partition"};
    return partition;
  }
  const config::PartitionConf* partition = conf_.findPartition(spec.partition());
  if (partition == nullptr) return Error{ErrorCode::NotFound, "invalid partition specified: " + spec.partition()};
  return partition;
}

Result<int64_t> ControllerCore::effectiveTimeLimit(const v1::JobSpec& spec,
                                                   const config::PartitionConf& partition) const {
  // Seconds; -1 is UNLIMITED. A limit past a century is refused before it
  // is turned into seconds, so no request overflows the arithmetic.
  constexpr int64_t kLongestMinutes = 100LL * 366 * 24 * 60;
  if (spec.time_limit_seconds() < 0 || spec.time_limit_minutes() > kLongestMinutes ||
      spec.time_limit_minutes() < -1 || spec.time_limit_seconds() > kLongestMinutes * 60) {
    return Error{"Requested time limit is invalid (missing or exceeds some limit)"};
  }
  int64_t requested = spec.time_limit_seconds() > 0 ? spec.time_limit_seconds()
                                                     : spec.time_limit_minutes() * 60;
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

Result<select::Request> ControllerCore::toSelectRequest(const v1::JobSpec& spec, NodeListUse use) const {
  auto request = jobSpecToRequest(spec, conf_);
  if (!request) return request;
  if (spec.required_nodes().empty() && spec.excluded_nodes().empty()) return request;
  auto lookup = [this](const std::string& name) {
    const NodeRecord* node = state_.findNode(name);
    return node == nullptr ? -1 : node->selectIndex;
  };
  if (auto applied = applyRequestedNodes(spec, use, lookup, *request); !applied) return Error{applied.failure()};
  return request;
}

Status ControllerCore::checkEverRuns(const select::Request& request, const config::PartitionConf& partition) const {
  auto sized = state_.partitionSizes.find(partition.name);
  PartitionSize size = sized != state_.partitionSizes.end() ? sized->second : PartitionSize{};
  JobSize jobSize{.minNodes = request.minNodes, .maxNodes = request.maxNodes,
                  .minCpus = std::max<int64_t>(request.ntasks, int64_t{request.ntasksPerNode} * request.minNodes) *
                             request.cpusPerTask,
                  .cpusPerTask = request.cpusPerTask};
  if (auto fits = checkPartitionFit(jobSize, size); !fits) return Error{ErrorCode::Never, fits.error()};
  const select::PartitionView* view = state_.partitionView(partition.name);
  if (view == nullptr) return Error{ErrorCode::Internal, "partition " + partition.name + " has no node view"};
  select::Outcome ever = state_.cluster.canEverRun(request, *view);
  if (ever.verdict == select::Verdict::Never) {
    return Error{ErrorCode::Never, ever.reason.empty() ? kNotAvailable : ever.reason};
  }
  return okStatus();
}

Result<Dependency> ControllerCore::checkedDependency(const std::string& text) const {
  auto dependency = parseDependency(text);
  if (!dependency) return dependency;
  // Each job named must be one the controller knows, as in Slurm: a typo
  // would otherwise be satisfied at once, as a forgotten job is.
  for (uint64_t id : dependencyJobIds(*dependency)) {
    if (state_.findJob(id) == nullptr) {
      return Error{ErrorCode::Invalid, "Job dependency problem: job " + std::to_string(id) + " is not known"};
    }
  }
  // And each array task named (ID_TASK) a task of that array.
  for (const auto& entry : dependency->entries) {
    if (entry.arrayTask < 0) continue;
    auto task = static_cast<uint32_t>(entry.arrayTask);
    if (state_.arrayTaskRecord(entry.jobId, task) == nullptr) {
      return Error{ErrorCode::Invalid, "Job dependency problem: job " + std::to_string(entry.jobId) + "_" +
                                           std::to_string(task) + " is not known"};
    }
  }
  return dependency;
}

void ControllerCore::submitJob(v1::SubmitJobRequest request, auth::Identity caller,
                               Reply<v1::SubmitJobResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller),
            reply = std::move(reply)]() mutable {
    const v1::JobSpec& spec = request.spec();
    // Fields only administrators may set.
    if (spec.priority() != 0 && !isAdministrator(caller)) {
      return reply(Error{ErrorCode::Denied, "Access/permission denied: only root and SlurmUser may set a job's "
                                            "priority (spec.priority)"});
    }
    // As in Slurm: anyone may lower their job's priority, only an
    // administrator raise it.
    if (spec.nice() < 0 && !isAdministrator(caller)) {
      return reply(Error{ErrorCode::Denied, "Access/permission denied: only root and SlurmUser may set a negative "
                                            "--nice"});
    }
    if (spec.nice() < -kLargestNice || spec.nice() > kLargestNice) {
      return reply(Error{ErrorCode::Invalid, "Invalid --nice value: " + std::to_string(spec.nice()) +
                                                 " (the limit is +/-" + std::to_string(kLargestNice) + ")"});
    }
    if (spec.script().size() > conf_.maxScriptSizeBytes) {
      return reply(Error{ErrorCode::Invalid, "Batch script is too large: " + std::to_string(spec.script().size()) +
                                                 " bytes, the limit is " + std::to_string(conf_.maxScriptSizeBytes) +
                                                 " (SchedulerParameters=max_script_size)"});
    }
    auto partition = partitionFor(spec);
    if (!partition) return reply(Error{partition.failure()});
    if ((*partition)->state != "UP") {
      return reply(Error{ErrorCode::NotNow, "Partition " + (*partition)->name + " is not accepting jobs (State=" +
                                                (*partition)->state + ")"});
    }
    auto selectRequest = toSelectRequest(spec);
    if (!selectRequest) return reply(Error{selectRequest.failure()});
    auto timeLimit = effectiveTimeLimit(spec, **partition);
    if (!timeLimit) return reply(Error{timeLimit.failure()});
    if (auto ever = checkEverRuns(*selectRequest, **partition); !ever) return reply(Error{ever.failure()});
    auto dependency = checkedDependency(spec.dependency());
    if (!dependency) return reply(Error{dependency.failure()});
    std::optional<ArrayRequest> array;
    if (!spec.array().empty()) {
      if (spec.script().empty()) return reply(Error{ErrorCode::Invalid, "Job arrays are for batch jobs (sbatch) only"});
      auto parsed = parseArrayOption(spec.array(), static_cast<uint32_t>(std::max(conf_.maxArraySize, 0)));
      if (!parsed) return reply(Error{parsed.failure()});
      array = std::move(*parsed);
    }
    const select::PartitionView* view = state_.partitionView((*partition)->name);

    selectRequest->uid = caller.uid;
    if (request.test_only()) return reply(testOnly(*selectRequest, *view, **partition));

    // As in Slurm, MaxJobCount counts every job the controller keeps,
    // ended ones included until MinJobAge purges them; counting only live
    // jobs would walk the whole table on every submission.
    if (state_.jobs.size() >= static_cast<size_t>(conf_.maxJobCount)) {
      return reply(Error{ErrorCode::NotNow, "Slurm temporarily unable to accept job, sleeping and retrying"});
    }

    JobRecord job;
    job.id = state_.nextJobId++;
    job.spec = spec;
    job.spec.set_partition((*partition)->name);
    if (job.spec.name().empty()) job.spec.set_name("sbatch");
    job.user = caller.user;
    job.uid = caller.uid;
    job.gid = caller.gid;
    job.state = JobState::Pending;
    job.reason = spec.hold() ? JobReason::JobHeldUser : JobReason::None;
    job.submitTime = now();
    job.eligibleTime = job.spec.hold() ? 0 : std::max(job.submitTime, job.spec.begin_time());
    job.dependency = std::move(*dependency);
    job.timeLimitSeconds = *timeLimit;
    if (array) {
      // One record for every task until they start (job_arrays.cpp); an
      // array of one task is that task from the start.
      job.arrayJobId = job.id;
      job.arrayThrottle = array->throttle;
      if (array->tasks.size() == 1) {
        job.arrayTaskId = array->tasks.first();
      } else {
        job.arrayPending = std::move(array->tasks);
      }
    }
    uint64_t id = job.id;
    state_.addJob(std::move(job));
    ++stateEpoch_;
    executor_.persistJob(state_.jobs.at(id), [this, id, reply = std::move(reply)](const Status& status) {
      if (!status) {
        // Not durable, so not accepted: forget it again.
        onStrand([this, id] { state_.eraseJob(id); });
        return reply(Error{ErrorCode::Internal, "cannot store the job: " + status.error()});
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
  int64_t t = now();
  select::StartEstimate estimate = state_.cluster.estimateStartSorted(request, view, runningJobEnds(state_.jobs, t), t);
  v1::SubmitJobResponse response;
  std::string job = "Job " + std::to_string(state_.nextJobId);
  if (estimate.outcome.verdict != select::Verdict::Placed) {
    response.set_test_only_result(job + " cannot be placed in partition " + partition.name + " (" +
                                  estimate.outcome.reason + ")");
    return response;
  }
  std::vector<std::string> names;
  int cpus = 0;
  for (const auto& grant : estimate.outcome.allocation.nodes) {
    const select::NodeInfo& info = state_.cluster.node(grant.node);
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

}  // namespace gantry::core
