// ControllerCore's read-only views: jobs, nodes, partitions, configuration.
#include "controller/core/controller_core.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "common/util/sluid.h"
#include "controller/core/accounting_view.h"
#include "controller/core/core_helpers.h"
#include "controller/rpc/views.h"

namespace gantry::core {

using detail::nodeListOf;

// ---------------------------------------------------------------- queries

namespace {

constexpr uint32_t kDefaultJobPage = 1000;
constexpr uint32_t kLargestJobPage = 10000;

// Values of gantry.conf that only administrators see: passwords and the like.
bool isSecretKey(std::string key) {
  for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return key.find("pass") != std::string::npos || key.find("secret") != std::string::npos ||
         key.find("token") != std::string::npos;
}

}  // namespace

void ControllerCore::listJobs(v1::ListJobsRequest request, Reply<v1::ListJobsResponse> reply) {
  listJobs(std::move(request), auth::Identity{.uid = 0, .gid = 0, .user = "root"}, std::move(reply));
}

void ControllerCore::listJobs(v1::ListJobsRequest request, auth::Identity caller, Reply<v1::ListJobsResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller), reply = std::move(reply)] {
    v1::ListJobsResponse response;
    std::set<uint64_t> ids(request.job_ids().begin(), request.job_ids().end());
    // An array's job id stands for every record of the array, as in Slurm.
    for (uint64_t id : request.job_ids()) {
      if (auto members = state_.arrayMembers.find(id); members != state_.arrayMembers.end()) {
        ids.insert(members->second.begin(), members->second.end());
      }
    }
    std::set<std::string> sluids;
    for (const std::string& text : request.sluids()) {
      if (auto sluid = canonicalSluid(text)) sluids.insert(*sluid);
    }
    bool byId = !ids.empty() || !request.sluids().empty();
    std::set<int> states(request.states().begin(), request.states().end());
    // PrivateData=jobs: other users' jobs are not there for a plain user.
    bool onlyOwn = conf_.privateData.jobs && !isAdministrator(caller);
    uint32_t limit = request.page_size() == 0 ? kDefaultJobPage : std::min(request.page_size(), kLargestJobPage);
    views::JobDetail detail = views::kListingDetail;
    detail.steps = request.include_steps();
    const PriorityContext context = priorityContext();
    const PriorityWeights& weights = context.weights;
    for (auto it = state_.jobs.upper_bound(request.after_job_id()); it != state_.jobs.end(); ++it) {
      const auto& [id, job] = *it;
      if (!ids.empty() && ids.count(id) == 0) continue;
      std::string sluid = jobSluid(state_.conf.clusterName, id);
      if (!request.sluids().empty() && sluids.count(sluid) == 0) continue;
      if (!states.empty() && states.count(views::toWire(job.state)) == 0) continue;
      if (!request.user().empty() && job.user != request.user()) continue;
      if (onlyOwn && job.uid != caller.uid) continue;
      // Ended jobs are listed when asked for by id or explicitly.
      if (isEnded(job.state) && !byId && !request.include_finished()) continue;
      if (static_cast<uint32_t>(response.jobs_size()) == limit) {
        response.set_next_after_job_id(response.jobs(response.jobs_size() - 1).job_id());
        break;
      }
      v1::Job& wire = *response.add_jobs();
      wire = views::jobToWire(job, state_.cluster, detail);
      wire.set_sluid(std::move(sluid));
      PriorityParts parts;
      wire.set_priority(job.state == JobState::Pending || job.spec.priority() != 0
                            ? effectivePriority(job, context, &parts)
                            : 0);
      if (request.include_priority() && weights.multifactor && job.state == JobState::Pending) {
        v1::PriorityFactors* factors = wire.mutable_priority_factors();
        factors->set_age(parts.age * weights.age);
        factors->set_fairshare(parts.fairshare * weights.fairshare);
        factors->set_job_size(parts.jobSize * weights.jobSize);
        factors->set_partition(parts.partition * weights.partition);
        factors->set_nice(parts.nice);
        v1::PriorityFactors* normalized = factors->mutable_normalized();
        normalized->set_age(parts.age);
        normalized->set_fairshare(parts.fairshare);
        normalized->set_job_size(parts.jobSize);
        normalized->set_partition(parts.partition);
        normalized->set_nice(parts.nice);
      }
      if (request.include_tres()) {
        // In Slurm's TRES id order, as scontrol show job and squeue write it.
        wire.set_req_tres(tresTextInIdOrder(requestedTres(job.spec)));
        if (!job.nodeNames.empty())
          wire.set_alloc_tres(tresTextInIdOrder(heldTresCounts(heldTresOf(job.allocation, state_.cluster))));
      }
    }
    reply(std::move(response));
  });
}

void ControllerCore::getBatchScript(v1::GetBatchScriptRequest request, auth::Identity caller,
                                    Reply<v1::GetBatchScriptResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller), reply = std::move(reply)] {
    const JobRecord* job = state_.findJob(request.job_id());
    bool visible = job != nullptr && (job->uid == caller.uid || isAdministrator(caller) || !conf_.privateData.jobs);
    if (!visible) {
      return reply(Error{ErrorCode::NotFound, "Invalid job id specified: " + std::to_string(request.job_id())});
    }
    if (job->uid != caller.uid && !isAdministrator(caller)) {
      return reply(Error{ErrorCode::Denied, "Access/permission denied: only the job's owner, root and SlurmUser "
                                            "may read its batch script"});
    }
    if (!job->isBatch()) {
      return reply(Error{ErrorCode::Invalid, "Job " + std::to_string(job->id) + " has no batch script"});
    }
    v1::GetBatchScriptResponse response;
    response.set_script(job->spec.script());
    reply(std::move(response));
  });
}

void ControllerCore::listNodes(v1::ListNodesRequest request, Reply<v1::ListNodesResponse> reply) {
  listNodes(std::move(request), auth::Identity{.uid = 0, .gid = 0, .user = "root"}, std::move(reply));
}

void ControllerCore::listNodes(v1::ListNodesRequest request, auth::Identity caller, Reply<v1::ListNodesResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller), reply = std::move(reply)] {
    if (conf_.privateData.nodes && !isAdministrator(caller)) {
      return reply(Error{ErrorCode::Denied, "Access/permission denied: node information is private (PrivateData=nodes)"});
    }
    v1::ListNodesResponse response;
    std::set<std::string> names;
    for (const auto& expr : request.names()) {
      auto expanded = hostlist::expand(expr);
      if (!expanded) return reply(Error{expanded.failure()});
      names.insert(expanded->begin(), expanded->end());
    }
    for (const auto& node : state_.nodes) {
      if (!names.empty() && names.count(node.conf.name) == 0) continue;
      *response.add_nodes() = views::nodeToWire(node, state_, now());
    }
    if (!names.empty() && response.nodes_size() == 0) {
      return reply(Error{ErrorCode::NotFound, "Node " + *names.begin() + " not found"});
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
      std::map<std::string, uint64_t> tres;
      for (const auto& name : partition.nodes) {
        const NodeRecord* node = state_.findNode(name);
        if (node == nullptr) continue;
        cpus += node->conf.cpus;
        for (const auto& [key, count] : configuredTresCounts(node->conf)) tres[key] += count;
      }
      if (!partition.nodes.empty()) tres["node"] = partition.nodes.size();
      view->set_total_cpus(cpus);
      view->set_tres(tresTextInIdOrder(tres));
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
      return reply(Error{ErrorCode::NotFound, "Partition " + *names.begin() + " not found"});
    }
    reply(std::move(response));
  });
}

void ControllerCore::getConfig(Reply<v1::GetConfigResponse> reply) {
  getConfig(auth::Identity{.uid = 0, .gid = 0, .user = "root"}, std::move(reply));
}

void ControllerCore::getConfig(auth::Identity caller, Reply<v1::GetConfigResponse> reply) {
  onStrand([this, caller = std::move(caller), reply = std::move(reply)] {
    v1::GetConfigResponse response;
    bool admin = isAdministrator(caller);
    for (const auto& [key, value] : conf_.entries) {
      v1::ConfigEntry* entry = response.add_entries();
      entry->set_key(key);
      entry->set_value(!admin && isSecretKey(key) ? "(hidden)" : value);
    }
    reply(std::move(response));
  });
}

}  // namespace gantry::core
