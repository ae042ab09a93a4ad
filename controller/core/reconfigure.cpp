// ControllerCore::reconfigure: a new gantry.conf replaces the running one
// without a restart, or not at all.
#include <spdlog/spdlog.h>

#include "controller/core/controller_core.h"

namespace gantry::core {

void ControllerCore::reconfigure(config::GantryConf fresh, Reply<Ok> reply) {
  onStrand([this, fresh = std::move(fresh), reply = std::move(reply)]() mutable {
    // Check everything before changing anything.
    for (const auto& node : nodes_) {
      const config::NodeConf* next = fresh.findNode(node.conf.name);
      if (next == nullptr) {
        return reply(Error{"node " + node.conf.name +
                           " is no longer configured; removing nodes needs a controller restart"});
      }
      if (!node.jobs.empty() && (next->cpus < node.allocCpus || next->realMemoryMb < node.allocMemoryMb)) {
        return reply(Error{"node " + node.conf.name + " has jobs using more CPUs or memory than the new "
                           "configuration gives it"});
      }
    }
    if (fresh.select.crCpu != conf_.select.crCpu) {
      spdlog::warn("reconfigure: a change between CR_CPU and CR_Core takes effect after a restart");
    }
    conf_ = std::move(fresh);
    for (const auto& nodeConf : conf_.nodes) {
      NodeEntry* node = findNode(nodeConf.name);
      if (node == nullptr) {
        NodeEntry added;
        added.conf = nodeConf;
        added.addr = nodeConf.addr.empty() ? nodeConf.name : nodeConf.addr;
        added.port = nodeConf.port != 0 ? nodeConf.port : conf_.slurmdPort;
        added.selectIndex = cluster_.addNode(selectInfoFor(added));
        nodeIndex_[nodeConf.name] = nodes_.size();
        nodes_.push_back(std::move(added));
        refreshSelectAvailability(nodes_.back());
        continue;
      }
      node->conf = nodeConf;
      if (!node->registered) {
        node->addr = nodeConf.addr.empty() ? nodeConf.name : nodeConf.addr;
        node->port = nodeConf.port != 0 ? nodeConf.port : conf_.slurmdPort;
      }
      cluster_.replaceNode(node->selectIndex, selectInfoFor(*node));
      refreshSelectAvailability(*node);
    }
    spdlog::info("reconfigure: {} nodes, {} partitions", conf_.nodes.size(), conf_.partitions.size());
    requestSchedule();
    reply(Ok{});
  });
}

}  // namespace gantry::core
