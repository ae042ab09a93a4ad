#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "fixture_hosts.h"

using namespace gantry;
using gantry::testing::fixtureOptions;

TEST_CASE("AutoDetect=amd: MI300X node through sysfs", "[detect][amd]") {
  std::vector<std::string> log;
  auto gpus = detect::detectGpus(fixtureOptions("amd8-xgmi", "amd"), &log);
  REQUIRE(gpus.ok());
  REQUIRE(gpus->size() == 8);
  const auto& first = (*gpus)[0];
  CHECK(first.type == "amd_instinct_mi300x_oam");
  CHECK(first.pciBusId == "0000:05:00.0");
  CHECK(first.files == std::vector<std::string>{"/dev/dri/renderD128", "/dev/dri/card1"});
  CHECK(first.uuid == "GPU-3a5c7e9b1d2f4068");
  CHECK(first.links == std::vector<int>{-1, 1, 1, 1, 1, 1, 1, 1});
  CHECK((*gpus)[7].links == std::vector<int>{1, 1, 1, 1, 1, 1, 1, -1});
  CHECK(first.cores.size() == 16);
  CHECK((*gpus)[4].cores.front() == 16);
  CHECK(first.vendor == "amd");
  REQUIRE(log.size() == 1);
  CHECK(log[0] == "Found gpu:amd_instinct_mi300x_oam:8 with Autodetect=amd (Substring of gpu name may be used instead)");
}

TEST_CASE("AutoDetect=amd: no product name gives the PCI device id", "[detect][amd]") {
  auto gpus = detect::detectGpus(fixtureOptions("mixed3-dmem", "amd"), nullptr);
  REQUIRE(gpus.ok());
  REQUIRE(gpus->size() == 1);
  CHECK((*gpus)[0].type == "0x13c0");
  CHECK((*gpus)[0].uuid.empty());
  CHECK((*gpus)[0].files == std::vector<std::string>{"/dev/dri/renderD128", "/dev/dri/card0"});
  CHECK((*gpus)[0].links.empty());  // no KFD topology on this host
}

TEST_CASE("AutoDetect=amd refuses compute partition modes other than SPX", "[detect][amd]") {
  namespace fs = std::filesystem;
  fs::path copy = fs::temp_directory_path() / "gantry-amd-cpx";
  fs::remove_all(copy);
  fs::copy("tests/fixtures/hosts/amd8-xgmi", copy, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  std::ofstream(copy / "sys/bus/pci/devices/0000:26:00.0/current_compute_partition") << "CPX\n";
  auto options = fixtureOptions("amd8-xgmi", "amd");
  options.hostRoot = copy.string();
  auto gpus = detect::detectGpus(options, nullptr);
  REQUIRE_FALSE(gpus.ok());
  CHECK(gpus.error() ==
        "AutoDetect=amd: GPU 0000:26:00.0 is in compute partition mode CPX; only SPX is supported "
        "(set it with amd-smi set --compute-partition SPX)");
  fs::remove_all(copy);
}

TEST_CASE("AutoDetect=rsmi: MI300X node through the ROCm SMI library", "[detect][rsmi]") {
  std::vector<std::string> log;
  auto gpus = detect::detectGpus(fixtureOptions("amd8-xgmi", "rsmi"), &log);
  REQUIRE(gpus.ok());
  REQUIRE(gpus->size() == 8);
  const auto& first = (*gpus)[0];
  CHECK(first.type == "amd_instinct_mi300x");
  CHECK(first.pciBusId == "0000:05:00.0");
  CHECK(first.files == std::vector<std::string>{"/dev/dri/renderD128", "/dev/dri/card1"});
  CHECK(first.uuid == "GPU-3a5c7e9b1d2f4068");
  CHECK(first.links == std::vector<int>{-1, 1, 1, 1, 1, 1, 1, 1});
  CHECK((*gpus)[6].cores.front() == 16);
  CHECK(first.mechanism == "rsmi");
}

TEST_CASE("AutoDetect=rsmi without the library is an error", "[detect][rsmi]") {
  auto options = fixtureOptions("amd8-xgmi", "rsmi");
  options.rsmiLibrary = "libgantry-no-such-rsmi.so";
  auto gpus = detect::detectGpus(options, nullptr);
  REQUIRE_FALSE(gpus.ok());
  CHECK(gpus.error().starts_with("AutoDetect=rsmi: ROCm SMI not loadable: "));
}
