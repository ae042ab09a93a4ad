// A request turned into the numbers the node planner works with: how many
// nodes and tasks, whether the job may spread over nodes, whether it takes
// whole nodes, and what each node must supply for a given task count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "controller/select/request.h"

namespace gantry::select {

enum class DemandKind {
  PerNode,    // --gres, --gpus-per-node: a fixed count on each node
  PerTask,    // --gpus-per-task: count times the node's tasks
  PerSocket,  // --gpus-per-socket: count on each of socketsPerNode sockets
  PerJob,     // --gpus alone: any split over the nodes
};

struct DeviceDemand {
  std::string name = "gpu";
  std::string type;
  int count = 0;  // per node, per task, per socket or per job as the kind says
  DemandKind kind = DemandKind::PerNode;
  // The --gres count as asked: shares and count-only amounts may exceed an
  // int (bandwidth:4G); `count` holds it clamped.
  uint64_t amount = 0;
};

struct JobShape {
  int minNodes = 1;
  int maxNodes = 1;       // after partition MaxNodes
  int ntasks = 1;
  int ntasksPerNode = 0;  // 0: free
  bool canSpread = false; // might land on more than one node (chunk rule)
  bool tasksPerNodeFixed = false;  // the count on each node is known up front
  bool wholeNode = false;
  int socketsPerNode = 0;
  std::vector<DeviceDemand> demands;  // typed before untyped of the same name
  int gpusPerJob = 0;                 // the PerJob demand's total, 0 if none
};

struct ShapeOptions {
  int partitionMaxNodes = -1;
  bool partitionExclusive = false;
  bool partitionForcesSharing = false;  // OverSubscribe=FORCE:N, N > 1: --exclusive is not honoured
  bool allowSpecResourcesUsage = false;
};

// Fails with the option and rule for requests that no cluster could serve.
Result<JobShape> shapeJob(const Request& request, const ShapeOptions& options);

}  // namespace gantry::select
