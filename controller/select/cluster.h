// Pure GPU/CPU/memory selection over node snapshots.
//
// The Cluster owns the selectable view of every node (hardware as
// registered, what is allocated, what is drained) and answers placement
// questions with no I/O, no clock and no threads. Selection is read-only;
// the caller commits what it decides to start and releases it at the end.
//
// Threading: not thread-safe. One owner (the controller core's strand) calls
// every method; select() uses a small internal cache, so even const calls
// must not run concurrently.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/gres/device.h"
#include "controller/select/request.h"

namespace gantry::select {

using DeviceInfo = gres::DeviceInfo;
using ChunkLayout = gres::ChunkLayout;
using CountedGres = gres::CountedGres;

struct NodeInfo {
  std::string name;
  int sockets = 1, coresPerSocket = 1, threadsPerCore = 1;
  uint64_t realMemoryMb = 0;
  std::vector<DeviceInfo> devices;  // in device (index) order; at most 64
  std::vector<ChunkLayout> chunks;  // one per chunked Type domain
  std::vector<std::pair<std::string, uint64_t>> countGres;  // count-only GRES such as bandwidth
  // Count-only GRES with a type or no_consume ("bandwidth:lustre:no_consume:4G").
  // Both lists are honoured; countGres entries are untyped and consumable.
  std::vector<CountedGres> countedGres;
  // RestrictedCoresPerGPU: the first this many cores bound to each GPU (in
  // DeviceInfo::cores order, skipping cores an earlier GPU keeps) are kept
  // for jobs that hold that GPU or shares of it.
  int restrictedCoresPerGpu = 0;
};

// Node indexes into the Cluster. maxNodes < 0: no partition limit.
// exclusive: OverSubscribe=EXCLUSIVE, every job gets whole nodes.
// forcesSharing: OverSubscribe=FORCE with a count above 1 shares every node
// whatever the job asks, so --exclusive takes no whole node there.
// overSubscribe: how many allocations may hold one cpu (the FORCE:N count;
// 1 = none share). Memory, devices, shares and count-only GRES never are.
struct PartitionView {
  std::vector<int> nodes;
  int maxNodes = -1;
  bool exclusive = false;
  bool forcesSharing = false;
  int overSubscribe = 1;
  int shareGroup = -1;  // a stable id of the partition; see AllocationOwner
};

// Shares of one GPU held by a grant (--gres=shard:N / --gres=mps:N). The
// GPU itself is not in NodeGrant::devices: it stays shareable by others.
struct ShareGrant {
  std::string name;  // "shard" or "mps"
  int device = -1;   // device index on the node
  uint64_t count = 0;
};

struct NodeGrant {
  int node = -1;
  std::vector<int> cores;   // node-wide core ids touched by the grant
  uint64_t memoryMb = 0;    // 0 when the job asked for no memory
  std::vector<int> devices; // device indexes on the node
  std::vector<int> cpus;    // cpu ids (core * threadsPerCore + thread)
  // Count-only GRES: "name" or "name:type" with the amount granted.
  std::vector<std::pair<std::string, uint64_t>> countGres;
  std::vector<ShareGrant> shares;  // in device order
  int tasks = 0;
  bool wholeNode = false;
};

// Whose allocation it is. A node holding a userExclusive allocation takes
// no job of another user, and a userExclusive job no node running one.
// shareGroup: the partition that placed it (PartitionView::shareGroup).
// Over-subscribed cpus are shared only between allocations of one group,
// so a timesliced partition never shares a cpu with a job it does not
// rotate.
struct AllocationOwner {
  uint32_t uid = 0;
  bool userExclusive = false;  // --exclusive=user
  int shareGroup = -1;
};
// The share group of an allocation whose CPUs nobody may share
// (Request::mayShare false).
inline constexpr int kUnshared = -2;

struct Allocation {
  std::vector<NodeGrant> nodes;
  AllocationOwner owner;  // set by select from the request
};

enum class Verdict { Placed, NotNow, Never };

struct Outcome {
  Verdict verdict = Verdict::NotNow;
  Allocation allocation;
  std::string reason;  // for NotNow/Never: "Resources", "Requested node configuration is not available", ...
};

// DebugFlags=SelectType: why each node was turned down.
struct Rejection {
  int node = -1;
  std::string rule;
};
using SelectTrace = std::vector<Rejection>;

// CPUs, memory and count-only GRES taken out of service one by one (per-device
// drains, controller/drain). No new allocation gets them; allocations that
// hold them keep them until they end, and releasing those does not make the
// drained part free. Replaces what was set before; replaceNode keeps it
// (cpus past the node's new count and counts of GRES it no longer has drop).
struct ResourceDrains {
  std::vector<int> cpus;  // cpu ids (core * threadsPerCore + thread); every thread of a drained core is listed
  uint64_t memoryMb = 0;
  std::vector<std::pair<std::string, uint64_t>> counts;  // "name" or "name:type" -> drained amount
};

// Cluster-wide selection settings from gantry.conf.
struct ClusterOptions {
  bool allocateByCpu = false;            // SelectTypeParameters=CR_CPU; default CR_Core
  bool allowSpecResourcesUsage = false;  // AllowSpecResourcesUsage=YES
  // SelectTypeParameters=...,MULTIPLE_SHARING_GRES_PJ: a shard/mps request
  // may take shares from several GPUs of a node; by default one GPU per node.
  bool multipleSharingGresPj = false;
  // SelectType=select/linear: every job takes all cpus of each node it gets
  // (memory and devices only as asked).
  bool wholeNodeCpus = false;
};

// A job holding resources now, and when it is expected to end (seconds on
// any clock the caller likes; selection never reads a clock).
struct RunningJob {
  Allocation allocation;
  int64_t endTime = 0;
};

// Where and when a job would start if nothing else were submitted.
struct StartEstimate {
  Outcome outcome;        // Placed with the allocation, or why not
  int64_t startTime = 0;  // `now`, or the end time of the job whose end makes room
};

inline constexpr const char* kReasonResources = "Resources";

class Cluster {
 public:
  explicit Cluster(ClusterOptions options = {});
  ~Cluster();
  Cluster(Cluster&&) noexcept;
  Cluster& operator=(Cluster&&) noexcept;

  // Returns the node index. A node breaking the model's limits (more than 64
  // devices) is kept but never selected; validateNode says why.
  int addNode(NodeInfo info);
  // Re-registration: the hardware may change; allocations on cpus, devices
  // and memory that still exist stay allocated.
  void replaceNode(int node, NodeInfo info);
  void setAvailable(int node, bool available);          // DOWN/DRAIN nodes take no new work
  void setDeviceDrained(int node, int device, bool drained);  // running users keep it
  // A whole-node grant (--exclusive, OverSubscribe=EXCLUSIVE) on a node with
  // drains gets the node less what is drained.
  void setResourceDrains(int node, ResourceDrains drains);
  static Status validateNode(const NodeInfo& info);

  // Where the request would run now. NotNow ("Resources") when nothing fits
  // at present; Never only for requests that are malformed in themselves or
  // ask for more nodes than the partition's MaxNodes (ask canEverRun whether
  // the hardware could ever serve it). No side effects.
  Outcome select(const Request& request, const PartitionView& partition,
                 SelectTrace* trace = nullptr) const;
  // The same search on the partition's nodes as if all were up, idle and
  // undrained: Placed (with that hypothetical allocation) or Never.
  Outcome canEverRun(const Request& request, const PartitionView& partition,
                     SelectTrace* trace = nullptr) const;
  // canEverRun, but each node keeps its drained devices, cpus, memory and
  // counts out of service (it is still taken as up and idle otherwise): Never
  // when only resources now drained could serve the request. The controller asks it when
  // canEverRun says Placed but select() does not place, to tell a job that waits
  // for a drain to be resumed.
  Outcome canEverRunDrained(const Request& request, const PartitionView& partition,
                            SelectTrace* trace = nullptr) const;

  // A step inside a job's allocation. Without GRES options it gets all of the
  // job's devices on its nodes; otherwise the subset it asks for. An
  // --exclusive step gets devices and cpus no running step holds and waits
  // (NotNow) for them; leave the batch step out of runningSteps. Steps are not chunk-constrained. Typed and
  // untyped requests must match the job's (Never otherwise).
  Outcome selectStep(const Request& jobRequest, const Allocation& job,
                     const std::vector<Allocation>& runningSteps, const Request& step) const;

  // Marks a grant's cpus (or, when it lists none, every thread of its
  // cores), devices, memory and count GRES as used; wholeNode grants keep
  // every other job off the node until released.
  void commit(const Allocation& allocation);
  // For --test-only: tries now, then after each running job ends in order of
  // endTime, until the request fits. The cluster is left exactly as found.
  // `running` must hold the committed allocations.
  StartEstimate estimateStart(const Request& request, const PartitionView& partition,
                              std::vector<RunningJob> running, int64_t now);
  // The same with `runningByEnd` already in endTime order, copied nowhere:
  // backfill estimates many jobs in one pass against one list. Gives up
  // (NotNow) once the next job to end ends after `horizon`.
  StartEstimate estimateStartSorted(const Request& request, const PartitionView& partition,
                                    const std::vector<RunningJob>& runningByEnd, int64_t now,
                                    int64_t horizon = std::numeric_limits<int64_t>::max());
  void release(const Allocation& allocation);

  const NodeInfo& node(int index) const;
  int nodeCount() const;
  // CPUs of the node at least one allocation holds (each counted once, also
  // where a partition over-subscribes them), for CPUAlloc.
  int heldCpus(int node) const;
  // Devices currently allocated on a node, for GresUsed.
  gres::DeviceMask usedDevices(int node) const;
  gres::DeviceMask drainedDevices(int node) const;
  // Shares of `name` held on each device of the node (indexed by device).
  std::vector<uint64_t> sharesUsed(int node, const std::string& name) const;
  // The node's GresUsed value, as sinfo -O GresUsed and scontrol show node
  // -d print it: "gpu:1(IDX:0),shard:8(-/5,5/5,3/5,0/5)", then count-only
  // GRES with the amount in use ("bandwidth:lustre:1G").
  std::string gresUsed(int node) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "gpu:a100:2(IDX:0-1)" for the devices of one node grant (empty when none),
// followed by shares with their devices ("shard:8(IDX:1=5,2=3)", for
// scontrol show job -d) and count-only GRES as "bandwidth:2".
std::string formatGrantGres(const NodeInfo& node, const NodeGrant& grant);

// What the step launcher needs from a grant's shares. SLURM_SHARDS_ON_NODE:
// the grant's shares of `name` on the node, all devices together.
uint64_t sharesOnNode(const NodeGrant& grant, const std::string& name);
// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: the grant's mps shares x 100 / the mps
// count of the device they came from, rounded down (the first device when
// MULTIPLE_SHARING_GRES_PJ spread them); 0 without mps shares.
int mpsActiveThreadPercentage(const NodeInfo& node, const NodeGrant& grant);
// The node's GresChunks= value, empty when the node has no chunks.
std::string formatNodeGresChunks(const NodeInfo& node);
// RestrictedCoresPerGPU: the cores each device keeps, by device index
// (empty for a device that keeps none), as NodeInfo::restrictedCoresPerGpu
// says.
std::vector<std::vector<int>> restrictedCoresByDevice(const NodeInfo& node);

}  // namespace gantry::select
