#include "common/config/node_resources.h"

namespace gantry::config {

bool configOverridesApply(const GantryConf& conf, const NodeConf& node) {
  return conf.configOverrides || node.hasParameter("config_overrides");
}

NodeResources configuredResources(const NodeConf& node) {
  NodeResources out;
  out.cpus = node.cpus;
  out.boards = node.boards;
  out.sockets = node.sockets;
  out.coresPerSocket = node.coresPerSocket;
  out.threadsPerCore = node.threadsPerCore;
  out.realMemoryMb = node.realMemoryMb;
  out.gres = node.gres;
  return out;
}

NodeResources registeredResources(const GantryConf& conf, const NodeConf& node, const NodeResources& detected) {
  return configOverridesApply(conf, node) ? configuredResources(node) : detected;
}

}  // namespace gantry::config
