// Shared GRES (gres/mps, gres/shard), count-only and no_consume GRES, and
// MIG instances, with the spec's configuration examples. Nodes with shares
// are built the way registration builds them: gres.conf text resolved by
// common/config into one count per GPU.
#include <catch2/catch.hpp>

#include "common/config/shared_gres.h"
#include "common/gres/shared.h"
#include "controller/select/rules.h"
#include "select_builders.h"

using namespace gantry::select;
using namespace gantry::select::testing;

namespace {

// A node of GPUs of `types` (/dev/nvidia0...) whose `name` shares come from
// `gresConf` (and `configuredTotal`, the gantry.conf Gres= count, for the
// form without a gres.conf line).
NodeInfo sharedNode(const std::vector<std::string>& types, const std::string& gresConf, const std::string& name,
                    uint64_t configuredTotal = 0) {
  NodeInfo node = gpuNode("tux", static_cast<int>(types.size()));
  std::vector<gantry::config::GpuRef> gpus;
  for (size_t i = 0; i < types.size(); ++i) {
    node.devices[i].type = types[i];
    gpus.push_back({node.devices[i].files[0], types[i]});
  }
  auto conf = gantry::config::parseGresConf(gresConf, "gres.conf", "tux");
  REQUIRE(conf.ok());
  auto plan = gantry::config::planSharedGres(conf.value(), name);
  REQUIRE(plan.ok());
  auto counts = gantry::config::resolveSharedCounts(plan.value(), gpus, configuredTotal);
  for (size_t i = 0; i < types.size(); ++i) node.devices[i].shared.push_back({name, counts[i]});
  return node;
}

std::vector<uint64_t> sharedCounts(const NodeInfo& node, const std::string& name) {
  std::vector<uint64_t> counts;
  for (const auto& device : node.devices) counts.push_back(gantry::gres::sharedCountOf(device, name));
  return counts;
}

Request shares(const std::string& name, uint64_t count, const std::string& type = "") {
  Request r;
  r.gresPerNode.push_back({name, type, count});
  return r;
}

// Selects and commits; the grant on the (single) node.
NodeGrant place(Cluster& cluster, const Request& request) {
  auto outcome = cluster.select(request, allNodes(cluster));
  REQUIRE(outcome.verdict == Verdict::Placed);
  cluster.commit(outcome.allocation);
  return outcome.allocation.nodes.at(0);
}

using Shares = std::vector<std::pair<int, uint64_t>>;
Shares sharesOf(const NodeGrant& grant) {
  Shares out;
  for (const auto& share : grant.shares) out.emplace_back(share.device, share.count);
  return out;
}

const std::string kExampleGpus =
    "Name=gpu Type=gp100 File=/dev/nvidia0 Cores=0,1\nName=gpu Type=gp100 File=/dev/nvidia1 Cores=0,1\n"
    "Name=gpu Type=p6000 File=/dev/nvidia2 Cores=2,3\nName=gpu Type=p6000 File=/dev/nvidia3 Cores=2,3\n";
const std::vector<std::string> kExampleTypes = {"gp100", "gp100", "p6000", "p6000"};
const std::vector<std::string> kGtxTypes = {"gtx1080", "gtx1070", "gtx1060", "gtx1050"};

}  // namespace

TEST_CASE("configuration forms give the per-GPU counts selection works with", "[select][shared]") {
  SECTION("no gres.conf line: the Gres= total split evenly (gpu:2,shard:64)") {
    NodeInfo node = sharedNode({"", ""}, "", "shard", 64);
    CHECK(sharedCounts(node, "shard") == std::vector<uint64_t>{32, 32});
  }
  SECTION("MPS Example 1: Name=mps Count=400 over four GPUs") {
    NodeInfo node = sharedNode(kExampleTypes, kExampleGpus + "Name=mps Count=400\n", "mps");
    CHECK(sharedCounts(node, "mps") == std::vector<uint64_t>{100, 100, 100, 100});
    CHECK(gantry::gres::checkSharedTotals(node.devices, {{"gpu", "", 4}, {"mps", "", 400}}).ok());
  }
  SECTION("MPS Example 2: Name+File+Count per device") {
    NodeInfo node = sharedNode(kGtxTypes,
                               "Name=mps Count=1300 File=/dev/nvidia0\nName=mps Count=1200 File=/dev/nvidia1\n"
                               "Name=mps Count=1100 File=/dev/nvidia2\nName=mps Count=1000 File=/dev/nvidia3\n",
                               "mps");
    CHECK(sharedCounts(node, "mps") == std::vector<uint64_t>{1300, 1200, 1100, 1000});
  }
  SECTION("Sharding Example 1 and 2 give 8 shards on each GPU") {
    NodeInfo one = sharedNode(kExampleTypes, kExampleGpus + "Name=shard Count=32\n", "shard");
    NodeInfo two = sharedNode(kGtxTypes,
                              "Name=shard Count=8 File=/dev/nvidia0\nName=shard Count=8 File=/dev/nvidia1\n"
                              "Name=shard Count=8 File=/dev/nvidia2\nName=shard Count=8 File=/dev/nvidia3\n",
                              "shard");
    CHECK(sharedCounts(one, "shard") == std::vector<uint64_t>{8, 8, 8, 8});
    CHECK(sharedCounts(two, "shard") == std::vector<uint64_t>{8, 8, 8, 8});
  }
  SECTION("Name+Type+Count: per device by type, unmatched GPUs get none") {
    NodeInfo node = sharedNode({"nvidia_a100_80gb", "l40s", "t4"},
                               "Name=shard Type=A100 Count=32\nName=shard Type=l40s Count=16\n", "shard");
    CHECK(sharedCounts(node, "shard") == std::vector<uint64_t>{32, 16, 0});
    Cluster cluster;
    cluster.addNode(node);
    CHECK(cluster.canEverRun(shares("shard", 1, "t4"), allNodes(cluster)).verdict == Verdict::Never);
    CHECK(cluster.gresUsed(0) == "gpu:nvidia_a100_80gb:0(IDX:N/A),gpu:l40s:0(IDX:N/A),gpu:t4:0(IDX:N/A),"
                                 "shard:0(0/32,0/16)");
  }
}

TEST_CASE("MPS Example 1: jobs of many users share a GPU up to its count", "[select][shared]") {
  Cluster cluster;
  cluster.addNode(sharedNode(kExampleTypes, kExampleGpus + "Name=mps Count=400\n", "mps"));
  NodeGrant first = place(cluster, shares("mps", 50));
  NodeGrant second = place(cluster, shares("mps", 50));
  // Both halves on one GPU, which is not held whole by either.
  CHECK(sharesOf(first) == Shares{{0, 50}});
  CHECK(sharesOf(second) == Shares{{0, 50}});
  CHECK(first.devices.empty());
  CHECK(mpsActiveThreadPercentage(cluster.node(0), first) == 50);
  CHECK(sharesOnNode(first, "mps") == 50);
  // The full GPU 0 is not available whole: three GPUs are left for gres/gpu.
  CHECK(cluster.select(gres("", 4), allNodes(cluster)).verdict == Verdict::NotNow);
  NodeGrant whole = place(cluster, gres("", 3));
  CHECK(whole.devices == std::vector<int>{1, 2, 3});
  // No GPU has MPS room left.
  CHECK(cluster.select(shares("mps", 1), allNodes(cluster)).verdict == Verdict::NotNow);
  CHECK(cluster.gresUsed(0) == "gpu:gp100:1(IDX:1),gpu:p6000:2(IDX:2-3),mps:100(100/100,-/100,-/100,-/100)");
  cluster.release(Allocation{{second}});
  CHECK(sharesOf(place(cluster, shares("mps", 50))) == Shares{{0, 50}});
}

TEST_CASE("MPS Example 2: thread percentage is shares x 100 / device count", "[select][shared]") {
  Cluster cluster;
  cluster.addNode(sharedNode(kGtxTypes,
                             "Name=mps Count=1300 File=/dev/nvidia0\nName=mps Count=1200 File=/dev/nvidia1\n"
                             "Name=mps Count=1100 File=/dev/nvidia2\nName=mps Count=1000 File=/dev/nvidia3\n",
                             "mps"));
  const std::vector<std::pair<std::string, int>> expected = {
      {"gtx1080", 15}, {"gtx1070", 16}, {"gtx1060", 18}, {"gtx1050", 20}};
  for (size_t i = 0; i < expected.size(); ++i) {
    NodeGrant grant = place(cluster, shares("mps", 200, expected[i].first));
    CHECK(sharesOf(grant) == Shares{{static_cast<int>(i), 200}});
    CHECK(mpsActiveThreadPercentage(cluster.node(0), grant) == expected[i].second);
  }
  // An untyped request goes to the GPU already shared with the least room left.
  CHECK(sharesOf(place(cluster, shares("mps", 700))) == Shares{{3, 700}});
  NodeGrant listed;
  listed.shares = {{"mps", 3, 700}};
  CHECK(formatGrantGres(cluster.node(0), listed) == "mps:700(0/1300,0/1200,0/1100,700/1000)");
}

TEST_CASE("Sharding Example 1: 8 shards per GPU, whole or shared, never both", "[select][shared]") {
  Cluster cluster;
  cluster.addNode(sharedNode(kExampleTypes, kExampleGpus + "Name=shard Count=32\n", "shard"));
  NodeGrant whole = place(cluster, gres("", 1));
  CHECK(whole.devices == std::vector<int>{0});
  // Shares avoid the GPU held whole and pack onto the GPU already shared.
  CHECK(sharesOf(place(cluster, shares("shard", 2))) == Shares{{1, 2}});
  CHECK(sharesOf(place(cluster, shares("shard", 6))) == Shares{{1, 6}});
  CHECK(sharesOf(place(cluster, shares("shard", 1))) == Shares{{2, 1}});
  // GPU 1 is full, GPU 2 shared: only GPU 3 can still go whole.
  CHECK(cluster.select(gres("", 2), allNodes(cluster)).verdict == Verdict::NotNow);
  CHECK(place(cluster, gres("", 1)).devices == std::vector<int>{3});
  CHECK(cluster.gresUsed(0) == "gpu:gp100:1(IDX:0),gpu:p6000:1(IDX:3),shard:9(-/8,8/8,1/8,-/8)");
}

TEST_CASE("Sharding Example 2: a shard request fits on one GPU unless MULTIPLE_SHARING_GRES_PJ", "[select][shared]") {
  NodeInfo node = sharedNode(kGtxTypes,
                             "Name=shard Count=8 File=/dev/nvidia0\nName=shard Count=8 File=/dev/nvidia1\n"
                             "Name=shard Count=8 File=/dev/nvidia2\nName=shard Count=8 File=/dev/nvidia3\n",
                             "shard");
  Cluster oneGpu;
  oneGpu.addNode(node);
  SelectTrace trace;
  CHECK(oneGpu.select(shares("shard", 10), allNodes(oneGpu), &trace).verdict == Verdict::NotNow);
  CHECK(traceHas(trace, 0, rules::kSharesOneGpu));
  CHECK(oneGpu.canEverRun(shares("shard", 10), allNodes(oneGpu)).verdict == Verdict::Never);

  Cluster spread(ClusterOptions{.multipleSharingGresPj = true});
  spread.addNode(node);
  // One GPU still suffices when it can: no needless spreading.
  CHECK(sharesOf(place(spread, shares("shard", 3))) == Shares{{0, 3}});
  NodeGrant wide = place(spread, shares("shard", 10));
  CHECK(sharesOf(wide) == Shares{{1, 8}, {2, 2}});
  CHECK(sharesOnNode(wide, "shard") == 10);
  CHECK(formatGrantGres(spread.node(0), wide) == "shard:10(0/8,8/8,2/8,0/8)");
  CHECK(spread.gresUsed(0) == "gpu:gtx1080:0(IDX:N/A),gpu:gtx1070:0(IDX:N/A),gpu:gtx1060:0(IDX:N/A),"
                              "gpu:gtx1050:0(IDX:N/A),shard:13(3/8,8/8,2/8,0/8)");
  CHECK(spread.select(shares("shard", 20), allNodes(spread)).verdict == Verdict::NotNow);
  CHECK(spread.canEverRun(shares("shard", 33), allNodes(spread)).verdict == Verdict::Never);
}

TEST_CASE("the spec's usage line shard:8(-/5,5/5,3/5,0/5) from a sequence of jobs", "[select][shared]") {
  // NodeName=node0 Gres=gpu:4,shard:20 with no gres.conf shard line.
  Cluster cluster;
  cluster.addNode(sharedNode({"", "", "", ""}, "", "shard", 20));
  place(cluster, gres("", 1));
  place(cluster, shares("shard", 5));
  NodeGrant last = place(cluster, shares("shard", 3));
  CHECK(cluster.gresUsed(0) == "gpu:1(IDX:0),shard:8(-/5,5/5,3/5,0/5)");
  CHECK(cluster.sharesUsed(0, "shard") == std::vector<uint64_t>{0, 5, 3, 0});
  // Drains: d3/5 keeps the shares held from before, d/5 takes none.
  cluster.setDeviceDrained(0, 2, true);
  cluster.setDeviceDrained(0, 3, true);
  CHECK(cluster.gresUsed(0) == "gpu:1(IDX:0),shard:8(-/5,5/5,d3/5,d/5)");
  CHECK(cluster.select(shares("shard", 1), allNodes(cluster)).verdict == Verdict::NotNow);
  cluster.release(Allocation{{last}});
  CHECK(cluster.gresUsed(0) == "gpu:1(IDX:0),shard:5(-/5,5/5,d/5,d/5)");
  cluster.setDeviceDrained(0, 3, false);
  CHECK(sharesOf(place(cluster, shares("shard", 2))) == Shares{{3, 2}});
}

TEST_CASE("the mixed rtx_5090 / rtx_5060_ti / amd_granite node", "[select][shared]") {
  NodeInfo node = sharedNode({"rtx_5090", "rtx_5060_ti", "amd_granite"},
                             "Name=shard Type=rtx_5090 Count=16\nName=shard Type=rtx_5060_ti Count=16\n"
                             "Name=shard Type=amd_granite Count=4\n",
                             "shard");
  CHECK(sharedCounts(node, "shard") == std::vector<uint64_t>{16, 16, 4});
  CHECK(gantry::gres::checkSharedTotals(node.devices, {{"gpu", "rtx_5090", 1},
                                               {"gpu", "rtx_5060_ti", 1},
                                               {"gpu", "amd_granite", 1},
                                               {"shard", "rtx_5090", 16},
                                               {"shard", "rtx_5060_ti", 16},
                                               {"shard", "amd_granite", 4}})
            .ok());
  Cluster cluster;
  cluster.addNode(node);
  CHECK(sharesOf(place(cluster, shares("shard", 4, "rtx_5090"))) == Shares{{0, 4}});
  CHECK(sharesOf(place(cluster, shares("shard", 2, "rtx_5060_ti"))) == Shares{{1, 2}});
  CHECK(cluster.canEverRun(shares("shard", 5, "amd_granite"), allNodes(cluster)).verdict == Verdict::Never);
  // Untyped: the least room that fits among the GPUs already shared.
  CHECK(sharesOf(place(cluster, shares("shard", 12))) == Shares{{0, 12}});
  CHECK(sharesOf(place(cluster, shares("shard", 3))) == Shares{{1, 3}});
  // The only GPU still whole-free is the amd_granite.
  CHECK(place(cluster, gres("", 1)).devices == std::vector<int>{2});
  CHECK(cluster.gresUsed(0) == "gpu:rtx_5090:0(IDX:N/A),gpu:rtx_5060_ti:0(IDX:N/A),gpu:amd_granite:1(IDX:2),"
                               "shard:21(16/16,5/16,-/4)");
}

TEST_CASE("request rules for shared GRES", "[select][shared]") {
  Cluster cluster;
  cluster.addNode(sharedNode({"", ""}, "", "mps", 200));
  Request gpuAndMps = shares("mps", 50);
  gpuAndMps.gpusPerNode = 1;
  auto refused = cluster.select(gpuAndMps, allNodes(cluster));
  CHECK(refused.verdict == Verdict::Never);
  CHECK(refused.reason.find("Invalid generic resource (gres) specification: --gres=mps cannot be combined with a GPU "
                            "request") == 0);
  Request gresGpuAndMps = shares("mps", 50);
  gresGpuAndMps.gresPerNode.push_back({"gpu", "", 1});
  CHECK_FALSE(validateRequest(gresGpuAndMps).ok());

  Request freq = shares("shard", 1);
  freq.gpuFreq = "high";
  auto status = validateRequest(freq);
  REQUIRE_FALSE(status.ok());
  CHECK(status.error() ==
        "Invalid generic resource (gres) specification: --gpu-freq cannot be used with --gres=shard: jobs sharing a "
        "GPU cannot set its frequency");
  Request mpsFreq = shares("mps", 10);
  mpsFreq.gpuFreq = "1500";
  CHECK_FALSE(validateRequest(mpsFreq).ok());
  Request gpuFreq = gpusPerNode(1);
  gpuFreq.gpuFreq = "high";
  CHECK(validateRequest(gpuFreq).ok());

  // A node without the shared GRES never serves it.
  Cluster plain;
  plain.addNode(gpuNode("g", 2));
  SelectTrace trace;
  CHECK(plain.canEverRun(shares("shard", 1), allNodes(plain), &trace).verdict == Verdict::Never);
  CHECK(traceHas(trace, 0, rules::kNoSuchGres));
}

TEST_CASE("shares and whole GPUs never overlap, across jobs and within one", "[select][shared]") {
  Cluster cluster;
  cluster.addNode(sharedNode({"", ""}, "", "shard", 8));
  // gpu and shard in one job: the GPU goes whole, the shares come from the other.
  Request both = shares("shard", 2);
  both.gresPerNode.push_back({"gpu", "", 1});
  NodeGrant grant = place(cluster, both);
  CHECK(grant.devices == std::vector<int>{1});
  CHECK(sharesOf(grant) == Shares{{0, 2}});
  CHECK(formatGrantGres(cluster.node(0), grant) == "gpu:1(IDX:1),shard:2(2/4,0/4)");
  CHECK(cluster.select(gres("", 1), allNodes(cluster)).verdict == Verdict::NotNow);
  cluster.release(Allocation{{grant}});
  CHECK(cluster.gresUsed(0) == "gpu:0(IDX:N/A),shard:0(0/4,0/4)");
  // Both GPUs shared a little: no whole GPU left, but more shares fit.
  Cluster spread(ClusterOptions{.multipleSharingGresPj = true});
  spread.addNode(sharedNode({"", ""}, "", "shard", 8));
  place(spread, shares("shard", 3));
  place(spread, shares("shard", 3));
  CHECK(spread.sharesUsed(0, "shard") == std::vector<uint64_t>{3, 3});
  CHECK(spread.select(gres("", 1), allNodes(spread)).verdict == Verdict::NotNow);
  CHECK(sharesOf(place(spread, shares("shard", 2))) == Shares{{0, 1}, {1, 1}});
}

TEST_CASE("an exclusive job on a shared node takes every GPU and records its shares", "[select][shared]") {
  Cluster cluster;
  cluster.addNode(sharedNode({"", ""}, "", "shard", 8));
  Request exclusive = shares("shard", 2);
  exclusive.exclusive = true;
  NodeGrant grant = place(cluster, exclusive);
  CHECK(grant.wholeNode);
  CHECK(grant.devices == std::vector<int>{0, 1});
  CHECK(sharesOnNode(grant, "shard") == 2);
  CHECK(cluster.gresUsed(0) == "gpu:2(IDX:0-1),shard:2(-/4,-/4)");
  // Its steps may still use the GPUs whole.
  auto step = cluster.selectStep(exclusive, Allocation{{grant}}, {}, gres("", 2));
  REQUIRE(step.verdict == Verdict::Placed);
  CHECK(step.allocation.nodes[0].devices == std::vector<int>{0, 1});
  cluster.release(Allocation{{grant}});
  CHECK(cluster.gresUsed(0) == "gpu:0(IDX:N/A),shard:0(0/4,0/4)");
}

TEST_CASE("steps divide the job's shares", "[select][shared][steps]") {
  Cluster cluster;
  cluster.addNode(sharedNode({"", ""}, "", "shard", 16));
  place(cluster, shares("shard", 2));  // another job on GPU 0
  Request jobRequest = shares("shard", 4);
  NodeGrant jobGrant = place(cluster, jobRequest);
  REQUIRE(sharesOf(jobGrant) == Shares{{0, 4}});
  Allocation job{{jobGrant}};
  Request plainStep;
  auto all = cluster.selectStep(jobRequest, job, {}, plainStep);
  REQUIRE(all.verdict == Verdict::Placed);
  CHECK(sharesOf(all.allocation.nodes[0]) == Shares{{0, 4}});
  auto part = cluster.selectStep(jobRequest, job, {}, shares("shard", 3));
  REQUIRE(part.verdict == Verdict::Placed);
  CHECK(sharesOf(part.allocation.nodes[0]) == Shares{{0, 3}});
  // Exclusive steps wait for the job's shares other steps hold.
  Request exclusiveStep = shares("shard", 2);
  exclusiveStep.exclusive = true;
  CHECK(cluster.selectStep(jobRequest, job, {part.allocation}, exclusiveStep).verdict == Verdict::NotNow);
  CHECK(cluster.selectStep(jobRequest, job, {}, shares("shard", 5)).verdict == Verdict::Never);
  // A step cannot take the job's shared GPU whole.
  CHECK(cluster.selectStep(jobRequest, job, {}, gres("", 1)).verdict == Verdict::Never);
}

TEST_CASE("re-registration keeps the shares held", "[select][shared]") {
  Cluster cluster;
  NodeInfo node = sharedNode({"", ""}, "", "shard", 8);
  cluster.addNode(node);
  place(cluster, shares("shard", 3));
  cluster.replaceNode(0, node);
  CHECK(cluster.gresUsed(0) == "gpu:0(IDX:N/A),shard:3(3/4,0/4)");
  CHECK(sharesOf(place(cluster, shares("shard", 1))) == Shares{{0, 1}});
}

TEST_CASE("count-only GRES: consumable, typed and no_consume", "[select][counted]") {
  NodeInfo node = gpuNode("c", 0);
  // Gres=bandwidth:lustre:no_consume:4G,licenses:2
  node.countedGres.push_back({"bandwidth", "lustre", 4ull << 30, true});
  node.countGres.push_back({"licenses", 2});
  Cluster cluster;
  cluster.addNode(node);
  Request bandwidth = shares("bandwidth", 3ull << 30, "lustre");
  // no_consume: any number of jobs may hold it at once, each up to the total.
  NodeGrant first = place(cluster, bandwidth);
  place(cluster, bandwidth);
  CHECK(first.countGres == std::vector<std::pair<std::string, uint64_t>>{{"bandwidth:lustre", 3ull << 30}});
  CHECK(formatGrantGres(cluster.node(0), first) == "bandwidth:lustre:3G");
  CHECK(cluster.select(shares("bandwidth", 1), allNodes(cluster)).verdict == Verdict::Placed);
  CHECK(cluster.canEverRun(shares("bandwidth", 5ull << 30), allNodes(cluster)).verdict == Verdict::Never);
  CHECK(cluster.canEverRun(shares("bandwidth", 1, "gpfs"), allNodes(cluster)).verdict == Verdict::Never);
  // Consumable: used up until released.
  NodeGrant license = place(cluster, shares("licenses", 2));
  CHECK(cluster.select(shares("licenses", 1), allNodes(cluster)).verdict == Verdict::NotNow);
  CHECK(cluster.gresUsed(0) == "licenses:2,bandwidth:lustre:0");
  cluster.release(Allocation{{license}});
  CHECK(cluster.select(shares("licenses", 1), allNodes(cluster)).verdict == Verdict::Placed);
}

TEST_CASE("MIG instances are GPUs of their own type", "[select][mig]") {
  // NodeName=tux gres=gpu:a100:1,gpu:a100_3g.20gb:2
  NodeInfo node = gpuNode("tux", 3);
  node.devices[0].type = "a100";
  for (int i = 1; i < 3; ++i) {
    node.devices[i].type = "a100_3g.20gb";
    node.devices[i].files = {"/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap" + std::to_string(20 + 9 * i)};
  }
  Cluster cluster;
  cluster.addNode(node);
  CHECK(place(cluster, gres("a100_3g.20gb", 1)).devices == std::vector<int>{1});
  CHECK(place(cluster, gres("a100", 1)).devices == std::vector<int>{0});
  CHECK(cluster.select(gres("a100", 1), allNodes(cluster)).verdict == Verdict::NotNow);
  CHECK(cluster.gresUsed(0) == "gpu:a100:1(IDX:0),gpu:a100_3g.20gb:1(IDX:1)");
  NodeGrant mig;
  mig.devices = {2};
  CHECK(formatGrantGres(cluster.node(0), mig) == "gpu:a100_3g.20gb:1(IDX:2)");
}
