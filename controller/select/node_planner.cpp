#include "controller/select/node_planner.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <optional>

#include "common/gres/index_list.h"
#include "common/gres/shared.h"
#include "common/util/checked.h"
#include "controller/select/cpu_picker.h"
#include "controller/select/device_picker.h"
#include "controller/select/rules.h"

namespace gantry::select {

namespace {

PlanResult reject(const char* rule) {
  PlanResult result;
  result.rule = rule;
  return result;
}

// Computed wide and clamped: a product beyond any node is simply too many.
int devicesWanted(const DeviceDemand& demand, const PlanInput& in) {
  auto clamp = [](int64_t n) { return static_cast<int>(std::min<int64_t>(n, INT_MAX)); };
  switch (demand.kind) {
    case DemandKind::PerNode: return demand.count;
    case DemandKind::PerTask: return clamp(int64_t{demand.count} * in.tasks);
    case DemandKind::PerSocket: return clamp(int64_t{demand.count} * in.shape.socketsPerNode);
    case DemandKind::PerJob: return in.gpusWanted;
  }
  return 0;
}

// A device that already holds shares goes first (whole GPUs stay whole for
// whole-GPU jobs), then the one with the least room (best fit), then the
// lowest index.
struct ShareCandidate {
  int device;
  uint64_t free;
  bool alreadyShared;
  bool operator<(const ShareCandidate& o) const {
    if (alreadyShared != o.alreadyShared) return alreadyShared;
    if (free != o.free) return free < o.free;
    return device < o.device;
  }
};

SocketMask socketsWithFreeCpus(const NodeState& node, const CpuSet& free) {
  SocketMask mask = 0;
  for (int c = 0; c < node.cpuCount; ++c)
    if (free.test(c)) mask |= SocketMask{1} << node.socketOfCpu(c);
  return mask;
}

SocketMask socketsOf(const NodeState& node, gres::DeviceMask devices) {
  SocketMask mask = 0;
  for (; devices; devices &= devices - 1) mask |= node.deviceSockets[std::countr_zero(devices)];
  return mask;
}

// Flags=explicit devices: a whole-node job gets only those it asks for.
gres::DeviceMask explicitDevices(const NodeState& node) {
  gres::DeviceMask mask = 0;
  for (int d = 0; d < std::popcount(node.allDevices); ++d)
    if (node.info.devices[d].explicitOnly) mask |= gres::bitOf(d);
  return mask;
}

// Whole-node: every undrained device but the Flags=explicit ones, which the
// demands take one by one as asked.
gres::DeviceMask wholeNodeDevices(const NodeState& node, gres::DeviceMask drained) {
  return node.allDevices & ~explicitDevices(node) & ~drained;
}

// One planning attempt: devices first (they decide the sockets), then cpus,
// then memory. Each step returns the rule that failed, or null.
class NodePlan {
 public:
  NodePlan(const NodeState& node, const NodeUsage& usage, gres::DeviceMask drained, const PlanInput& in,
           gres::DeviceMask allowed)
      : node_(node), usage_(usage), drained_(drained), in_(in), r_(in.request), allowed_(allowed),
        whole_(in.shape.wholeNode), freeCpus_(in.cpus ? *in.cpus : usage.freeCpus) {}

  PlanResult run() {
    if (!node_.usable) return reject(rules::kUnusable);
    if (usage_.wholeNode) return reject(rules::kHeldWhole);
    if (const char* rule = userSharingRule(usage_.grantsByUser, r_.uid, r_.exclusiveUser)) return reject(rule);
    if (whole_ && usage_.grants > 0) return reject(rules::kNotIdle);
    if (in_.tasks * r_.cpusPerTask > freeCpus_.count()) return reject(rules::kCpus);
    if (const char* rule = chooseDevices()) return reject(rule);
    if (const char* rule = chooseCpus()) return reject(rule);
    if (const char* rule = chooseMemory()) return reject(rule);
    finishGrant();
    return std::move(result_);
  }

 private:
  // Devices this job may be given: free, undrained, allowed and, under
  // enforce-binding, bound to a socket that still has free cpus.
  gres::DeviceMask eligibleDevices() const {
    gres::DeviceMask free = node_.allDevices & ~usage_.usedDevices & ~drained_ & allowed_;
    if (!r_.enforceBinding) return free;
    SocketMask cpuSockets = socketsWithFreeCpus(node_, freeCpus_);
    for (gres::DeviceMask rest = free; rest; rest &= rest - 1) {
      int d = std::countr_zero(rest);
      if (node_.deviceSockets[d] != 0 && (node_.deviceSockets[d] & cpuSockets) == 0) free &= ~gres::bitOf(d);
    }
    return free;
  }

  const char* chooseDevices() {
    gres::DeviceMask free = eligibleDevices();
    for (const auto& demand : in_.shape.demands) {
      int wanted = devicesWanted(demand, in_);
      if (wanted <= 0) continue;
      if (gres::isSharedGresName(demand.name)) {
        if (const char* rule = takeShares(demand, free)) return rule;
        continue;
      }
      gres::DeviceMask named = node_.devicesNamed(demand.name, demand.type);
      // A GPU holding shares (anyone's) is never given whole.
      gres::DeviceMask wholeFree = free & ~usage_.sharedDevices & ~sharedHere_ & ~taken_;
      const char* rule = named == 0 ? takeCountGres(demand)
                         : whole_   ? takeWholeNodeDemand(demand, wanted, named)
                                    : takeDevices(demand, wanted, named & wholeFree);
      if (rule) return rule;
    }
    if (whole_) taken_ |= wholeNodeDevices(node_, drained_) & allowed_;
    if (in_.tasks == 0 && taken_ == 0 && shares_.empty()) return rules::kNoTasks;
    return nullptr;
  }

  // What is left of count-only entry `i`: not held (a no_consume entry is
  // never held) and not drained.
  uint64_t countLeft(size_t i) const {
    const auto& counted = node_.counted[i];
    uint64_t used = counted.noConsume ? 0 : usage_.usedCounts[i];
    uint64_t drained = usage_.countsDrained.empty() ? 0 : usage_.countsDrained[i];
    uint64_t out = used > UINT64_MAX - drained ? UINT64_MAX : used + drained;
    return counted.count - std::min(counted.count, out);
  }

  // Count-only GRES: the first entry of the name (and type, when asked)
  // with enough left. A no_consume entry only needs enough in total. An
  // untyped request no single entry can serve takes what is left of each
  // type of the name in order, when that adds up.
  const char* takeCountGres(const DeviceDemand& demand) {
    bool anyOfName = false;
    uint64_t leftOfName = 0;
    for (size_t i = 0; i < node_.counted.size(); ++i) {
      const auto& counted = node_.counted[i];
      if (counted.name != demand.name || (!demand.type.empty() && counted.type != demand.type)) continue;
      anyOfName = true;
      uint64_t left = countLeft(i);
      leftOfName = left > UINT64_MAX - leftOfName ? UINT64_MAX : leftOfName + left;
      if (demand.amount > left) continue;
      counts_.emplace_back(static_cast<int>(i), demand.amount);
      return nullptr;
    }
    if (!anyOfName) return demand.kind == DemandKind::PerJob ? nullptr : rules::kNoSuchGres;
    if (!demand.type.empty() || leftOfName < demand.amount) return rules::kCountGres;
    uint64_t wanted = demand.amount;
    for (size_t i = 0; i < node_.counted.size() && wanted > 0; ++i) {
      if (node_.counted[i].name != demand.name) continue;
      uint64_t take = std::min(wanted, countLeft(i));
      if (take == 0) continue;
      counts_.emplace_back(static_cast<int>(i), take);
      wanted -= take;
    }
    return nullptr;
  }

  // Shares of the GPUs offering `demand.name` (of demand.type, when asked):
  // all from one GPU, or spread over several under MULTIPLE_SHARING_GRES_PJ
  // when no single GPU has room. Never from a GPU this job holds whole (unless
  // it holds the whole node) or holds shares of another name on.
  const char* takeShares(const DeviceDemand& demand, gres::DeviceMask eligible) {
    int p = node_.poolIndex(demand.name);
    if (p < 0) return rules::kNoSuchGres;
    gres::DeviceMask offering = node_.pools[p].devices;
    if (!demand.type.empty()) offering &= typedDevices(demand.type);
    if (offering == 0) return rules::kNoSuchGres;
    gres::DeviceMask candidates = offering & eligible & ~otherPoolHere(demand.name);
    if (!whole_) candidates &= ~taken_;
    std::vector<ShareCandidate> room;
    for (; candidates; candidates &= candidates - 1) {
      int d = std::countr_zero(candidates);
      uint64_t free = node_.freeShares(usage_, drained_, p, d) - takenHere(demand.name, d);
      if (free > 0) room.push_back({d, free, usage_.sharesUsed[p][d] > 0 || takenHere(demand.name, d) > 0});
    }
    std::sort(room.begin(), room.end());
    for (const auto& c : room)
      if (c.free >= demand.amount) return addShare(demand.name, c.device, demand.amount);
    if (!in_.spreadShares) return rules::kSharesOneGpu;
    return spreadShares(demand, std::move(room));
  }

  // MULTIPLE_SHARING_GRES_PJ with no single GPU roomy enough: the roomiest
  // GPUs first, so the shares touch as few GPUs as possible.
  const char* spreadShares(const DeviceDemand& demand, std::vector<ShareCandidate> room) {
    std::stable_sort(room.begin(), room.end(),
                     [](const ShareCandidate& a, const ShareCandidate& b) { return a.free > b.free; });
    uint64_t total = 0;
    for (const auto& c : room) total += c.free;
    if (total < demand.amount) return rules::kShares;
    uint64_t left = demand.amount;
    for (size_t i = 0; i < room.size() && left > 0; ++i) {
      uint64_t take = std::min(left, room[i].free);
      addShare(demand.name, room[i].device, take);
      left -= take;
    }
    return nullptr;
  }

  const char* addShare(const std::string& name, int device, uint64_t count) {
    shares_.push_back(ShareGrant{name, device, count});
    sharedHere_ |= gres::bitOf(device);
    return nullptr;
  }

  uint64_t takenHere(const std::string& name, int device) const {
    uint64_t total = 0;
    for (const auto& share : shares_)
      if (share.device == device && share.name == name) total += share.count;
    return total;
  }

  gres::DeviceMask otherPoolHere(const std::string& name) const {
    gres::DeviceMask mask = 0;
    for (const auto& share : shares_)
      if (share.name != name) mask |= gres::bitOf(share.device);
    return mask;
  }

  gres::DeviceMask typedDevices(const std::string& type) const {
    gres::DeviceMask mask = 0;
    for (int d = 0; d < std::popcount(node_.allDevices); ++d)
      if (node_.info.devices[d].type == type) mask |= gres::bitOf(d);
    return mask;
  }

  // Whole nodes are exempt from chunk rules and get every device anyway, so
  // only the count and, under enforce-links, the links of all of them matter.
  // Flags=explicit devices are the exception: of those, only as many as the
  // demand still needs beyond the node's other devices are given.
  const char* takeWholeNodeDemand(const DeviceDemand& demand, int wanted, gres::DeviceMask named) {
    gres::DeviceMask given = named & ~drained_ & allowed_;
    if (std::popcount(given) < wanted && demand.kind != DemandKind::PerJob) return rules::kDevices;
    const char* ignored = nullptr;
    bool chunked = chunkDomainFor(node_, demand, &ignored) != nullptr;
    if (gres::DeviceMask onlyIfAsked = given & explicitDevices(node_)) {
      gres::DeviceMask implicit = given & ~onlyIfAsked;
      int fromExplicit = std::max(0, wanted - std::popcount(implicit));
      DevicePick pick = pickExplicit(demand, fromExplicit, onlyIfAsked & ~taken_, chunked);
      if (pick.rule) return pick.rule;
      given = implicit | pick.devices;
    }
    if (r_.links == LinkPolicy::Enforce && !chunked && !node_.links.allPairwiseLinked(given))
      return rules::kLinksWholeNode;
    taken_ |= given;
    if (demand.kind == DemandKind::PerJob) result_.perJobGpus = std::min(wanted, std::popcount(given));
    return nullptr;
  }

  // `count` of a demand's Flags=explicit devices on a whole node: no chunk
  // rules (the whole-node exemption holds), and chunked devices ignore links.
  DevicePick pickExplicit(const DeviceDemand& demand, int count, gres::DeviceMask available, bool chunked) const {
    if (count == 0) return DevicePick{};
    DevicePickInput pickInput{.demand = demand,
                              .count = count,
                              .available = available,
                              .links = chunked ? LinkPolicy::Ignore : r_.links,
                              .socketsPerNode = in_.shape.socketsPerNode,
                              .chunkRules = false};
    return pickForDemand(node_, pickInput);
  }

  const char* takeDevices(const DeviceDemand& demand, int wanted, gres::DeviceMask available) {
    DevicePickInput pickInput{.demand = demand,
                              .count = wanted,
                              .available = available,
                              .inUse = usage_.usedDevices | drained_,
                              .links = r_.links,
                              .socketsPerNode = in_.shape.socketsPerNode,
                              .canSpread = in_.shape.canSpread,
                              .tasksPerNodeFixed = in_.shape.tasksPerNodeFixed,
                              .chunkRules = in_.chunkRules};
    DevicePick pick = pickForDemand(node_, pickInput);
    if (pick.rule) return pick.rule;
    taken_ |= pick.devices;
    perSocketChoice_ |= pick.sockets;
    if (demand.kind == DemandKind::PerJob) result_.perJobGpus = std::popcount(pick.devices);
    return nullptr;
  }

  const char* chooseCpus() {
    gpusHere_ = std::popcount(taken_ & node_.devicesNamed("gpu", ""));
    int64_t forGpus = int64_t{gpusHere_} * r_.cpusPerGpu;
    if (forGpus > node_.cpuCount) return rules::kCpus;
    int cpusNeeded = std::max({in_.tasks * r_.cpusPerTask, static_cast<int>(forGpus), 1});
    NodeGrant& grant = result_.grant;
    if (whole_) {
      int cores = node_.info.sockets * node_.info.coresPerSocket;
      // Specialized cores or threads are the node's last ones; the job gets the rest.
      int specCores = in_.allowSpec ? std::min(r_.coreSpec, cores) : 0;
      int specThreads = in_.allowSpec ? r_.threadSpec : 0;
      int lastCpu = std::max(0, node_.cpuCount - specCores * node_.info.threadsPerCore - specThreads);
      // The node is idle here, so the cpus not free are the drained ones:
      // the job gets the node less those.
      for (int c = 0; c < lastCpu; ++c)
        if (freeCpus_.test(c)) grant.cpus.push_back(c);
      return static_cast<int>(grant.cpus.size()) < cpusNeeded ? rules::kCpus : nullptr;
    }
    if (in_.wholeNodeCpus) {
      // select/linear: the job holds every cpu of the node but the drained
      // ones, so each must be open to it (free, or shareable at this
      // over-subscription level); drained cpus are never open.
      int inService = node_.cpuCount - usage_.cpusDrained;
      if (cpusNeeded > inService || freeCpus_.count() < inService) return rules::kCpus;
      for (int c = 0; c < node_.cpuCount; ++c)
        if (freeCpus_.test(c)) grant.cpus.push_back(c);
      return nullptr;
    }
    SocketMask deviceSockets = socketsOf(node_, taken_ | sharedHere_);
    CpuPickOptions options{.cpusNeeded = cpusNeeded,
                           .byCpu = in_.byCpu,
                           .preferred = perSocketChoice_ ? perSocketChoice_ : deviceSockets,
                           .only = r_.enforceBinding ? deviceSockets : 0,
                           .mustTouch = r_.enforceBinding ? deviceSockets : 0,
                           .tasksPerSocket = r_.ntasksPerSocket,
                           .tasks = in_.tasks,
                           .cpusPerTask = r_.cpusPerTask};
    // RestrictedCoresPerGPU: the cores kept for GPUs are open only to a job
    // holding those GPUs (whole or shares of them). No copy where none is kept.
    auto cpus = node_.hasRestricted ? pickCpus(node_, node_.openToDevices(freeCpus_, taken_ | sharedHere_), options)
                                    : pickCpus(node_, freeCpus_, options);
    if (!cpus) return r_.enforceBinding && deviceSockets ? rules::kBinding : rules::kCpus;
    grant.cpus = std::move(*cpus);
    return nullptr;
  }

  const char* chooseMemory() {
    // A product that overflows is more than any node has.
    std::optional<uint64_t> memory = 0;
    if (r_.memPerNodeMb > 0) memory = r_.memPerNodeMb;
    else if (r_.memPerCpuMb > 0) memory = checkedMul<uint64_t>(r_.memPerCpuMb, result_.grant.cpus.size());
    else if (r_.memPerGpuMb > 0) memory = checkedMul<uint64_t>(r_.memPerGpuMb, static_cast<uint64_t>(gpusHere_));
    if (!memory) return rules::kMemory;
    // Drained memory is out of service even where a job holding it leaves.
    uint64_t real = node_.info.realMemoryMb;
    uint64_t inService = real - std::min(usage_.memoryDrainedMb, real);
    if (*memory > inService - std::min(usage_.usedMemoryMb, inService)) return rules::kMemory;
    result_.grant.memoryMb = whole_ ? inService : *memory;
    return nullptr;
  }

  void finishGrant() {
    NodeGrant& grant = result_.grant;
    grant.node = -1;  // the caller knows the index
    grant.devices = gres::maskToIndexes(taken_);
    grant.tasks = in_.tasks;
    grant.wholeNode = whole_;
    int lastCore = -1;
    for (int cpu : grant.cpus) {
      int core = cpu / node_.info.threadsPerCore;
      if (core != lastCore) grant.cores.push_back(core);
      lastCore = core;
    }
    if (whole_) {
      // The node is idle, so what is left is all but the drained part; an
      // entry drained entirely is not granted.
      for (size_t i = 0; i < node_.counted.size(); ++i) {
        uint64_t left = countLeft(i);
        if (left == 0 && node_.counted[i].count > 0) continue;
        grant.countGres.emplace_back(gres::countedGresKey(node_.counted[i]), left);
      }
    } else {
      for (auto [index, amount] : counts_)
        grant.countGres.emplace_back(gres::countedGresKey(node_.counted[index]), amount);
    }
    std::sort(shares_.begin(), shares_.end(),
              [](const ShareGrant& a, const ShareGrant& b) { return a.device < b.device; });
    grant.shares = std::move(shares_);
  }

  const NodeState& node_;
  const NodeUsage& usage_;
  gres::DeviceMask drained_;
  const PlanInput& in_;
  const Request& r_;
  gres::DeviceMask allowed_;
  bool whole_;
  const CpuSet& freeCpus_;  // the cpus this job may take on the node
  PlanResult result_;
  gres::DeviceMask taken_ = 0;
  SocketMask perSocketChoice_ = 0;
  int gpusHere_ = 0;
  std::vector<std::pair<int, uint64_t>> counts_;  // count-only GRES index, amount
  std::vector<ShareGrant> shares_;
  gres::DeviceMask sharedHere_ = 0;  // devices this job takes shares on
};

}  // namespace

PlanResult planNode(const NodeState& node, const NodeUsage& usage, gres::DeviceMask drained,
                    const PlanInput& in, gres::DeviceMask allowedDevices) {
  return NodePlan(node, usage, drained, in, allowedDevices).run();
}

}  // namespace gantry::select
