// ControllerCore's read-only views: jobs, nodes, partitions, configuration.
#include "controller/core/controller_core.h"

#include <set>

#include "controller/core/core_helpers.h"
#include "controller/rpc/views.h"

namespace gantry::core {

using detail::nodeListOf;

// ---------------------------------------------------------------- queries

void ControllerCore::listJobs(v1::ListJobsRequest request, Reply<v1::ListJobsResponse> reply) {
  onStrand([this, request = std::move(request), reply = std::move(reply)] {
    v1::ListJobsResponse response;
    std::set<uint64_t> ids(request.job_ids().begin(), request.job_ids().end());
    std::set<int> states(request.states().begin(), request.states().end());
    for (const auto& [id, job] : state_.jobs) {
      if (!ids.empty() && ids.count(id) == 0) continue;
      if (!states.empty() && states.count(views::toWire(job.state)) == 0) continue;
      if (!request.user().empty() && job.user != request.user()) continue;
      // Ended jobs are listed when asked for by id or explicitly.
      if (isEnded(job.state) && ids.empty() && !request.include_finished()) continue;
      *response.add_jobs() = views::jobToWire(job, state_.cluster, request.include_steps());
    }
    reply(std::move(response));
  });
}

void ControllerCore::listNodes(v1::ListNodesRequest request, Reply<v1::ListNodesResponse> reply) {
  onStrand([this, request = std::move(request), reply = std::move(reply)] {
    v1::ListNodesResponse response;
    std::set<std::string> names;
    for (const auto& expr : request.names()) {
      auto expanded = hostlist::expand(expr);
      if (!expanded) return reply(Error{expanded.error()});
      names.insert(expanded->begin(), expanded->end());
    }
    for (const auto& node : state_.nodes) {
      if (!names.empty() && names.count(node.conf.name) == 0) continue;
      *response.add_nodes() = views::nodeToWire(node, state_);
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
      for (const auto& name : partition.nodes) {
        if (const NodeRecord* node = state_.findNode(name)) cpus += node->conf.cpus;
      }
      view->set_total_cpus(cpus);
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
  onStrand([this, reply = std::move(reply)] {
    v1::GetConfigResponse response;
    for (const auto& [key, value] : conf_.entries) {
      v1::ConfigEntry* entry = response.add_entries();
      entry->set_key(key);
      entry->set_value(value);
    }
    reply(std::move(response));
  });
}

}  // namespace gantry::core
