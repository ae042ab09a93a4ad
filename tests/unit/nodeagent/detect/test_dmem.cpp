#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "fixture_hosts.h"
#include "nodeagent/detect/dmem.h"

using namespace gantry;
using gantry::testing::fixtureHost;
using gantry::testing::fixtureOptions;

TEST_CASE("dmem regions are read from the cgroup root", "[detect][dmem]") {
  auto regions = detect::readDmemRegions(fixtureHost("mixed3-dmem"));
  REQUIRE(regions.ok());
  REQUIRE(regions->size() == 4);
  CHECK((*regions)[0].name == "nvidia/0000:17:00/vidmem");
  CHECK((*regions)[0].capacityBytes == 32607ULL * 1024 * 1024);
}

TEST_CASE("a node without dmem has no regions", "[detect][dmem]") {
  auto regions = detect::readDmemRegions(fixtureHost("pcie4-linked-pairs"));
  REQUIRE(regions.ok());
  CHECK(regions->empty());
}

TEST_CASE("regions match GPUs by PCI address, VRAM kinds only", "[detect][dmem]") {
  auto regions = detect::readDmemRegions(fixtureHost("mixed3-dmem"));
  REQUIRE(regions.ok());
  CHECK(detect::regionForBusId(*regions, "00000000:17:00.0")->name == "nvidia/0000:17:00/vidmem");
  CHECK(detect::regionForBusId(*regions, "0000:79:00.0")->name == "drm/0000:79:00.0/vram");
  CHECK_FALSE(detect::regionForBusId(*regions, "0000:18:00.0").has_value());

  auto gpus = detect::detectGpus(fixtureOptions("mixed3-dmem", "nvml"), nullptr);
  REQUIRE(gpus.ok());
  detect::attachDmemRegions(*gpus, *regions);
  CHECK((*gpus)[0].dmemRegion == "nvidia/0000:17:00/vidmem");
  CHECK((*gpus)[1].dmemRegion == "nvidia/0000:b3:00/vidmem");
  CHECK((*gpus)[1].dmemCapacityBytes == 16311ULL * 1024 * 1024);
}

TEST_CASE("device files resolve to PCI addresses", "[detect][dmem]") {
  auto root = fixtureHost("mixed3-dmem");
  CHECK(detect::busIdOfDeviceFile(root, "/dev/nvidia1") == "0000:b3:00.0");
  CHECK(detect::busIdOfDeviceFile(root, "/dev/dri/renderD128") == "0000:79:00.0");
  CHECK_FALSE(detect::busIdOfDeviceFile(root, "/dev/nvidia7").has_value());
}

TEST_CASE("a malformed dmem.capacity line names file and line", "[detect][dmem]") {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / "gantry-dmem-bad";
  fs::create_directories(root / "sys/fs/cgroup");
  std::ofstream(root / "sys/fs/cgroup/dmem.capacity") << "drm/0000:03:00.0/vram0 8589934592\ndrm/0000:04:00.0/vram0 lots\n";
  auto regions = detect::readDmemRegions(root.string());
  REQUIRE_FALSE(regions.ok());
  CHECK(regions.error() == (root / "sys/fs/cgroup/dmem.capacity").string() +
                               ":2: expected '<region> <capacity in bytes>', got 'drm/0000:04:00.0/vram0 lots'");
  fs::remove_all(root);
}
