// Step placement inside a job's allocation (internal to the select library;
// callers use Cluster::selectStep).
#pragma once

#include <memory>
#include <vector>

#include "controller/select/node_state.h"

namespace gantry::select {

struct StepContext {
  const std::vector<std::unique_ptr<NodeState>>& nodes;
  const ClusterOptions& options;
};

Outcome selectStepInJob(const StepContext& context, const Request& jobRequest, const Allocation& job,
                        const std::vector<Allocation>& runningSteps, const Request& step);

// Why a step's GPU request does not match the job's typed/untyped form, or
// an empty string when it does (or either side asks for no GPUs).
std::string typedRequestMismatch(const Request& jobRequest, const Request& step);

}  // namespace gantry::select
