// ControllerCore's administrator commands on per-device drains:
// scontrol update TresName=... (and its JSON form) and scontrol show
// drainedtres. What a command does to a node's record is
// drain::applyDrainCommand's; who may send it and on which nodes is here.
#include "controller/core/controller_core.h"

#include <spdlog/spdlog.h>

#include "common/hostlist/hostlist.h"
#include "controller/core/select_info.h"
#include "controller/drain/drain_command.h"
#include "controller/drain/drain_request.h"
#include "controller/drain/drained_tres_text.h"

namespace gantry::core {

namespace {

std::string logLine(const drain::DrainRequest& request, const std::string& node, const std::string& user) {
  std::string line = "node " + node + ": " + request.tres + " " + drain::toString(request.action) + " by " + user;
  if (!request.reason.empty()) line += ": " + request.reason;
  return line;
}

}  // namespace

void ControllerCore::updateTres(v1::UpdateTresRequest request, auth::Identity caller,
                                Reply<v1::UpdateTresResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller), reply = std::move(reply)]() mutable {
    if (!isAdministrator(caller)) {
      return reply(Error{ErrorCode::Denied, "Access/permission denied: TRES drains are for root or SlurmUser"});
    }
    if (request.words().empty() == request.json().empty()) {
      return reply(Error{"give the request either as scontrol's words or as the API's JSON, not both or neither"});
    }
    auto parsed = request.json().empty()
                      ? drain::parseScontrolDrainRequest({request.words().begin(), request.words().end()})
                      : drain::parseJsonDrainRequest(request.json());
    if (!parsed) return reply(Error{parsed.failure()});
    auto names = hostlist::expand(parsed->nodes);
    if (!names) return reply(Error{names.failure()});
    if (names->empty()) return reply(Error{"NodeName= names no node"});
    // Every node is judged before any changes: a request refused on one
    // node changes none.
    std::vector<std::pair<NodeRecord*, drain::CommandOutcome>> changes;
    for (const auto& name : *names) {
      NodeRecord* node = state_.findNode(name);
      if (node == nullptr) return reply(Error{ErrorCode::NotFound, "Invalid node name specified: " + name});
      drain::NodeResources resources = drainResourcesFor(*node, state_.cluster.node(node->selectIndex));
      auto outcome = drain::applyDrainCommand(node->drainedTres, resources, *parsed);
      if (!outcome) return reply(Error{outcome.failure()});
      changes.emplace_back(node, std::move(*outcome));
    }
    v1::UpdateTresResponse response;
    for (auto& [node, outcome] : changes) {
      spdlog::info("{}", logLine(*parsed, node->conf.name, caller.user));
      drain::DrainedTres before = std::move(node->drainedTres);
      node->drainedTres = std::move(outcome.record);
      drainedTresChanged(*node, before, false);
      for (auto& line : outcome.leftDrained) response.add_left_drained(std::move(line));
    }
    // Answered once durable; the last node's write covers the earlier ones.
    executor_.persistNode(*changes.back().first,
                          [reply, response = std::move(response)](const Status& status) mutable {
                            if (!status) return reply(Error{ErrorCode::Internal, status.error()});
                            reply(std::move(response));
                          });
  });
}

void ControllerCore::listDrainedTres(v1::ListDrainedTresRequest request, auth::Identity caller,
                                     Reply<v1::ListDrainedTresResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller), reply = std::move(reply)] {
    v1::ListDrainedTresResponse response;
    if (conf_.privateData.nodes && !isAdministrator(caller)) return reply(std::move(response));
    std::set<std::string> wanted;
    if (!request.node_names().empty()) {
      auto names = hostlist::expand(request.node_names());
      if (!names) return reply(Error{names.failure()});
      for (const auto& name : *names) {
        if (state_.findNode(name) == nullptr) {
          return reply(Error{ErrorCode::NotFound, "Invalid node name specified: " + name});
        }
        wanted.insert(name);
      }
    }
    std::vector<std::pair<std::string, drain::DrainedTres>> nodes;
    for (const auto& node : state_.nodes) {
      if (!wanted.empty() && wanted.count(node.conf.name) == 0) continue;
      if (drain::anythingDrained(node.drainedTres)) nodes.emplace_back(node.conf.name, node.drainedTres);
    }
    response.set_listing(drain::formatDrainedTresListing(nodes));
    reply(std::move(response));
  });
}

}  // namespace gantry::core
