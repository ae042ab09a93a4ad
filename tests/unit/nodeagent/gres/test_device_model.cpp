#include <catch2/catch.hpp>

#include "merge_fixture.h"
#include "nodeagent/gres/device_model.h"

using namespace gantry;
using gantry::testing::runMerge;

TEST_CASE("records become scheduler devices and chunk layouts", "[gres][device_model]") {
  auto run = runMerge({.host = "nvlink8-2socket",
                       .autoDetect = "nvml",
                       .gresConfText = "AutoDetect=nvml\n"
                                       "Name=gpu Type=h100 File=/dev/nvidia[0-7] ChunkSizes=2,4,8 ChunkOrder=0,1,2,3,4,5,6,7 "
                                       "Flags=explicit\n"
                                       "Name=shard Count=16\n",
                       .nodeGres = "gpu:h100:8,shard:16"});
  REQUIRE(run.result.ok());
  auto devices = nodegres::toDeviceInfos(run.result->records);
  REQUIRE(devices.size() == 8);  // shards are not devices
  CHECK(devices[0].type == "h100");
  CHECK(devices[0].explicitOnly);
  CHECK(devices[0].links.empty());
  auto layouts = nodegres::toChunkLayouts(run.result->records);
  REQUIRE(layouts.size() == 1);
  CHECK(layouts[0].type == "h100");
  CHECK(layouts[0].sizes == std::vector<int>{2, 4, 8});
  CHECK(layouts[0].order.size() == 8);
}
