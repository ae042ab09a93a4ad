#include <catch2/catch.hpp>

#include "stepd/core/dmem_limits.h"

using namespace gantry::stepd;

namespace {
// The spec's 16 GB GPU split into 16 shards: the slice is the detected
// capacity divided by 16 (1000 MiB and a little more).
GpuAllocation shardGpu(int64_t shares, std::string region = "nvidia/0000:01:00/vidmem") {
  return {.index = 0, .name = "shard", .pci_bus_id = "0000:01:00.0", .vendor = "nvidia", .shares = shares,
          .share_count = 16, .dmem_region = std::move(region), .dmem_slice_bytes = 1049429504ULL};
}
}  // namespace

TEST_CASE("three shards are limited to three slices", "[stepd][dmem]") {
  auto limits = dmemLimits({shardGpu(3)}, true);
  REQUIRE(limits.size() == 1);
  CHECK(limits[0].region == "nvidia/0000:01:00/vidmem");
  CHECK(limits[0].bytes == 3148288512ULL);
  CHECK(shardMemPerGpuValue(limits) == "0000:01:00.0=3002M");
}

TEST_CASE("the RTX 5090 example gives 8151M for four shards", "[stepd][dmem]") {
  // 32607 MiB and a fraction, 16 shards: slice 2037.9 MiB.
  GpuAllocation gpu{.index = 0, .name = "shard", .pci_bus_id = "0000:17:00.0", .shares = 4, .share_count = 16,
                    .dmem_region = "nvidia/0000:17:00/vidmem", .dmem_slice_bytes = 32607ULL * 1048576 / 16 + 4096};
  CHECK(shardMemPerGpuValue(dmemLimits({gpu}, true)) == "0000:17:00.0=8151M");
}

TEST_CASE("unenforced devices get no limit", "[stepd][dmem]") {
  CHECK(dmemLimits({shardGpu(3)}, false).empty());
  CHECK(dmemLimits({shardGpu(3, "off")}, true).empty());
  CHECK(dmemLimits({shardGpu(3, "")}, true).empty());
  auto whole = shardGpu(0);
  whole.name = "gpu";
  CHECK(dmemLimits({whole}, true).empty());
  CHECK(shardMemPerGpuValue({}).empty());
}

TEST_CASE("two devices give two pairs in allocation order", "[stepd][dmem]") {
  auto second = shardGpu(2, "drm/0000:79:00.0/vram");
  second.index = 1;
  second.pci_bus_id = "0000:79:00.0";
  second.dmem_slice_bytes = 1020ULL * 1048576;
  auto limits = dmemLimits({shardGpu(1), second}, true);
  REQUIRE(limits.size() == 2);
  CHECK(shardMemPerGpuValue(limits) == "0000:01:00.0=1000M,0000:79:00.0=2040M");
}
