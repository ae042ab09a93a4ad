// What a job or step asks of the selection, already parsed from the CLI.
//
// Node counts: -N a-b sets minNodes=a, maxNodes=b; -N1 sets both to 1.
// Without -N leave minNodes=1, maxNodes=0: the job packs onto as few nodes
// as its tasks allow and may spread further. With -N a (a > 1) and no
// maximum, maxNodes=0 means exactly a.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::select {

// --gres=name[:type]:count per node. name "shard"/"mps" asks for shares of a
// GPU (type: of the backing GPU); a count-only name asks for an amount.
struct GresRequest {
  std::string name = "gpu";
  std::string type;  // empty: any type
  uint64_t count = 0;
  bool operator==(const GresRequest&) const = default;
};

enum class LinkPolicy { Prefer, Enforce, Ignore };

// -w/--nodelist and -x/--exclude as node indexes, each list sorted and
// without duplicates (node_lists.h says how selection uses them). A
// -w list longer than the job's minimum node count is a set to choose
// from, as in Slurm: it lands in `candidates`, not in `required`.
struct NodeLists {
  std::vector<int> required;    // every one is in the allocation
  std::vector<int> candidates;  // non-empty: the allocation's nodes all come from these
  std::vector<int> excluded;    // never in the allocation
  bool empty() const { return required.empty() && candidates.empty() && excluded.empty(); }
  bool operator==(const NodeLists&) const = default;
};

struct Request {
  int minNodes = 1, maxNodes = 0;
  int ntasks = 1, ntasksPerNode = 0, cpusPerTask = 1;
  uint64_t memPerNodeMb = 0, memPerCpuMb = 0;
  std::vector<GresRequest> gresPerNode;  // --gres
  int gpus = 0, gpusPerNode = 0, gpusPerSocket = 0, gpusPerTask = 0, cpusPerGpu = 0;
  uint64_t memPerGpuMb = 0;
  std::string gpuType;  // the type of the --gpus* forms (--gpus=a100:2)
  bool enforceBinding = false;
  LinkPolicy links = LinkPolicy::Prefer;
  bool exclusive = false;  // --exclusive with no argument (or =topo): whole nodes
  // --exclusive=user: the job shares its nodes only with jobs of the same
  // user, and they with it. `uid` is whose job this is.
  bool exclusiveUser = false;
  uint32_t uid = 0;
  int coreSpec = 0;        // --core-spec (whole node only with AllowSpecResourcesUsage)
  int threadSpec = 0;      // --thread-spec (likewise)
  int socketsPerNode = 0;  // --sockets-per-node; --gpus-per-socket needs it
  // --ntasks-per-socket: at most this many tasks on a socket, each task's
  // CPUs from one socket (0: no limit).
  int ntasksPerSocket = 0;
  std::string gpuFreq;     // --gpu-freq as given; refused with shared GRES (mps, shard)
  // Whether the job may share CPUs where its partition over-subscribes
  // them (PartitionView::overSubscribe): every job of a FORCE partition,
  // the -s/--oversubscribe jobs of a YES one. A job that may not takes only
  // idle CPUs, and nobody shares its CPUs.
  bool mayShare = true;
  NodeLists nodeLists;
  // Same shape: selection answers both alike (backfill plans a shape once).
  bool operator==(const Request&) const = default;
};

inline constexpr const char* kReasonNeverAvailable = "Requested node configuration is not available";
inline constexpr const char* kReasonMemory = "Memory specification can not be satisfied";

// Checks that do not depend on any node: the error names the option and the
// rule (e.g. "--gpus-per-task requires a task count (-n)"). Counts whose
// products overflow an int are refused with kReasonNeverAvailable.
Status validateRequest(const Request& request);

// The least memory (MB) any one node of the job must give: --mem, or
// --mem-per-cpu times the cpus of one task (of --ntasks-per-node tasks), or
// --mem-per-gpu times one GPU. nullopt when the product overflows.
std::optional<uint64_t> leastMemoryPerNode(const Request& request);

}  // namespace gantry::select
