#include <catch2/catch.hpp>

#include "merge_fixture.h"

using namespace gantry;
using gantry::testing::runMerge;

namespace {
const char* kMixedGresConf =
    "AutoDetect=nvml\n"
    "Name=gpu Type=rtx_5060_ti File=/dev/nvidia1 DmemRegion=off\n"
    "Name=gpu Type=amd_granite File=/dev/dri/renderD128\n"
    "Name=shard Type=rtx_5090 Count=16\n"
    "Name=shard Type=rtx_5060_ti Count=16\n"
    "Name=shard Type=amd_granite Count=4\n";
const char* kMixedNodeGres =
    "gpu:rtx_5090:1,gpu:rtx_5060_ti:1,gpu:amd_granite:1,shard:rtx_5090:16,shard:rtx_5060_ti:16,shard:amd_granite:4";
}  // namespace

TEST_CASE("three-model node: one dmem line per sharding device", "[gres][dmem]") {
  auto run = runMerge({.host = "mixed3-dmem", .autoDetect = "nvml", .gresConfText = kMixedGresConf,
                       .nodeGres = kMixedNodeGres, .constrainDeviceMemory = true});
  REQUIRE(run.result.ok());
  const auto& r = *run.result;
  CHECK(r.log == std::vector<std::string>{
                     "shard: /dev/nvidia0 shards=16 region=nvidia/0000:17:00/vidmem capacity=32607MiB slice=2037MiB dmem=enforced",
                     "shard: /dev/nvidia1 shards=16 region=nvidia/0000:b3:00/vidmem dmem=off",
                     "shard: /dev/dri/renderD128 shards=4 region=drm/0000:79:00.0/vram capacity=4080MiB slice=1020MiB dmem=enforced"});
  REQUIRE(r.records.size() == 6);
  CHECK(r.records[0].type == "rtx_5090");
  CHECK(r.records[2].type == "amd_granite");
  CHECK(r.records[2].pciBusId == "0000:79:00.0");
  CHECK(r.records[3].name == "shard");
  CHECK(r.records[3].dmemSliceBytes == 32607ULL * 1024 * 1024 / 16);
  CHECK(r.records[3].dmemSliceBytes * 4 / (1024 * 1024) == 8151);  // the spec's SLURM_SHARD_MEM_PER_GPU
  CHECK(r.records[4].dmemSliceBytes == 0);
  CHECK(r.records[5].dmemSliceBytes == 1020ULL * 1024 * 1024);
  CHECK(r.drainReason.empty());
}

TEST_CASE("without ConstrainDeviceMemory no slices are computed", "[gres][dmem]") {
  auto run = runMerge({.host = "mixed3-dmem", .autoDetect = "nvml", .gresConfText = kMixedGresConf,
                       .nodeGres = kMixedNodeGres});
  REQUIRE(run.result.ok());
  CHECK(run.result->log.empty());
  CHECK(run.result->records[3].dmemSliceBytes == 0);
}

TEST_CASE("DmemRegion= overrides the region autodetection", "[gres][dmem]") {
  auto run = runMerge({.host = "mixed3-dmem",
                       .autoDetect = "nvml",
                       .gresConfText = "AutoDetect=nvml\nName=gpu Type=rtx_5090 File=/dev/nvidia0 DmemRegion=nvidia/0000:b3:00/vidmem\n"
                                       "Name=shard Type=rtx_5090 Count=16\n",
                       .nodeGres = "gpu:rtx_5090:1,gpu:rtx_5060_ti:1,shard:rtx_5090:16",
                       .constrainDeviceMemory = true});
  REQUIRE(run.result.ok());
  REQUIRE(run.result->log.size() == 1);
  CHECK(run.result->log[0] ==
        "shard: /dev/nvidia0 shards=16 region=nvidia/0000:b3:00/vidmem capacity=16311MiB slice=1019MiB dmem=enforced");
}

TEST_CASE("a DmemRegion= the node lacks stops the agent", "[gres][dmem]") {
  auto run = runMerge({.host = "mixed3-dmem",
                       .autoDetect = "nvml",
                       .gresConfText = "AutoDetect=nvml\nName=gpu Type=rtx_5090 File=/dev/nvidia0 DmemRegion=drm/0000:01:00.0/vram0\n"
                                       "Name=shard Type=rtx_5090 Count=16\n",
                       .nodeGres = "gpu:rtx_5090:1,gpu:rtx_5060_ti:1,shard:rtx_5090:16",
                       .constrainDeviceMemory = true});
  REQUIRE_FALSE(run.result.ok());
  CHECK(run.result.error() ==
        "gres.conf:2: DmemRegion=drm/0000:01:00.0/vram0 names no dmem region of node (available: "
        "nvidia/0000:17:00/vidmem, nvidia/0000:b3:00/vidmem, drm/0000:79:00.0/vram, drm/0000:79:00.0/gtt)");
}

TEST_CASE("a GPU without a dmem region stays unenforced", "[gres][dmem]") {
  auto run = runMerge({.host = "pcie4-linked-pairs", .autoDetect = "nvml", .gresConfText = "AutoDetect=nvml\nName=shard Count=4\n",
                       .nodeGres = "gpu:4,shard:4", .constrainDeviceMemory = true});
  REQUIRE(run.result.ok());
  REQUIRE(run.result->log.size() == 4);
  CHECK(run.result->log[0] == "shard: /dev/nvidia0 shards=1 region=none dmem=off");
}
