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

}  // namespace gantry::core
