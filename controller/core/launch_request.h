// The one place a LaunchStepRequest is built, for the three kinds of step a
// node starts: a job's batch script, its extern step (PrologFlags=Contain)
// and an interactive step (srun). Every kind describes the node's share of
// the job the same way (CPUs, cores, memory, GPUs, the whole job there).
#pragma once

#include <string>

#include "controller/core/records.h"
#include "controller/select/cluster.h"
#include "gantry/v1/agent.pb.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::core {

// Which step, and how its tasks are laid out over the step's nodes.
struct StepPlacement {
  std::string stepId;                // "batch", "extern" or the step number
  const select::NodeGrant* grant = nullptr;  // what the step gets on this node
  std::string nodeList;              // the step's nodes, compressed
  int nodeId = 0;                    // this node's position among them
  int numNodes = 1;
  int ntasks = 1;                    // all of the step's tasks
  int tasksOnNode = 1;
  int firstTaskId = 0;
  // srun's request for an interactive step; null for batch and extern.
  const v1::CreateStepRequest* interactive = nullptr;
};

// Precondition: `node` is the record of the grant's node, `info` its
// selection view, and `job` holds an allocation on it.
v1::LaunchStepRequest buildLaunchRequest(const JobRecord& job, const NodeRecord& node,
                                         const select::NodeInfo& info, const StepPlacement& step);

// switch/lua: whether the job's steps run the step functions, with the
// dictionary job_start returned (stepinfo) and the sluid of this run. Every
// kind of step carries it; gantrystepd decides which functions each runs.
void describeSwitchForStep(const JobRecord& job, const std::string& cluster, v1::LaunchStepRequest& request);

}  // namespace gantry::core
