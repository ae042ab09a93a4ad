// ControllerCore::reconfigure: a new gantry.conf replaces the running one
// without a restart, or not at all.
#include <spdlog/spdlog.h>

#include "controller/core/controller_core.h"
#include "controller/core/select_info.h"

namespace gantry::core {

void ControllerCore::reconfigure(config::GantryConf fresh, Reply<Ok> reply) {
  onStrand([this, fresh = std::move(fresh), reply = std::move(reply)]() mutable {
    // Check everything before changing anything.
    for (const auto& node : state_.nodes) {
      const config::NodeConf* next = fresh.findNode(node.conf.name);
      if (next == nullptr) {
        return reply(Error{ErrorCode::NotNow, "node " + node.conf.name +
                                                  " is no longer configured; removing nodes needs a controller restart"});
      }
      if (!node.jobs.empty() && (next->cpus < node.allocCpus || next->realMemoryMb < node.allocMemoryMb)) {
        return reply(Error{ErrorCode::NotNow, "node " + node.conf.name +
                                                  " has jobs using more CPUs or memory than the new "
                                                  "configuration gives it"});
      }
    }
    if (fresh.select.crCpu != conf_.select.crCpu) {
      spdlog::warn("reconfigure: a change between CR_CPU and CR_Core takes effect after a restart");
    }
    conf_ = std::move(fresh);
    options_.keepFinishedSeconds = conf_.minJobAgeSeconds;
    for (const auto& nodeConf : conf_.nodes) {
      NodeRecord* node = state_.findNode(nodeConf.name);
      if (node == nullptr) {
        addConfiguredNode(nodeConf);
        executor_.refreshNode(state_.nodes.back(), false);
        continue;
      }
      node->conf = nodeConf;
      if (!node->registered) {
        node->addr = nodeConf.addr.empty() ? nodeConf.name : nodeConf.addr;
        node->port = nodeConf.port != 0 ? nodeConf.port : conf_.slurmdPort;
      }
      executor_.refreshNode(*node, true);
    }
    state_.rebuildPartitions();
    spdlog::info("reconfigure: {} nodes, {} partitions", conf_.nodes.size(), conf_.partitions.size());
    requestSchedule();
    reply(Ok{});
  });
}

void ControllerCore::reconfigureNodes(Reply<std::vector<std::string>> reply) {
  onStrand([this, reply = std::move(reply)]() mutable {
    // A node that is not registered or not answering reads its files when
    // its agent starts again; asking it would only wait for a timeout.
    std::vector<AgentAddress> targets;
    for (const auto& node : state_.nodes) {
      if (!node.registered || node.notResponding) continue;
      targets.push_back(AgentAddress{.node = node.conf.name, .addr = node.addr, .port = node.port});
    }
    if (targets.empty()) return reply(std::vector<std::string>{});
    struct Gathered {
      size_t waiting = 0;
      std::vector<std::string> problems;
      Reply<std::vector<std::string>> reply;
    };
    auto gathered = std::make_shared<Gathered>(Gathered{targets.size(), {}, std::move(reply)});
    for (const auto& to : targets) {
      options_.agents->reconfigure(to, [this, gathered, node = to.node](const Status& answer) {
        onStrand([gathered, node, answer] {
          if (!answer) gathered->problems.push_back("node " + node + ": " + answer.error());
          if (--gathered->waiting == 0) gathered->reply(std::move(gathered->problems));
        });
      });
    }
  });
}

}  // namespace gantry::core
