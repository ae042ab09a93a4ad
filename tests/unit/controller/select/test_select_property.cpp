// Property test: random clusters and requests. Whatever is placed must
// respect counts, types, chunk alignment, enforced links, drains, and never
// hand out a device or cpu twice; shares (mps, shard) never exceed a GPU's
// count and never sit on a GPU held whole. The seed is printed on failure.
#include <catch2/catch.hpp>

#include <bit>
#include <map>
#include <random>
#include <set>

#include "common/gres/chunks.h"
#include "common/gres/index_list.h"
#include "common/gres/link_graph.h"
#include "common/gres/shared.h"
#include "select_builders.h"

using namespace gantry;
using namespace gantry::select;
using namespace gantry::select::testing;

namespace {

struct World {
  std::mt19937 random;
  int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(random); }
  bool chance(int percent) { return pick(1, 100) <= percent; }

  NodeInfo randomNode(int index) {
    int gpus = pick(0, 8);
    std::string type = chance(50) ? "a100" : "h100";
    NodeShape shape{.sockets = pick(1, 2), .coresPerSocket = pick(2, 8), .threadsPerCore = pick(1, 2)};
    NodeInfo node = gpuNode("n" + std::to_string(index), gpus, type, shape);
    bool chunked = (gpus == 4 || gpus == 8) && chance(35);
    if (chunked) {
      std::vector<int> sizes = gpus == 8 ? std::vector<int>{2, 4, 8} : std::vector<int>{1, 2, 4};
      std::vector<int> order;
      if (chance(50)) {
        for (int i = 0; i < gpus; ++i) order.push_back(i);
        std::shuffle(order.begin(), order.end(), random);
      }
      node.chunks.push_back({type, sizes, order});
      return node;
    }
    if (gpus > 1 && chance(30)) node.devices.back().type = type == "a100" ? "h100" : "a100";
    if (gpus > 0 && chance(40)) {
      std::string name = chance(50) ? "shard" : "mps";
      for (auto& device : node.devices) device.shared.push_back({name, static_cast<uint64_t>(pick(0, 8))});
    }
    if (gpus > 0 && chance(70)) {
      std::vector<std::vector<int>> matrix(gpus, std::vector<int>(gpus, 0));
      for (int a = 0; a < gpus; ++a)
        for (int b = a + 1; b < gpus; ++b) matrix[a][b] = matrix[b][a] = chance(50) ? pick(1, 3) : 0;
      setLinks(node, matrix);
    }
    return node;
  }

  Request randomRequest() {
    Request r;
    r.ntasks = pick(1, 3);
    if (chance(30)) r.minNodes = r.maxNodes = pick(1, 2);
    std::string type = chance(40) ? (chance(50) ? "a100" : "h100") : "";
    switch (pick(0, 5)) {
      case 5:
        r.gresPerNode.push_back({chance(50) ? "shard" : "mps", type, static_cast<uint64_t>(pick(1, 10))});
        if (chance(20)) r.gresPerNode.push_back({"gpu", "", 1});  // refused together with mps
        return r;
      case 0: break;  // cpu only
      case 1: r.gresPerNode.push_back({"gpu", type, static_cast<uint64_t>(pick(1, 8))}); break;
      case 2: r.gpusPerNode = pick(1, 4); r.gpuType = type; break;
      case 3: r.gpus = pick(1, 8); r.gpuType = type; break;
      case 4: r.gpusPerTask = pick(1, 2); r.gpuType = type; if (chance(50)) r.maxNodes = 1; break;
    }
    r.links = static_cast<LinkPolicy>(pick(0, 2));
    r.exclusive = chance(8);
    r.enforceBinding = chance(15);
    if (chance(20)) r.memPerCpuMb = pick(100, 4000);
    return r;
  }
};

const GresRequest* sharedDemand(const Request& r) {
  for (const auto& g : r.gresPerNode)
    if (gres::isSharedGresName(g.name)) return &g;
  return nullptr;
}

int gpuDemandPerNode(const Request& r, const NodeGrant& grant) {
  if (sharedDemand(r))
    return r.gresPerNode.size() > 1 ? 1 : 0;  // the whole GPU asked beside the shares
  if (!r.gresPerNode.empty()) return static_cast<int>(r.gresPerNode[0].count);
  if (r.gpusPerNode) return r.gpusPerNode;
  if (r.gpusPerTask) return r.gpusPerTask * grant.tasks;
  return -1;  // --gpus: checked as a total
}

std::string requestedType(const Request& r) {
  if (sharedDemand(r)) return "";  // the type constrains the shares, checked apart
  return r.gresPerNode.empty() ? r.gpuType : r.gresPerNode[0].type;
}

gres::DeviceMask shareMask(const NodeGrant& grant) {
  gres::DeviceMask mask = 0;
  for (const auto& share : grant.shares) mask |= gres::bitOf(share.device);
  return mask;
}

// The shares of a placed grant: on GPUs offering the name (and type),
// summing to the request, from one GPU unless spreading is allowed.
void checkShares(const Request& request, const NodeGrant& grant, const NodeInfo& info, gres::DeviceMask drained,
                 bool spread) {
  const GresRequest* shared = sharedDemand(request);
  if (!shared) {
    CHECK(grant.shares.empty());
    return;
  }
  uint64_t total = 0;
  for (const auto& share : grant.shares) {
    REQUIRE(share.device >= 0);
    REQUIRE(share.device < static_cast<int>(info.devices.size()));
    CHECK(share.name == shared->name);
    CHECK(share.count > 0);
    CHECK(share.count <= gres::sharedCountOf(info.devices[share.device], share.name));
    CHECK((drained & gres::bitOf(share.device)) == 0);
    if (!shared->type.empty()) CHECK(info.devices[share.device].type == shared->type);
    total += share.count;
  }
  CHECK(total == shared->count);
  if (!spread) CHECK(grant.shares.size() == 1);
  if (!grant.wholeNode) CHECK((shareMask(grant) & gres::indexesToMask(grant.devices)) == 0);
}

bool alignedChunk(const gres::ChunkDomain& domain, gres::DeviceMask devices) {
  if (devices == domain.mask) return true;
  int size = std::popcount(devices);
  for (int start = 0; start + size <= static_cast<int>(domain.devices.size()); start += size)
    if (gres::chunkMask(domain, size, start) == devices) return true;
  return false;
}

}  // namespace

TEST_CASE("random clusters: placements respect every rule and never double-allocate", "[select][property]") {
  int sharedPlaced = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    INFO("seed " << seed);
    World world{std::mt19937(seed)};
    // Odd seeds allocate by cpu (CR_CPU), even seeds by core.
    bool spread = seed % 3 == 0;  // MULTIPLE_SHARING_GRES_PJ
    Cluster cluster(ClusterOptions{.allocateByCpu = seed % 2 == 1, .multipleSharingGresPj = spread});
    std::vector<NodeInfo> infos;
    for (int i = 0; i < 24; ++i) {
      infos.push_back(world.randomNode(i));
      cluster.addNode(infos.back());
    }
    std::map<int, gres::DeviceMask> drained;
    for (int i = 0; i < 4; ++i) {
      int n = world.pick(0, 23);
      if (infos[n].devices.empty()) continue;
      int d = world.pick(0, static_cast<int>(infos[n].devices.size()) - 1);
      cluster.setDeviceDrained(n, d, true);
      drained[n] |= gres::bitOf(d);
    }
    auto partition = allNodes(cluster);
    partition.exclusive = seed % 5 == 0;
    std::vector<Allocation> live;
    int placedCount = 0;
    for (int round = 0; round < 250; ++round) {
      Request request = world.randomRequest();
      INFO("round " << round);
      auto outcome = cluster.select(request, partition);
      if (outcome.verdict != Verdict::Placed) {
        if (outcome.verdict == Verdict::NotNow && world.chance(50) && !live.empty()) {
          size_t victim = world.pick(0, static_cast<int>(live.size()) - 1);
          cluster.release(live[victim]);
          live.erase(live.begin() + victim);
        }
        continue;
      }
      ++placedCount;
      int gpusTotal = 0;
      int tasksTotal = 0;
      std::set<int> nodesSeen;
      for (const auto& grant : outcome.allocation.nodes) {
        CHECK(nodesSeen.insert(grant.node).second);
        const NodeInfo& info = infos[grant.node];
        gres::DeviceMask mask = gres::indexesToMask(grant.devices);
        // Nothing handed out twice, nothing drained.
        for (const auto& other : live)
          for (const auto& held : other.nodes)
            if (held.node == grant.node) {
              CHECK((gres::indexesToMask(held.devices) & mask) == 0);
              // A GPU is held whole or as shares, never both at once.
              CHECK((gres::indexesToMask(held.devices) & shareMask(grant)) == 0);
              CHECK((shareMask(held) & mask) == 0);
              for (int cpu : held.cpus)
                CHECK(std::find(grant.cpus.begin(), grant.cpus.end(), cpu) == grant.cpus.end());
              CHECK_FALSE(held.wholeNode);
            }
        CHECK((mask & drained[grant.node]) == 0);
        checkShares(request, grant, info, drained[grant.node], spread);
        sharedPlaced += !grant.shares.empty();
        CHECK(!grant.cpus.empty());
        CHECK(static_cast<int>(grant.cpus.size()) >= grant.tasks * request.cpusPerTask);
        CHECK(grant.memoryMb <= info.realMemoryMb);
        tasksTotal += grant.tasks;
        std::string type = requestedType(request);
        if (!type.empty() && !grant.wholeNode)
          for (int d : grant.devices) CHECK(info.devices[d].type == type);
        int wanted = gpuDemandPerNode(request, grant);
        if (wanted >= 0 && !grant.wholeNode && (!request.gresPerNode.empty() || request.gpusPerNode || request.gpusPerTask))
          CHECK(static_cast<int>(grant.devices.size()) == wanted);
        if (wanted >= 0 && grant.wholeNode) CHECK(static_cast<int>(grant.devices.size()) >= wanted);
        gpusTotal += static_cast<int>(grant.devices.size());
        if (grant.wholeNode || mask == 0) continue;
        auto domains = gres::chunkDomains(info.devices, info.chunks);
        bool chunked = false;
        for (const auto& domain : domains)
          if ((domain.mask & mask) != 0) {
            chunked = true;
            CHECK((domain.mask & mask) == mask);
            CHECK(alignedChunk(domain, mask));
          }
        if (!chunked && request.links == LinkPolicy::Enforce)
          CHECK(gres::LinkGraph::fromDevices(info.devices).allPairwiseLinked(mask));
      }
      if (request.gpus > 0 && !request.exclusive && !partition.exclusive) CHECK(gpusTotal == request.gpus);
      CHECK(tasksTotal >= request.ntasks);
      cluster.commit(outcome.allocation);
      live.push_back(outcome.allocation);
      // Shares held on any GPU never exceed its count.
      std::map<std::pair<int, int>, uint64_t> held;
      for (const auto& allocation : live)
        for (const auto& g : allocation.nodes)
          for (const auto& share : g.shares) held[{g.node, share.device}] += share.count;
      for (const auto& [where, count] : held)
        for (const auto& shared : infos[where.first].devices[where.second].shared) CHECK(count <= shared.count);
    }
    CHECK(placedCount > 20);
  }
  CHECK(sharedPlaced > 50);
}
