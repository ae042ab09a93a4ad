#include "controller/select/job_shape.h"

#include <algorithm>
#include <climits>

#include "common/gres/shared.h"
#include "common/util/checked.h"

namespace gantry::select {

namespace {

// a >= 0, b > 0; written so that a near INT_MAX cannot overflow.
int ceilDiv(int a, int b) { return a / b + (a % b != 0 ? 1 : 0); }

// Products of counts that shapeJob and the node planner compute in int; a
// request whose product does not fit is refused rather than wrapped.
Status validateCountProducts(const Request& r) {
  struct Product {
    const char* what;
    int x, y;
  };
  int tasksOnOneNode = std::max(r.ntasksPerNode, 1);
  for (const Product& p : std::initializer_list<Product>{
           {"-n/--ntasks x -c/--cpus-per-task", r.ntasks, r.cpusPerTask},
           {"--ntasks-per-node x -c/--cpus-per-task", tasksOnOneNode, r.cpusPerTask},
           {"-N/--nodes x --ntasks-per-node", r.minNodes, tasksOnOneNode},
           {"--gpus-per-task x -n/--ntasks", r.gpusPerTask, std::max(r.ntasks, tasksOnOneNode)},
           {"--gpus-per-socket x --sockets-per-node", r.gpusPerSocket, std::max(r.socketsPerNode, 1)}}) {
    if (!checkedMul(p.x, p.y)) return Error{std::string(kReasonNeverAvailable) + ": " + p.what + " is out of range"};
  }
  return okStatus();
}

bool isGpu(const GresRequest& gres) { return gres.name == "gpu"; }

// The GPUs every node must hold, from --gpus-per-node or --gres=gpu:N; 0
// when neither is given.
int gpusPerNodeForm(const Request& r) {
  if (r.gpusPerNode > 0) return r.gpusPerNode;
  for (const auto& gres : r.gresPerNode)
    if (isGpu(gres)) return static_cast<int>(std::min<uint64_t>(gres.count, INT_MAX));
  return 0;
}

// The first shared GRES (mps, shard) the request names, or null.
const GresRequest* firstShared(const Request& r, const char* only = nullptr) {
  for (const auto& gres : r.gresPerNode)
    if (gres::isSharedGresName(gres.name) && (!only || gres.name == only)) return &gres;
  return nullptr;
}

// A GPU is given whole or as MPS shares, so one job cannot ask for both; a
// shared GPU keeps one clock for all the jobs on it.
Status validateSharing(const Request& r, bool asksGpus) {
  if (asksGpus && firstShared(r, "mps"))
    return Error{"Invalid generic resource (gres) specification: --gres=mps cannot be combined with a GPU request (--gres=gpu, --gpus*): "
                 "a GPU is allocated either whole or as MPS shares"};
  if (const GresRequest* shared = firstShared(r); shared && !r.gpuFreq.empty())
    return Error{"Invalid generic resource (gres) specification: --gpu-freq cannot be used with --gres=" + shared->name +
                 ": jobs sharing a GPU cannot set its frequency"};
  return okStatus();
}

}  // namespace

Status validateRequest(const Request& r) {
  if (r.minNodes < 1) return Error{"-N/--nodes: the minimum node count must be at least 1"};
  if (r.maxNodes != 0 && r.maxNodes < r.minNodes)
    return Error{"-N/--nodes: the maximum node count is below the minimum"};
  if (r.ntasks < 1) return Error{"-n/--ntasks: the task count must be at least 1"};
  if (r.ntasksPerNode < 0) return Error{"--ntasks-per-node must not be negative"};
  if (r.cpusPerTask < 1) return Error{"-c/--cpus-per-task must be at least 1"};
  if (r.coreSpec < 0 || r.threadSpec < 0) return Error{"--core-spec/--thread-spec must not be negative"};
  if (r.coreSpec > 0 && r.threadSpec > 0) return Error{"--core-spec and --thread-spec are mutually exclusive"};
  if (r.gpus < 0 || r.gpusPerNode < 0 || r.gpusPerSocket < 0 || r.gpusPerTask < 0 || r.cpusPerGpu < 0)
    return Error{"--gpus*/--cpus-per-gpu counts must not be negative"};
  if (r.socketsPerNode < 0) return Error{"--sockets-per-node must not be negative"};
  if (auto products = validateCountProducts(r); !products) return products;
  if (r.gpusPerSocket > 0 && r.socketsPerNode < 1)
    return Error{"--gpus-per-socket requires a socket count for the tasks (--sockets-per-node)"};
  int memForms = (r.memPerNodeMb > 0) + (r.memPerCpuMb > 0) + (r.memPerGpuMb > 0);
  if (memForms > 1) return Error{"--mem, --mem-per-cpu and --mem-per-gpu are mutually exclusive"};
  bool gresGpu = std::any_of(r.gresPerNode.begin(), r.gresPerNode.end(), isGpu);
  int perNodeForms = gresGpu + (r.gpusPerNode > 0) + (r.gpusPerSocket > 0);
  if (perNodeForms > 1)
    return Error{"--gres=gpu, --gpus-per-node and --gpus-per-socket are mutually exclusive"};
  if (r.gpusPerTask > 0 && r.gpusPerSocket > 0)
    return Error{"--gpus-per-socket and --gpus-per-task are mutually exclusive"};
  // As in Slurm, a per-node count may come with a per-task one: the node
  // gets its per-node count and each task binds to its share of it.
  if (int perNode = gpusPerNodeForm(r); perNode > 0 && r.gpusPerTask > perNode)
    return Error{"--gpus-per-task must not exceed --gpus-per-node (--gres=gpu)"};
  if (r.gpus > 0 && (gresGpu || r.gpusPerSocket > 0))
    return Error{"--gpus cannot be combined with --gres=gpu or --gpus-per-socket"};
  if (r.gpus > 0 && r.gpusPerNode > 0 && r.gpus % r.gpusPerNode != 0)
    return Error{"--gpus must be a multiple of --gpus-per-node"};
  if (r.gpus > 0 && r.gpusPerTask > 0 && r.gpus % r.gpusPerTask != 0)
    return Error{"--gpus must be a multiple of --gpus-per-task"};
  bool asksGpus = gresGpu || r.gpus > 0 || r.gpusPerNode > 0 || r.gpusPerSocket > 0 || r.gpusPerTask > 0;
  if (auto sharing = validateSharing(r, asksGpus); !sharing) return sharing;
  for (const auto& gres : r.gresPerNode) {
    if (gres.name.empty()) return Error{"--gres: a GRES name is required"};
    if (gres.count == 0) return Error{"--gres=" + gres.name + ": the count must be at least 1"};
    for (const auto& other : r.gresPerNode)
      if (&other != &gres && other.name == gres.name && other.type == gres.type)
        return Error{"--gres=" + gres.name + (gres.type.empty() ? "" : ":" + gres.type) +
                     " is given twice"};
  }
  return okStatus();
}

std::optional<uint64_t> leastMemoryPerNode(const Request& r) {
  if (r.memPerNodeMb > 0) return r.memPerNodeMb;
  if (r.memPerCpuMb > 0) {
    uint64_t cpus = static_cast<uint64_t>(std::max(r.cpusPerTask, 1)) * static_cast<uint64_t>(std::max(r.ntasksPerNode, 1));
    return checkedMul<uint64_t>(r.memPerCpuMb, cpus);
  }
  return r.memPerGpuMb;  // at least one GPU on a node that gets any
}

Result<JobShape> shapeJob(const Request& r, const ShapeOptions& options) {
  if (auto valid = validateRequest(r); !valid) return Error{valid.error()};
  JobShape shape;
  // A partition that forces sharing shares every node whatever the job
  // asks, so --exclusive there gets only what it requests.
  bool exclusive = r.exclusive && !options.partitionForcesSharing;
  shape.wholeNode = exclusive || options.partitionExclusive ||
                    ((r.coreSpec > 0 || r.threadSpec > 0) && options.allowSpecResourcesUsage);
  shape.socketsPerNode = r.socketsPerNode;
  shape.ntasksPerNode = r.ntasksPerNode;

  int minNodes = r.minNodes;
  int ntasks = r.ntasks;
  // --gpus with a per-node or per-task count fixes the node or task count.
  if (r.gpus > 0 && r.gpusPerNode > 0) minNodes = std::max(minNodes, r.gpus / r.gpusPerNode);
  if (r.gpus > 0 && r.gpusPerTask > 0) ntasks = std::max(ntasks, r.gpus / r.gpusPerTask);
  if (r.ntasksPerNode > 0) {
    ntasks = std::max(ntasks, minNodes * r.ntasksPerNode);
    minNodes = std::max(minNodes, ceilDiv(ntasks, r.ntasksPerNode));
  }
  ntasks = std::max(ntasks, minNodes);  // every node runs at least one task

  int maxNodes;
  if (r.maxNodes > 0) maxNodes = std::max(r.maxNodes, minNodes);
  else if (r.minNodes > 1 || r.ntasksPerNode > 0 || (r.gpus > 0 && r.gpusPerNode > 0)) maxNodes = minNodes;
  else maxNodes = INT_MAX;  // no -N: as many as the tasks and GPUs need
  if (options.partitionMaxNodes >= 0) {
    if (minNodes > options.partitionMaxNodes)
      return Error{"-N/--nodes: " + std::to_string(minNodes) + " nodes exceed the partition's MaxNodes=" +
                   std::to_string(options.partitionMaxNodes)};
    maxNodes = std::min(maxNodes, options.partitionMaxNodes);
  }
  shape.minNodes = minNodes;
  shape.maxNodes = maxNodes;
  shape.ntasks = ntasks;

  // A job stays on one node when it cannot be spread: at most one node, or,
  // without a node range (-N a-b, b > 1) that invites spreading, a single
  // task or all tasks on one node by --ntasks-per-node.
  bool nodeRange = r.maxNodes > 1;
  bool tasksFitOneNode = (ntasks == 1 && r.gpus == 0) || (r.ntasksPerNode > 0 && r.ntasksPerNode >= ntasks);
  bool oneNode = maxNodes == 1 || (!nodeRange && minNodes == 1 && tasksFitOneNode);
  shape.canSpread = !oneNode;
  // On one node every task is there; otherwise only --ntasks-per-node says.
  shape.tasksPerNodeFixed = oneNode || r.ntasksPerNode > 0;

  // Typed requests first, so an untyped one of the same name takes what is left.
  std::vector<GresRequest> gres = r.gresPerNode;
  std::stable_sort(gres.begin(), gres.end(),
                   [](const GresRequest& a, const GresRequest& b) { return !a.type.empty() && b.type.empty(); });
  for (const auto& g : gres) {
    int count = static_cast<int>(std::min<uint64_t>(g.count, INT_MAX));
    shape.demands.push_back({g.name, g.type, count, DemandKind::PerNode, g.count});
  }
  if (r.gpusPerNode > 0) shape.demands.push_back({"gpu", r.gpuType, r.gpusPerNode, DemandKind::PerNode, 0});
  if (r.gpusPerTask > 0 && gpusPerNodeForm(r) == 0)
    shape.demands.push_back({"gpu", r.gpuType, r.gpusPerTask, DemandKind::PerTask, 0});
  if (r.gpusPerSocket > 0) shape.demands.push_back({"gpu", r.gpuType, r.gpusPerSocket, DemandKind::PerSocket, 0});
  if (r.gpus > 0 && r.gpusPerNode == 0 && r.gpusPerTask == 0) {
    shape.demands.push_back({"gpu", r.gpuType, r.gpus, DemandKind::PerJob, 0});
    shape.gpusPerJob = r.gpus;
  }
  return shape;
}

}  // namespace gantry::select
