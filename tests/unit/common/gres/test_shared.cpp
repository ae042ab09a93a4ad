#include <catch2/catch.hpp>

#include "common/gres/format.h"
#include "common/gres/shared.h"
#include "gres_builders.h"

using namespace gantry::gres;
using namespace gantry::gres::testing;

namespace {

std::vector<DeviceInfo> withShares(std::vector<DeviceInfo> devices, const std::string& name,
                                   const std::vector<uint64_t>& counts) {
  for (size_t i = 0; i < counts.size(); ++i) devices[i].shared.push_back({name, counts[i]});
  return devices;
}

// The spec's mixed node: one rtx_5090, one rtx_5060_ti, one amd_granite
// with 16, 16 and 4 shards (Name=shard Type=... Count=... lines).
std::vector<DeviceInfo> mixedNode() {
  auto devices = gpus(3);
  devices[0].type = "rtx_5090";
  devices[1].type = "rtx_5060_ti";
  devices[2].type = "amd_granite";
  return withShares(devices, "shard", {16, 16, 4});
}

}  // namespace

TEST_CASE("GresUsed for shares: the spec's line and the drained forms", "[gres][shared]") {
  auto devices = withShares(gpus(4), "shard", {5, 5, 5, 5});
  CHECK(formatSharedUsed(devices, "shard", {0, 5, 3, 0}, 0b0001, 0) == "shard:8(-/5,5/5,3/5,0/5)");
  CHECK(formatSharedUsed(devices, "shard", {0, 0, 3, 0}, 0, 0b1100) == "shard:3(0/5,0/5,d3/5,d/5)");
  CHECK(formatSharedUsed(devices, "shard", {}, 0, 0) == "shard:0(0/5,0/5,0/5,0/5)");
  // A GPU that offers no shards (Name=shard File=... on the others) is not listed.
  auto partly = withShares(gpus(3), "mps", {100, 0, 50});
  CHECK(formatSharedUsed(partly, "mps", {40, 0, 50}, 0b010, 0) == "mps:90(40/100,50/50)");
}

TEST_CASE("a job's shares: held/offered on every device offering them", "[gres][shared]") {
  auto devices = withShares(gpus(4), "shard", {5, 5, 5, 5});
  CHECK(formatShareGrant(devices, "shard", {{1, 5}, {2, 3}}) == "shard:8(0/5,5/5,3/5,0/5)");
  auto partly = withShares(gpus(3), "mps", {100, 0, 50});
  CHECK(formatShareGrant(partly, "mps", {{2, 20}}) == "mps:20(0/100,20/50)");  // GPU 1 offers none
  CHECK(formatShareGrant(partly, "mps", {}) == "");
  CHECK(formatCounted("bandwidth", "lustre", 4ull << 30) == "bandwidth:lustre:4G");
  CHECK(formatCounted("licenses", "", 3) == "licenses:3");
}

TEST_CASE("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE follows MPS Example 2", "[gres][shared]") {
  // --gres=mps:200 on the gtx1080 (1300), gtx1070 (1200), gtx1060 (1100), gtx1050 (1000).
  CHECK(mpsActiveThreadPercentage(200, 1300) == 15);
  CHECK(mpsActiveThreadPercentage(200, 1200) == 16);
  CHECK(mpsActiveThreadPercentage(200, 1100) == 18);
  CHECK(mpsActiveThreadPercentage(200, 1000) == 20);
  CHECK(mpsActiveThreadPercentage(100, 100) == 100);
  CHECK(mpsActiveThreadPercentage(5, 0) == 0);
}

TEST_CASE("shared totals against Gres=: typed per-type totals", "[gres][shared]") {
  auto devices = mixedNode();
  CHECK(checkSharedTotals(devices, {{"gpu", "rtx_5090", 1},
                                    {"shard", "rtx_5090", 16},
                                    {"shard", "rtx_5060_ti", 16},
                                    {"shard", "amd_granite", 4}})
            .ok());
  // Type names compare case-insensitively.
  CHECK(checkSharedTotals(devices,
                          {{"shard", "RTX_5090", 16}, {"shard", "rtx_5060_ti", 16}, {"shard", "amd_granite", 4}})
            .ok());
  auto wrong = checkSharedTotals(devices,
                                 {{"shard", "rtx_5090", 32}, {"shard", "rtx_5060_ti", 16}, {"shard", "amd_granite", 4}});
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error() == "Gres=shard:rtx_5090:32 but the node's rtx_5090 GPUs offer 16 shard");
  auto uncovered = checkSharedTotals(devices, {{"shard", "rtx_5090", 16}, {"shard", "rtx_5060_ti", 16}});
  REQUIRE_FALSE(uncovered.ok());
  CHECK(uncovered.error().find("declares 32 shard by type but the node's GPUs offer 36") != std::string::npos);
}

TEST_CASE("shared totals against Gres=: an untyped total equals the sum", "[gres][shared]") {
  auto devices = mixedNode();
  CHECK(checkSharedTotals(devices, {{"shard", "", 36}}).ok());
  auto wrong = checkSharedTotals(devices, {{"shard", "", 40}});
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error() == "Gres=shard:40 but the node's GPUs offer 36 shard");
  auto undeclared = checkSharedTotals(devices, {{"gpu", "", 3}});
  REQUIRE_FALSE(undeclared.ok());
  CHECK(undeclared.error() == "the node's GPUs offer 36 shard but Gres= declares no shard");
  // Declared but nothing offers it (e.g. no GPU matched any Type line).
  CHECK_FALSE(checkSharedTotals(gpus(2), {{"mps", "", 200}}).ok());
  CHECK(sharedNamesOf(devices) == std::vector<std::string>{"shard"});
  CHECK(isSharedGresName("mps"));
  CHECK_FALSE(isSharedGresName("gpu"));
}
