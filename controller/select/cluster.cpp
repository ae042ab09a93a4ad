#include "controller/select/cluster.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>

#include "common/gres/format.h"
#include "common/gres/index_list.h"
#include "common/gres/shared.h"
#include "controller/select/job_shape.h"
#include "controller/select/node_lists.h"
#include "controller/select/node_state.h"
#include "controller/select/placer.h"
#include "controller/select/resource_drains.h"
#include "controller/select/rules.h"
#include "controller/select/step_select.h"

namespace gantry::select {

namespace {

constexpr int kBuckets = gres::kMaxDevicesPerNode + 1;
constexpr size_t kPartitionCacheSize = 8;
constexpr long kLinkedPassNodeBudget = 256;

using Words = std::vector<uint64_t>;

bool testBit(const Words& words, int index) { return (words[index / 64] >> (index % 64)) & 1; }

void setBit(Words& words, int index, bool value) {
  uint64_t bit = uint64_t{1} << (index % 64);
  if (value) words[index / 64] |= bit;
  else words[index / 64] &= ~bit;
}

// The fewest free GPUs a node must have to take any part of the job; nodes
// below it are not even looked at (they would be rejected anyway).
int gpuLowerBound(const JobShape& shape) {
  if (shape.wholeNode) return 0;
  int64_t bound = 0;  // wide: several demands of INT_MAX each must not wrap
  for (const auto& demand : shape.demands) {
    if (demand.name != "gpu") continue;
    switch (demand.kind) {
      case DemandKind::PerNode:
      case DemandKind::PerTask: bound += demand.count; break;
      case DemandKind::PerSocket: bound += int64_t{demand.count} * shape.socketsPerNode; break;
      case DemandKind::PerJob: bound += 1; break;
    }
  }
  return static_cast<int>(std::min<int64_t>(bound, kBuckets));
}

// Whether the default link policy should first try for linked sets: only
// when some node might get more than one GPU of one request.
bool wantsLinkedPass(const Request& request, const JobShape& shape) {
  if (request.links != LinkPolicy::Prefer || shape.wholeNode) return false;
  for (const auto& demand : shape.demands) {
    if (demand.name != "gpu") continue;
    switch (demand.kind) {
      case DemandKind::PerNode: if (demand.count > 1) return true; break;
      case DemandKind::PerTask: if (demand.count > 1 || shape.ntasks > 1) return true; break;
      // Enforcing links would spread --gpus over more nodes, and a per-socket
      // spread is the point of --gpus-per-socket: neither is worth a link.
      case DemandKind::PerJob:
      case DemandKind::PerSocket: break;
    }
  }
  return false;
}

// The cpu ids a grant holds. Grants rebuilt from records that kept only core
// ids hold every thread of those cores.
std::vector<int> cpusHeld(const NodeGrant& grant, const NodeInfo& info) {
  if (!grant.cpus.empty() || grant.cores.empty()) return grant.cpus;
  std::vector<int> cpus;
  int threads = std::max(info.threadsPerCore, 1);
  for (int core : grant.cores)
    for (int t = 0; t < threads; ++t) cpus.push_back(core * threads + t);
  return cpus;
}

// The most shares one shared demand of the job asks of a node; nodes with
// less room are passed over without planning.
uint64_t largestShareDemand(const JobShape& shape) {
  uint64_t largest = 0;
  for (const auto& demand : shape.demands)
    if (gres::isSharedGresName(demand.name)) largest = std::max(largest, demand.amount);
  return largest;
}

// Adds (sign +1) or removes (-1) a grant's shares and count-only GRES.
void accountShares(const NodeState& node, NodeUsage& usage, const NodeGrant& grant, int sign) {
  for (const auto& share : grant.shares) {
    int p = node.poolIndex(share.name);
    if (p < 0 || share.device < 0 || share.device >= static_cast<int>(usage.sharesUsed[p].size())) continue;
    uint64_t& used = usage.sharesUsed[p][share.device];
    used = sign > 0 ? used + share.count : used - std::min(used, share.count);
  }
  node.refreshSharedDevices(usage);
  for (const auto& [key, amount] : grant.countGres)
    for (size_t i = 0; i < node.counted.size(); ++i) {
      if (node.counted[i].noConsume || gres::countedGresKey(node.counted[i]) != key) continue;
      uint64_t& used = usage.usedCounts[i];
      used = sign > 0 ? used + amount : used - std::min(used, amount);
      break;
    }
}

// Usage carried over a re-registration: count-only GRES by key, shares by
// name and device, as far as they still exist.
void carryCountsAndShares(const NodeState& old, const NodeUsage& from, const NodeState& fresh, NodeUsage& to) {
  to.usedCounts.assign(fresh.counted.size(), 0);
  for (size_t i = 0; i < fresh.counted.size(); ++i)
    for (size_t j = 0; j < old.counted.size(); ++j)
      if (gres::countedGresKey(old.counted[j]) == gres::countedGresKey(fresh.counted[i]))
        to.usedCounts[i] = from.usedCounts[j];
  to.sharesUsed = fresh.idle.sharesUsed;
  for (size_t p = 0; p < fresh.pools.size(); ++p) {
    int q = old.poolIndex(fresh.pools[p].name);
    if (q < 0) continue;
    for (size_t d = 0; d < to.sharesUsed[p].size() && d < from.sharesUsed[q].size(); ++d)
      to.sharesUsed[p][d] = from.sharesUsed[q][d];
  }
  fresh.refreshSharedDevices(to);
}

// Marks a cpu whose holders come from several share groups (only a
// damaged record brings that about): it is shared with nobody more.
constexpr int kMixedGroups = INT_MIN;

// One more (or one fewer) allocation holds the cpu; it is free while none
// do. Holders of one cpu all come from one share group: sharing never
// crosses groups.
void holdCpu(NodeUsage& usage, int cpu, int group) {
  uint16_t& holders = usage.cpuHolders[cpu];
  int& held = usage.cpuGroup[cpu];
  held = holders == 0 ? group : (held == group ? held : kMixedGroups);
  if (holders < UINT16_MAX) ++holders;
  usage.freeCpus.reset(cpu);
}

void unholdCpu(NodeUsage& usage, int cpu) {
  uint16_t& holders = usage.cpuHolders[cpu];
  if (holders > 0) --holders;
  if (holders == 0) usage.freeCpus.set(cpu);
}

// Whether a job of share group `group` may take the cpu at over-subscription
// `level`: free, or held by fewer than `level` allocations of its own group.
bool sharableAt(const NodeUsage& usage, int cpu, int level, int group) {
  uint16_t holders = usage.cpuHolders[cpu];
  return holders == 0 || (holders < level && group != kUnshared && usage.cpuGroup[cpu] == group);
}

// How many cpus of the node the job may take at `level`: a tight count, so
// a scan passes over saturated nodes without building a set.
int countSharable(const NodeUsage& usage, int level, int group) {
  int count = 0;
  int size = static_cast<int>(usage.cpuHolders.size());
  for (int c = 0; c < size; ++c) count += sharableAt(usage, c, level, group) ? 1 : 0;
  return count;
}

// The cpus a job may take at `level`, written into `out` so a scan reuses
// one set.
void sharableCpus(const NodeUsage& usage, int level, int group, CpuSet& out) {
  int size = static_cast<int>(usage.cpuHolders.size());
  out.resize(size, false);
  for (int c = 0; c < size; ++c)
    if (sharableAt(usage, c, level, group)) out.set(c);
    else out.reset(c);
}

bool splitsGpusFreely(const JobShape& shape) {
  for (const auto& demand : shape.demands) {
    if (demand.name != "gpu") continue;
    if (demand.kind == DemandKind::PerJob) return true;
    if (demand.kind == DemandKind::PerTask && !shape.tasksPerNodeFixed && shape.ntasks > 1) return true;
  }
  return false;
}

}  // namespace

struct Cluster::Impl {
  ClusterOptions options;
  std::vector<std::unique_ptr<NodeState>> nodes;
  std::vector<gres::DeviceMask> gpuMask;  // per node: devices named gpu
  std::vector<int> bucketOf;               // per node: free undrained GPUs
  std::vector<int> freeCpus;               // per node, kept flat so a scan skips full nodes cheaply
  std::vector<uint64_t> shareRoom;         // per node: the largest share request it could take now
  std::vector<int> leastHolders;           // per node: the fewest allocations holding any one cpu
  std::vector<Words> buckets = std::vector<Words>(kBuckets);
  Words selectable;  // available, usable, not held whole
  int linkedNodes = 0;  // nodes with any link information

  struct CachedPartition {
    std::vector<int> nodes;
    Words members;
  };
  mutable std::vector<CachedPartition> partitionCache;
  mutable size_t nextCacheSlot = 0;
  mutable CpuSet levelCpus;  // scratch: the cpus open at an over-subscription level

  void growWords(int nodeCount) {
    size_t words = (nodeCount + 63) / 64;
    for (auto& bucket : buckets) bucket.resize(words, 0);
    selectable.resize(words, 0);
    for (auto& cached : partitionCache) cached.members.resize(words, 0);
  }

  // Call after any change to a node; a node with resource drains first
  // refreshes the view new work sees.
  void reindex(int index) {
    refreshOpenUsage(*nodes[index]);
    const NodeState& node = *nodes[index];
    const NodeUsage& open = node.schedulable();
    int freeGpus =
        std::popcount(gpuMask[index] & ~node.usage.usedDevices & ~node.usage.sharedDevices & ~node.drained);
    if (bucketOf[index] >= 0) setBit(buckets[bucketOf[index]], index, false);
    bucketOf[index] = freeGpus;
    setBit(buckets[freeGpus], index, true);
    setBit(selectable, index, node.available && node.usable && !node.usage.wholeNode);
    freeCpus[index] = open.freeCpus.count();
    const auto& holders = open.cpuHolders;
    leastHolders[index] = holders.empty() ? INT_MAX : *std::min_element(holders.begin(), holders.end());
    shareRoom[index] = node.shareRoom(open, node.drained, options.multipleSharingGresPj);
  }

  const Words& membersOf(const PartitionView& partition) const {
    for (const auto& cached : partitionCache)
      if (cached.nodes == partition.nodes) return cached.members;
    CachedPartition entry{partition.nodes, Words(selectable.size(), 0)};
    for (int n : partition.nodes)
      if (n >= 0 && n < static_cast<int>(nodes.size())) setBit(entry.members, n, true);
    if (partitionCache.size() < kPartitionCacheSize) {
      partitionCache.push_back(std::move(entry));
      return partitionCache.back().members;
    }
    size_t slot = nextCacheSlot++ % kPartitionCacheSize;
    partitionCache[slot] = std::move(entry);
    return partitionCache[slot].members;
  }

  Outcome shapeFailure(const std::string& error) const {
    return Outcome{Verdict::Never, {}, error};
  }

  Result<JobShape> shapeFor(const Request& request, const PartitionView& partition) const {
    return shapeJob(request, ShapeOptions{.partitionMaxNodes = partition.maxNodes,
                                          .partitionExclusive = partition.exclusive,
                                          .partitionForcesSharing = partition.forcesSharing,
                                          .allowSpecResourcesUsage = options.allowSpecResourcesUsage});
  }

  PlacerOptions placerOptions(SelectTrace* trace) const {
    return PlacerOptions{.byCpu = options.allocateByCpu,
                         .allowSpec = options.allowSpecResourcesUsage,
                         .chunkRules = true,
                         .spreadShares = options.multipleSharingGresPj,
                         .wholeNodeCpus = options.wholeNodeCpus,
                         .trace = trace};
  }

  // The cheap tests before a node is offered, then the offer itself.
  // `minCpus` and `minShares` turn most nodes down from the flat per-node
  // counts before the node itself is read (a cache miss each on a large
  // cluster); such a node counts as Skipped, not offered.
  struct ScanLimits {
    const Words& members;
    int level;
    int minCpus;
    uint64_t minShares;
  };
  enum class Offer { Skipped, Rejected, Taken };
  Offer offerOne(Placer& placer, int n, const PartitionView& partition, const ScanLimits& limits) const {
    if (n < 0 || n >= static_cast<int>(nodes.size())) {
      placer.rejectNode(n, rules::kNotInCluster);
      return Offer::Skipped;
    }
    if (!testBit(limits.members, n)) {
      placer.rejectNode(n, rules::kNotPartitionMember);
      return Offer::Skipped;
    }
    if (!testBit(selectable, n)) return Offer::Skipped;  // traceUnselectable said why
    if (shareRoom[n] < limits.minShares) return Offer::Skipped;
    if (limits.level > 1 ? leastHolders[n] >= limits.level : freeCpus[n] < limits.minCpus) return Offer::Skipped;
    const NodeState& node = *nodes[n];
    const NodeUsage& open = node.schedulable();
    const CpuSet* cpus = nullptr;
    if (limits.level > 1) {
      if (countSharable(open, limits.level, partition.shareGroup) < limits.minCpus) return Offer::Skipped;
      sharableCpus(open, limits.level, partition.shareGroup, levelCpus);
      cpus = &levelCpus;
    }
    int before = placer.chosen();
    placer.offer(n, node, open, node.drained, ~gres::DeviceMask{0}, cpus);
    return placer.chosen() > before ? Offer::Taken : Offer::Rejected;
  }

  // Offers nodes with the fewest free GPUs that could serve first (best
  // fit), so whole idle GPU nodes stay free for large jobs and CPU-only jobs
  // go to nodes without free GPUs. Stops after `nodeBudget` offers.
  // Level 1 offers only cpus nobody holds; level k > 1 (over-subscription)
  // offers cpus held by fewer than k allocations, computed per node.
  // -w/-x (node_lists.h): required nodes go first and all must take part;
  // candidates replace the search over the partition; excluded nodes are
  // skipped.
  Outcome scan(const Request& request, const JobShape& shape, const PartitionView& partition,
               SelectTrace* trace, long nodeBudget, int level) const {
    Placer placer(request, shape, placerOptions(trace));
    const NodeLists& lists = request.nodeLists;
    // Every node of the job needs at least this many free cpus.
    ScanLimits limits{.members = membersOf(partition),
                      .level = level,
                      .minCpus = trace || shape.wholeNode ? 0 : std::max(request.cpusPerTask, 1),
                      .minShares = trace || shape.wholeNode ? 0 : largestShareDemand(shape)};
    for (int n : lists.required) {
      if (offerOne(placer, n, partition, limits) != Offer::Taken) return notNow();
      if (placer.complete()) return placed(placer);
    }
    if (!lists.candidates.empty()) {
      for (int n : lists.candidates) {
        if (!offeredInSearch(lists, n)) continue;
        if (offerOne(placer, n, partition, limits) == Offer::Taken && placer.complete()) return placed(placer);
        if (placer.full()) break;
      }
      return notNow();
    }
    long offered = 0;
    int first = trace ? 0 : gpuLowerBound(shape);
    // A GPU count free to split over nodes packs tightest onto the nodes
    // with the most free GPUs; everything else goes best fit.
    bool largestFirst = splitsGpusFreely(shape);
    for (int step = 0; step < kBuckets - first; ++step) {
      int b = largestFirst ? kBuckets - 1 - step : first + step;
      const Words& bucket = buckets[b];
      for (size_t w = 0; w < bucket.size(); ++w) {
        for (uint64_t bits = bucket[w] & limits.members[w] & selectable[w]; bits; bits &= bits - 1) {
          int n = static_cast<int>(w * 64) + std::countr_zero(bits);
          if (!lists.empty() && !offeredInSearch(lists, n)) {
            if (isExcluded(lists, n)) placer.rejectNode(n, rules::kExcluded);
            continue;
          }
          Offer offer = offerOne(placer, n, partition, limits);
          if (offer == Offer::Skipped) continue;
          if (offer == Offer::Taken && placer.complete()) return placed(placer);
          if (placer.full() || ++offered >= nodeBudget) return notNow();
        }
      }
    }
    return notNow();
  }

  void traceUnselectable(const PartitionView& partition, SelectTrace* trace) const {
    for (int n : partition.nodes)
      if (n < 0 || n >= static_cast<int>(nodes.size())) trace->push_back({n, rules::kNotInCluster});
      else if (!nodes[n]->available) trace->push_back({n, rules::kUnavailable});
      else if (!nodes[n]->usable) trace->push_back({n, rules::kUnusable});
      else if (nodes[n]->usage.wholeNode) trace->push_back({n, rules::kHeldWhole});
  }

  Outcome selectNow(const Request& request, const PartitionView& partition, SelectTrace* trace) const {
    auto shape = shapeFor(request, partition);
    if (!shape) return shapeFailure(shape.error());
    if (trace) traceUnselectable(partition, trace);
    Outcome outcome = selectAtLevel(request, *shape, partition, trace, 1);
    // OverSubscribe=FORCE:N: only when nothing idle fits, cpus held by fewer
    // than 2, then 3, ... N allocations, so sharers grow evenly. A whole-node
    // job needs a node nobody holds anything on, so sharing cannot help it.
    // The trace keeps the reasons of the idle pass.
    for (int level = 2; level <= partition.overSubscribe && !shape->wholeNode && request.mayShare; ++level) {
      if (outcome.verdict != Verdict::NotNow) break;
      outcome = selectAtLevel(request, *shape, partition, nullptr, level);
    }
    return outcome;
  }

  Outcome selectAtLevel(const Request& request, const JobShape& shape, const PartitionView& partition,
                        SelectTrace* trace, int level) const {
    // The default link policy looks for a linked set on any node before it
    // settles for an unlinked one; the first pass is bounded so a cluster
    // with no free linked sets pays a fixed price.
    if (linkedNodes > 0 && wantsLinkedPass(request, shape)) {
      Request linked = request;
      linked.links = LinkPolicy::Enforce;
      Outcome outcome = scan(linked, shape, partition, nullptr, kLinkedPassNodeBudget, level);
      if (outcome.verdict == Verdict::Placed) return outcome;
    }
    return scan(request, shape, partition, trace, LONG_MAX, level);
  }

  // Every node of the partition as if up and idle; with `keepDrains` its
  // drained devices, cpus, memory and counts stay out of service.
  Outcome selectIdle(const Request& request, const PartitionView& partition, SelectTrace* trace,
                     bool keepDrains) const {
    auto shape = shapeFor(request, partition);
    if (!shape) return shapeFailure(shape.error());
    if (!memoryFitsSomeNode(request, partition)) return Outcome{Verdict::Never, {}, kReasonMemory};
    Placer placer(request, *shape, placerOptions(trace));
    const NodeLists& lists = request.nodeLists;
    const Words& members = membersOf(partition);
    auto offerIdle = [&](int n) {
      const NodeState& node = *nodes[n];
      int before = placer.chosen();
      if (keepDrains) placer.offer(n, node, node.schedulableIdle(), node.drained);
      else placer.offer(n, node, node.idle, 0);
      return placer.chosen() > before;
    };
    std::vector<char> seen(nodes.size(), 0);
    // -w nodes first: one that even idle cannot take its part (or that is
    // not in the partition) means the job can never run.
    for (int n : lists.required) {
      if (n < 0 || n >= static_cast<int>(nodes.size()) || !testBit(members, n)) {
        placer.rejectNode(n, n < 0 || n >= static_cast<int>(nodes.size()) ? rules::kNotInCluster
                                                                            : rules::kNotPartitionMember);
        return Outcome{Verdict::Never, {}, kReasonNeverAvailable};
      }
      seen[n] = 1;
      if (!offerIdle(n)) return Outcome{Verdict::Never, {}, kReasonNeverAvailable};
      if (placer.complete()) return placed(placer);
    }
    const std::vector<int>& pool = lists.candidates.empty() ? partition.nodes : lists.candidates;
    for (int n : pool) {
      if (n < 0 || n >= static_cast<int>(nodes.size())) {
        if (trace) trace->push_back({n, rules::kNotInCluster});
        continue;
      }
      if (seen[n]) continue;
      seen[n] = 1;
      if (!testBit(members, n)) {
        placer.rejectNode(n, rules::kNotPartitionMember);
        continue;
      }
      if (!offeredInSearch(lists, n)) {
        placer.rejectNode(n, rules::kExcluded);
        continue;
      }
      if (offerIdle(n) && placer.complete()) return placed(placer);
      if (placer.full()) break;
    }
    return Outcome{Verdict::Never, {}, kReasonNeverAvailable};
  }

  // Whether any node of the partition has the memory one node of the job
  // needs at the least, so a request for more gets Slurm's memory wording.
  bool memoryFitsSomeNode(const Request& request, const PartitionView& partition) const {
    std::optional<uint64_t> least = leastMemoryPerNode(request);
    if (!least) return false;
    for (int n : partition.nodes)
      if (n >= 0 && n < static_cast<int>(nodes.size()) && nodes[n]->info.realMemoryMb >= *least) return true;
    return partition.nodes.empty();
  }

  static Outcome placed(Placer& placer) { return Outcome{Verdict::Placed, placer.takeAllocation(), ""}; }
  static Outcome notNow() { return Outcome{Verdict::NotNow, {}, kReasonResources}; }
};

Cluster::Cluster(ClusterOptions options) : impl_(std::make_unique<Impl>()) { impl_->options = options; }
Cluster::~Cluster() = default;
Cluster::Cluster(Cluster&&) noexcept = default;
Cluster& Cluster::operator=(Cluster&&) noexcept = default;

Status Cluster::validateNode(const NodeInfo& info) {
  if (info.devices.size() > static_cast<size_t>(gres::kMaxDevicesPerNode))
    return Error{"node " + info.name + ": " + std::to_string(info.devices.size()) +
                 " devices, more than the 64 a node may have"};
  if (info.sockets > 64) return Error{"node " + info.name + ": more than 64 sockets"};
  return okStatus();
}

int Cluster::addNode(NodeInfo info) {
  int index = nodeCount();
  impl_->nodes.push_back(std::make_unique<NodeState>(std::move(info)));
  impl_->gpuMask.push_back(impl_->nodes.back()->devicesNamed("gpu", ""));
  impl_->bucketOf.push_back(-1);
  impl_->freeCpus.push_back(0);
  impl_->shareRoom.push_back(0);
  impl_->leastHolders.push_back(0);
  if (impl_->nodes.back()->links.hasLinks()) ++impl_->linkedNodes;
  impl_->growWords(nodeCount());
  impl_->partitionCache.clear();  // cached partitions may name the new index
  impl_->reindex(index);
  return index;
}

void Cluster::replaceNode(int index, NodeInfo info) {
  if (index < 0 || index >= nodeCount()) return;
  auto fresh = std::make_unique<NodeState>(std::move(info));
  const NodeState& old = *impl_->nodes[index];
  impl_->linkedNodes += static_cast<int>(fresh->links.hasLinks()) - static_cast<int>(old.links.hasLinks());
  fresh->available = old.available;
  fresh->drained = old.drained & fresh->allDevices;
  NodeUsage usage = old.usage;
  usage.usedDevices &= fresh->allDevices;
  usage.freeCpus.resize(fresh->cpuCount, true);
  usage.cpuHolders.resize(fresh->cpuCount, 0);
  usage.cpuGroup.resize(fresh->cpuCount, -1);
  carryCountsAndShares(old, old.usage, *fresh, usage);
  fresh->usage = std::move(usage);
  setNodeResourceDrains(*fresh, old.resourceDrains);
  impl_->nodes[index] = std::move(fresh);
  impl_->gpuMask[index] = impl_->nodes[index]->devicesNamed("gpu", "");
  impl_->reindex(index);
}

void Cluster::setAvailable(int index, bool available) {
  if (index < 0 || index >= nodeCount()) return;
  impl_->nodes[index]->available = available;
  impl_->reindex(index);
}

void Cluster::setDeviceDrained(int index, int device, bool drained) {
  if (index < 0 || index >= nodeCount() || device < 0 || device >= gres::kMaxDevicesPerNode) return;
  NodeState& node = *impl_->nodes[index];
  if (drained) node.drained |= gres::bitOf(device) & node.allDevices;
  else node.drained &= ~gres::bitOf(device);
  impl_->reindex(index);
}

void Cluster::setResourceDrains(int index, ResourceDrains drains) {
  if (index < 0 || index >= nodeCount()) return;
  setNodeResourceDrains(*impl_->nodes[index], std::move(drains));
  impl_->reindex(index);
}

Outcome Cluster::select(const Request& request, const PartitionView& partition, SelectTrace* trace) const {
  Outcome outcome = impl_->selectNow(request, partition, trace);
  outcome.allocation.owner = AllocationOwner{.uid = request.uid,
                                             .userExclusive = request.exclusiveUser,
                                             .shareGroup = request.mayShare ? partition.shareGroup : kUnshared};
  return outcome;
}

Outcome Cluster::canEverRun(const Request& request, const PartitionView& partition, SelectTrace* trace) const {
  return impl_->selectIdle(request, partition, trace, false);
}

Outcome Cluster::canEverRunDrained(const Request& request, const PartitionView& partition,
                                   SelectTrace* trace) const {
  return impl_->selectIdle(request, partition, trace, true);
}

Outcome Cluster::selectStep(const Request& jobRequest, const Allocation& job,
                            const std::vector<Allocation>& runningSteps, const Request& step) const {
  return selectStepInJob(StepContext{.nodes = impl_->nodes, .options = impl_->options}, jobRequest, job,
                         runningSteps, step);
}

void Cluster::commit(const Allocation& allocation) {
  for (const auto& grant : allocation.nodes) {
    if (grant.node < 0 || grant.node >= nodeCount()) continue;
    NodeState& node = *impl_->nodes[grant.node];
    NodeUsage& usage = node.usage;
    for (int cpu : cpusHeld(grant, node.info))
      if (cpu >= 0 && cpu < usage.freeCpus.size()) holdCpu(usage, cpu, allocation.owner.shareGroup);
    usage.usedDevices |= gres::indexesToMask(grant.devices) & node.allDevices;
    usage.usedMemoryMb += grant.memoryMb;
    accountShares(node, usage, grant, +1);
    usage.grants += 1;
    UserGrants& mine = usage.grantsByUser[allocation.owner.uid];
    mine.grants += 1;
    mine.userExclusive += allocation.owner.userExclusive ? 1 : 0;
    usage.wholeNode = usage.wholeNode || grant.wholeNode;
    impl_->reindex(grant.node);
  }
}

StartEstimate Cluster::estimateStart(const Request& request, const PartitionView& partition,
                                    std::vector<RunningJob> running, int64_t now) {
  std::stable_sort(running.begin(), running.end(),
                   [](const RunningJob& a, const RunningJob& b) { return a.endTime < b.endTime; });
  return estimateStartSorted(request, partition, running, now);
}

StartEstimate Cluster::estimateStartSorted(const Request& request, const PartitionView& partition,
                                          const std::vector<RunningJob>& running, int64_t now, int64_t horizon) {
  Outcome outcome = select(request, partition);
  if (outcome.verdict != Verdict::NotNow) return StartEstimate{std::move(outcome), now};
  StartEstimate estimate{std::move(outcome), now};
  size_t released = 0;
  while (released < running.size()) {
    // Jobs ending at the same moment free their resources together.
    int64_t moment = running[released].endTime;
    if (moment > horizon) break;
    while (released < running.size() && running[released].endTime == moment)
      release(running[released++].allocation);
    Outcome later = select(request, partition);
    if (later.verdict == Verdict::Placed) {
      estimate = StartEstimate{std::move(later), std::max(moment, now)};
      break;
    }
  }
  for (size_t i = 0; i < released; ++i) commit(running[i].allocation);
  return estimate;
}

void Cluster::release(const Allocation& allocation) {
  for (const auto& grant : allocation.nodes) {
    if (grant.node < 0 || grant.node >= nodeCount()) continue;
    NodeState& node = *impl_->nodes[grant.node];
    NodeUsage& usage = node.usage;
    for (int cpu : cpusHeld(grant, node.info))
      if (cpu >= 0 && cpu < usage.freeCpus.size()) unholdCpu(usage, cpu);
    usage.usedDevices &= ~gres::indexesToMask(grant.devices);
    usage.usedMemoryMb -= std::min(usage.usedMemoryMb, grant.memoryMb);
    accountShares(node, usage, grant, -1);
    usage.grants = std::max(0, usage.grants - 1);
    if (auto mine = usage.grantsByUser.find(allocation.owner.uid); mine != usage.grantsByUser.end()) {
      mine->second.grants -= 1;
      if (allocation.owner.userExclusive) mine->second.userExclusive -= 1;
      if (mine->second.grants <= 0) usage.grantsByUser.erase(mine);
    }
    if (grant.wholeNode) usage.wholeNode = false;
    impl_->reindex(grant.node);
  }
}

const NodeInfo& Cluster::node(int index) const { return impl_->nodes.at(index)->info; }
int Cluster::nodeCount() const { return static_cast<int>(impl_->nodes.size()); }
int Cluster::heldCpus(int index) const {
  const NodeState& node = *impl_->nodes.at(index);
  return node.usage.freeCpus.size() - node.usage.freeCpus.count();
}

gres::DeviceMask Cluster::usedDevices(int index) const { return impl_->nodes.at(index)->usage.usedDevices; }
gres::DeviceMask Cluster::drainedDevices(int index) const { return impl_->nodes.at(index)->drained; }

std::vector<uint64_t> Cluster::sharesUsed(int index, const std::string& name) const {
  const NodeState& node = *impl_->nodes.at(index);
  int p = node.poolIndex(name);
  if (p < 0) return std::vector<uint64_t>(std::popcount(node.allDevices), 0);
  return node.usage.sharesUsed[p];
}

std::string Cluster::gresUsed(int index) const {
  const NodeState& node = *impl_->nodes.at(index);
  std::string out = gres::formatGresUsed(node.info.devices, node.usage.usedDevices);
  auto append = [&out](const std::string& item) {
    if (!out.empty()) out += ',';
    out += item;
  };
  for (size_t p = 0; p < node.pools.size(); ++p)
    append(gres::formatSharedUsed(node.info.devices, node.pools[p].name, node.usage.sharesUsed[p],
                                  node.usage.usedDevices, node.drained));
  for (size_t i = 0; i < node.counted.size(); ++i)
    append(gres::formatCounted(node.counted[i].name, node.counted[i].type, node.usage.usedCounts[i]));
  return out;
}

std::string formatGrantGres(const NodeInfo& node, const NodeGrant& grant) {
  std::string out = gres::formatDeviceGrant(node.devices, gres::indexesToMask(grant.devices));
  auto append = [&out](const std::string& item) {
    if (item.empty()) return;
    if (!out.empty()) out += ',';
    out += item;
  };
  std::vector<std::string> names;
  for (const auto& share : grant.shares)
    if (std::find(names.begin(), names.end(), share.name) == names.end()) names.push_back(share.name);
  for (const auto& name : names) {
    std::vector<std::pair<int, uint64_t>> perDevice;
    for (const auto& share : grant.shares)
      if (share.name == name) perDevice.emplace_back(share.device, share.count);
    append(gres::formatShareGrant(node.devices, name, perDevice));
  }
  for (const auto& [name, amount] : grant.countGres) append(name + ":" + gres::formatCount(amount));
  return out;
}

uint64_t sharesOnNode(const NodeGrant& grant, const std::string& name) {
  uint64_t total = 0;
  for (const auto& share : grant.shares)
    if (share.name == name) total += share.count;
  return total;
}

int mpsActiveThreadPercentage(const NodeInfo& node, const NodeGrant& grant) {
  for (const auto& share : grant.shares) {
    if (share.name != "mps" || share.device < 0 || share.device >= static_cast<int>(node.devices.size())) continue;
    return gres::mpsActiveThreadPercentage(share.count, gres::sharedCountOf(node.devices[share.device], "mps"));
  }
  return 0;
}

std::string formatNodeGresChunks(const NodeInfo& node) { return gres::formatGresChunks(node.devices, node.chunks); }

}  // namespace gantry::select
