// Builders that keep selection test cases to a few readable lines.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "controller/select/cluster.h"

namespace gantry::select::testing {

struct NodeShape {
  int sockets = 2;
  int coresPerSocket = 8;
  int threadsPerCore = 1;
  uint64_t memoryMb = 64000;
};

// `gpus` untyped (or typed) GPUs; GPU i is bound to socket i * sockets / gpus.
inline NodeInfo gpuNode(const std::string& name, int gpus, const std::string& type = "", NodeShape shape = {}) {
  NodeInfo node;
  node.name = name;
  node.sockets = shape.sockets;
  node.coresPerSocket = shape.coresPerSocket;
  node.threadsPerCore = shape.threadsPerCore;
  node.realMemoryMb = shape.memoryMb;
  for (int i = 0; i < gpus; ++i) {
    DeviceInfo device;
    device.type = type;
    device.files = {"/dev/nvidia" + std::to_string(i)};
    int socket = i * shape.sockets / gpus;
    for (int c = 0; c < shape.coresPerSocket; ++c) device.cores.push_back(socket * shape.coresPerSocket + c);
    node.devices.push_back(device);
  }
  return node;
}

// Links as a full matrix; entry [i][i] is ignored.
inline void setLinks(NodeInfo& node, const std::vector<std::vector<int>>& matrix) {
  for (size_t i = 0; i < matrix.size(); ++i) {
    node.devices[i].links = matrix[i];
    node.devices[i].links[i] = -1;
  }
}

// The spec's four-GPU node: 0 with 1, 2 with 3.
inline NodeInfo twoPairNode(const std::string& name) {
  NodeInfo node = gpuNode(name, 4);
  setLinks(node, {{-1, 1, 0, 0}, {1, -1, 0, 0}, {0, 0, -1, 1}, {0, 0, 1, -1}});
  return node;
}

// All devices pairwise linked.
inline void linkAll(NodeInfo& node) {
  int n = static_cast<int>(node.devices.size());
  std::vector<std::vector<int>> matrix(n, std::vector<int>(n, 1));
  setLinks(node, matrix);
}

inline PartitionView allNodes(const Cluster& cluster) {
  PartitionView view;
  for (int i = 0; i < cluster.nodeCount(); ++i) view.nodes.push_back(i);
  return view;
}

inline Request gpusPerNode(int count) {
  Request r;
  r.gpusPerNode = count;
  return r;
}

inline Request gres(const std::string& type, int count) {
  Request r;
  r.gresPerNode.push_back({"gpu", type, static_cast<uint64_t>(count)});
  return r;
}

inline std::vector<int> devicesOf(const Outcome& outcome, size_t nodeIndex = 0) {
  if (outcome.allocation.nodes.size() <= nodeIndex) return {};
  return outcome.allocation.nodes[nodeIndex].devices;
}

inline bool traceHas(const SelectTrace& trace, int node, const std::string& rule) {
  return std::any_of(trace.begin(), trace.end(),
                     [&](const Rejection& r) { return r.node == node && r.rule == rule; });
}

}  // namespace gantry::select::testing
