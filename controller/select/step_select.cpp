#include "controller/select/step_select.h"

#include <optional>

#include "common/gres/index_list.h"
#include "controller/select/job_shape.h"
#include "controller/select/node_lists.h"
#include "controller/select/placer.h"

namespace gantry::select {

namespace {

// The GPU type a request names: nullopt when it asks for no GPUs, "" untyped.
std::optional<std::string> gpuTypeOf(const Request& r) {
  for (const auto& gres : r.gresPerNode)
    if (gres.name == "gpu") return gres.type;
  if (r.gpus > 0 || r.gpusPerNode > 0 || r.gpusPerSocket > 0 || r.gpusPerTask > 0) return r.gpuType;
  return std::nullopt;
}

bool asksForGres(const Request& r) {
  return !r.gresPerNode.empty() || gpuTypeOf(r).has_value();
}

std::string describe(const std::string& type) { return type.empty() ? "gpu" : "gpu:" + type; }

gres::DeviceMask shareDevices(const NodeGrant& grant) {
  gres::DeviceMask mask = 0;
  for (const auto& share : grant.shares)
    if (share.device >= 0 && share.device < gres::kMaxDevicesPerNode) mask |= gres::bitOf(share.device);
  return mask;
}

// Adds a grant's shares to `usage` (pool by name).
void addShares(const NodeState& node, NodeUsage& usage, const NodeGrant& grant) {
  for (const auto& share : grant.shares) {
    int p = node.poolIndex(share.name);
    if (p >= 0 && share.device >= 0 && share.device < static_cast<int>(usage.sharesUsed[p].size()))
      usage.sharesUsed[p][share.device] += share.count;
  }
}

// The step's view of one job node: only the job's cpus, devices, shares and
// count GRES, less what running steps hold when the step wants them to itself.
NodeUsage stepUsage(const NodeState& node, const NodeGrant& jobGrant, const std::vector<Allocation>& running,
                    bool exclusive) {
  NodeUsage usage;
  usage.freeCpus = CpuSet(node.cpuCount, false);
  for (int cpu : jobGrant.cpus)
    if (cpu >= 0 && cpu < node.cpuCount) usage.freeCpus.set(cpu);
  gres::DeviceMask jobShared = shareDevices(jobGrant);
  usage.usedDevices = node.allDevices & ~gres::indexesToMask(jobGrant.devices) & ~jobShared;
  usage.usedCounts.assign(node.counted.size(), 0);
  for (size_t i = 0; i < node.counted.size(); ++i) {
    uint64_t granted = 0;
    for (const auto& [key, amount] : jobGrant.countGres)
      if (key == gres::countedGresKey(node.counted[i])) granted += amount;
    usage.usedCounts[i] = node.counted[i].count - std::min(granted, node.counted[i].count);
  }
  // Of each pool, only the job's own shares are free to its steps.
  usage.sharesUsed = node.idle.sharesUsed;
  for (size_t p = 0; p < node.pools.size(); ++p)
    for (size_t d = 0; d < usage.sharesUsed[p].size(); ++d) {
      uint64_t granted = 0;
      for (const auto& share : jobGrant.shares)
        if (share.device == static_cast<int>(d) && share.name == node.pools[p].name) granted += share.count;
      usage.sharesUsed[p][d] = node.pools[p].capacity[d] - std::min(granted, node.pools[p].capacity[d]);
    }
  // A GPU the job shares is never given whole to a step; a whole-node job
  // holds its GPUs whole anyway.
  usage.sharedDevices = jobGrant.wholeNode ? 0 : jobShared;
  if (!exclusive) return usage;
  for (const auto& step : running)
    for (const auto& grant : step.nodes) {
      if (grant.node != jobGrant.node) continue;
      for (int cpu : grant.cpus)
        if (cpu >= 0 && cpu < node.cpuCount) usage.freeCpus.reset(cpu);
      usage.usedDevices |= gres::indexesToMask(grant.devices);
      for (const auto& [key, amount] : grant.countGres)
        for (size_t i = 0; i < node.counted.size(); ++i)
          if (!node.counted[i].noConsume && gres::countedGresKey(node.counted[i]) == key)
            usage.usedCounts[i] += amount;
      addShares(node, usage, grant);
    }
  return usage;
}

// The job's nodes in the order a step is offered them (node_lists.h):
// the -w nodes first, then the others the lists allow. A listed node the
// job does not hold makes the list {nullptr}: the step can never run.
std::vector<const NodeGrant*> offerOrder(const Allocation& job, const NodeLists& lists) {
  std::vector<const NodeGrant*> order;
  auto grantOn = [&job](int node) -> const NodeGrant* {
    for (const auto& grant : job.nodes)
      if (grant.node == node) return &grant;
    return nullptr;
  };
  for (const std::vector<int>* listed : {&lists.required, &lists.candidates}) {
    for (int node : *listed) {
      const NodeGrant* grant = grantOn(node);
      if (grant == nullptr) return {nullptr};
      if (listed == &lists.required) order.push_back(grant);
    }
  }
  for (const auto& grant : job.nodes)
    if (offeredInSearch(lists, grant.node)) order.push_back(&grant);
  return order;
}

}  // namespace

std::string typedRequestMismatch(const Request& jobRequest, const Request& step) {
  auto jobType = gpuTypeOf(jobRequest);
  auto stepType = gpuTypeOf(step);
  if (!jobType || !stepType) return "";
  if (jobType->empty() == stepType->empty() && (jobType->empty() || *jobType == *stepType)) return "";
  return "--gres: the step asks for " + describe(*stepType) + " but the job was allocated " +
         describe(*jobType) + "; typed and untyped GPU requests must match between a job and its steps";
}

Outcome selectStepInJob(const StepContext& context, const Request& jobRequest, const Allocation& job,
                        const std::vector<Allocation>& runningSteps, const Request& step) {
  if (auto mismatch = typedRequestMismatch(jobRequest, step); !mismatch.empty())
    return Outcome{Verdict::Never, {}, mismatch};
  if (step.minNodes > static_cast<int>(job.nodes.size()))
    return Outcome{Verdict::Never, {}, "-N/--nodes: the step asks for " + std::to_string(step.minNodes) +
                                           " nodes but the job holds " + std::to_string(job.nodes.size())};
  // Memory and whole-node rules belong to the job; a step only divides it.
  Request inner = step;
  inner.memPerNodeMb = inner.memPerCpuMb = inner.memPerGpuMb = 0;
  inner.exclusive = false;
  inner.coreSpec = inner.threadSpec = 0;
  auto shape = shapeJob(inner, ShapeOptions{.partitionMaxNodes = static_cast<int>(job.nodes.size())});
  if (!shape) return Outcome{Verdict::Never, {}, shape.error()};

  std::vector<const NodeGrant*> order = offerOrder(job, step.nodeLists);
  if (!order.empty() && order.front() == nullptr) {
    return Outcome{Verdict::Never, {},
                   std::string(kReasonNeverAvailable) + ": -w/--nodelist names a node outside the job's allocation"};
  }
  for (bool now : {true, false}) {
    Placer placer(inner, *shape,
                  PlacerOptions{.byCpu = context.options.allocateByCpu,
                                .chunkRules = false,
                                .spreadShares = context.options.multipleSharingGresPj});
    for (const NodeGrant* grant : order) {
      if (grant->node < 0 || grant->node >= static_cast<int>(context.nodes.size())) continue;
      const NodeState& node = *context.nodes[grant->node];
      NodeUsage usage = stepUsage(node, *grant, runningSteps, now && step.exclusive);
      int before = placer.chosen();
      bool complete =
          placer.offer(grant->node, node, usage, 0, gres::indexesToMask(grant->devices) | shareDevices(*grant));
      // A -w node that cannot take its part leaves the step short of what
      // it asked for: it waits (or, even idle, can never run).
      if (placer.chosen() == before && isRequired(step.nodeLists, grant->node)) break;
      if (complete) break;
    }
    if (!placer.complete()) continue;
    Allocation allocation = placer.takeAllocation();
    if (!holdsRequired(step.nodeLists, allocation)) continue;
    if (!now) return Outcome{Verdict::NotNow, {}, "Resources"};
    if (!asksForGres(step)) {
      // By default a step gets every device the job holds on its nodes.
      for (auto& stepGrant : allocation.nodes)
        for (const auto& jobGrant : job.nodes)
          if (jobGrant.node == stepGrant.node) {
            stepGrant.devices = jobGrant.devices;
            stepGrant.countGres = jobGrant.countGres;
            stepGrant.shares = jobGrant.shares;
          }
    }
    return Outcome{Verdict::Placed, std::move(allocation), ""};
  }
  return Outcome{Verdict::Never, {}, "the step asks for more than the job's allocation holds"};
}

}  // namespace gantry::select
