#include <catch2/catch.hpp>

#include "common/gres/format.h"
#include "gres_builders.h"

using namespace gantry::gres;
using namespace gantry::gres::testing;

TEST_CASE("GresChunks for the untyped 4x4 fabric", "[gres][format]") {
  auto devices = gpus(16);
  std::vector<ChunkLayout> layouts{{"", {2, 4, 8, 16}, {0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15}}};
  CHECK(formatGresChunks(devices, layouts) ==
        "gpu:sizes=2/4/8/16;order=0/1/4/5/2/3/6/7/8/9/12/13/10/11/14/15");
}

TEST_CASE("GresChunks for the mixed a100/h100/l4 node", "[gres][format]") {
  auto devices = gpus(22, "a100");
  for (int i = 16; i < 20; ++i) devices[i].type = "h100";
  for (int i = 20; i < 22; ++i) devices[i].type = "l4";
  std::vector<ChunkLayout> layouts{{"a100", {2, 4, 8, 16}, {}}, {"h100", {2, 4}, {}}};
  CHECK(formatGresChunks(devices, layouts) ==
        "gpu:a100:sizes=2/4/8/16;order=0/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15,"
        "gpu:h100:sizes=2/4;order=0/1/2/3");
  CHECK(formatGresChunks(devices, {}) == "");
}

TEST_CASE("grant, used and total strings", "[gres][format]") {
  auto devices = gpus(4, "a100");
  devices[3].type = "l4";
  CHECK(formatDeviceGrant(devices, 0b0011) == "gpu:a100:2(IDX:0-1)");
  CHECK(formatDeviceGrant(devices, 0b1101) == "gpu:a100:2(IDX:0,2),gpu:l4:1(IDX:3)");
  CHECK(formatDeviceGrant(devices, 0) == "");
  CHECK(formatGresUsed(devices, 0b0001) == "gpu:a100:1(IDX:0),gpu:l4:0(IDX:N/A)");
  CHECK(formatGresTotals(devices, {{"bandwidth", 4ull << 30}}) == "gpu:a100:3,gpu:l4:1,bandwidth:4G");
  CHECK(formatCount(1000) == "1000");
  CHECK(formatCount(2048) == "2K");
  CHECK(formatDeviceGrant(gpus(2), 0b11) == "gpu:2(IDX:0-1)");
}
