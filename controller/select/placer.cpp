#include "controller/select/placer.h"

#include <algorithm>
#include <bit>

#include "controller/select/rules.h"

namespace gantry::select {

namespace {
// A node whose best task count fails is retried with fewer tasks; beyond
// this many tries it is passed over, which bounds the cost of huge -n jobs.
constexpr int kTaskCountTries = 64;
}  // namespace

Placer::Placer(const Request& request, const JobShape& shape, PlacerOptions options)
    : request_(request), shape_(shape), options_(options), tasksLeft_(shape.ntasks), gpusLeft_(shape.gpusPerJob) {}

bool Placer::complete() const {
  return tasksLeft_ == 0 && gpusLeft_ <= 0 && static_cast<int>(allocation_.nodes.size()) >= shape_.minNodes;
}

void Placer::rejectNode(int index, const char* rule) {
  if (options_.trace) options_.trace->push_back({index, rule});
}

bool Placer::offer(int index, const NodeState& node, const NodeUsage& usage, gres::DeviceMask drained,
                   gres::DeviceMask allowed, const CpuSet* cpus) {
  if (complete()) return true;
  if (full()) return false;
  int chosen = static_cast<int>(allocation_.nodes.size());
  int keepBack = std::max(0, shape_.minNodes - chosen - 1);
  int maxTasks = tasksLeft_ - keepBack;
  int minTasks = tasksLeft_ > 0 ? 1 : 0;
  if (shape_.ntasksPerNode > 0) {
    maxTasks = std::min(maxTasks, shape_.ntasksPerNode);
    minTasks = std::min(tasksLeft_, maxTasks);  // the per-node count is fixed
  }
  // The last node the job may have takes every task left, or the job would
  // end up short with no node to go to.
  if (chosen + 1 >= shape_.maxNodes) minTasks = std::max(minTasks, tasksLeft_);
  // Upper bounds from what the node has free (all of it for a whole-node
  // job, whose idleness the planner checks), so the first try usually fits.
  const CpuSet& freeCpus = cpus ? *cpus : usage.freeCpus;
  int cpuRoom = shape_.wholeNode ? node.cpuCount - usage.cpusDrained : freeCpus.count();
  maxTasks = std::min(maxTasks, cpuRoom / std::max(request_.cpusPerTask, 1));
  if (request_.gpusPerTask > 0) {
    gres::DeviceMask free = node.allDevices & ~drained & allowed;
    if (!shape_.wholeNode) free &= ~usage.usedDevices & ~usage.sharedDevices;
    maxTasks = std::min(maxTasks, std::popcount(free) / request_.gpusPerTask);
  }
  if (maxTasks < minTasks) {
    rejectNode(index, tasksLeft_ > 0 && request_.gpusPerTask > 0 ? rules::kDevices : rules::kCpus);
    return false;
  }
  PlanResult plan;
  int tries = 0;
  for (int tasks = maxTasks; tasks >= minTasks && tries < kTaskCountTries; --tasks, ++tries) {
    PlanInput input{.request = request_,
                    .shape = shape_,
                    .tasks = tasks,
                    .gpusWanted = gpusLeft_,
                    .byCpu = options_.byCpu,
                    .allowSpec = options_.allowSpec,
                    .chunkRules = options_.chunkRules,
                    .spreadShares = options_.spreadShares,
                    .wholeNodeCpus = options_.wholeNodeCpus,
                    .cpus = cpus};
    plan = planNode(node, usage, drained, input, allowed);
    if (plan.ok()) break;
  }
  if (!plan.ok()) {
    rejectNode(index, plan.rule);
    return false;
  }
  plan.grant.node = index;
  tasksLeft_ -= plan.grant.tasks;
  gpusLeft_ -= plan.perJobGpus;
  allocation_.nodes.push_back(std::move(plan.grant));
  return complete();
}

}  // namespace gantry::select
