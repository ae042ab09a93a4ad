#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "../detect/fixture_hosts.h"
#include "nodeagent/gres/format.h"
#include "nodeagent/gres/node_hardware.h"

using namespace gantry;

namespace {
std::string writeGresConf(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

nodegres::NodeHardwareOptions fixtureNode(const std::string& host) {
  gantry::testing::fixtureOptions(host, "");  // points the fakes at the host's data
  nodegres::NodeHardwareOptions options;
  options.nodeName = "node2";
  options.hostRoot = gantry::testing::fixtureHost(host);
  options.nvmlLibrary = GANTRY_FAKE_NVML_PATH;
  options.rsmiLibrary = GANTRY_FAKE_RSMI_PATH;
  return options;
}
}  // namespace

TEST_CASE("one call detects, loads gres.conf and merges", "[gres][node_hardware]") {
  auto options = fixtureNode("mixed3-dmem");
  options.gresConfPath = writeGresConf("gantry-mixed-gres.conf",
                                       "AutoDetect=nvml\n"
                                       "Name=gpu Type=rtx_5060_ti File=/dev/nvidia1 DmemRegion=off\n"
                                       "Name=gpu Type=amd_granite File=/dev/dri/renderD128\n"
                                       "Name=shard Type=rtx_5090 Count=16\n"
                                       "Name=shard Type=rtx_5060_ti Count=16\n"
                                       "Name=shard Type=amd_granite Count=4\n");
  options.nodeGres = *config::parseGresList(
      "gpu:rtx_5090:1,gpu:rtx_5060_ti:1,gpu:amd_granite:1,shard:rtx_5090:16,shard:rtx_5060_ti:16,shard:amd_granite:4");
  options.constrainDeviceMemory = true;
  auto hw = nodegres::loadNodeHardware(options);
  REQUIRE(hw.ok());
  CHECK(hw->autoDetect == "nvml");
  CHECK(hw->detected.size() == 2);
  CHECK(hw->detected[0].dmemRegion == "nvidia/0000:17:00/vidmem");
  CHECK(hw->merged.records.size() == 6);
  CHECK(hw->merged.log.size() == 3);
  CHECK(hw->detectLog == std::vector<std::string>{
                             "Found gpu:nvidia_geforce_rtx_5090:1 with Autodetect=nvml (Substring of gpu name may be used instead)",
                             "Found gpu:nvidia_geforce_rtx_5060_ti:1 with Autodetect=nvml (Substring of gpu name may be used instead)"});
  CHECK(nodegres::formatNodeLine("node2", hw->topology, hw->detected) ==
        "NodeName=node2 CPUs=32 Boards=1 SocketsPerBoard=1 CoresPerSocket=16 ThreadsPerCore=2 RealMemory=196608 "
        "Gres=gpu:nvidia_geforce_rtx_5090:1,gpu:nvidia_geforce_rtx_5060_ti:1");
}

TEST_CASE("gres.conf errors stop loading and name file and line", "[gres][node_hardware]") {
  auto options = fixtureNode("pcie4-linked-pairs");
  options.gresConfPath = writeGresConf("gantry-bad-gres.conf", "AutoDetect=nvml\nName=gpu File=/dev/nvidia[0-3] ChunkSizes=2,3\n");
  auto hw = nodegres::loadNodeHardware(options);
  REQUIRE_FALSE(hw.ok());
  CHECK(hw.error().find("gantry-bad-gres.conf:2:") != std::string::npos);
}

TEST_CASE("a missing gres.conf means no autodetect unless asked", "[gres][node_hardware]") {
  auto options = fixtureNode("pcie4-linked-pairs");
  options.gresConfPath = "tests/fixtures/hosts/no-such-gres.conf";
  auto hw = nodegres::loadNodeHardware(options);
  REQUIRE(hw.ok());
  CHECK(hw->detected.empty());

  options.autoDetectOverride = "full";
  auto detected = nodegres::loadNodeHardware(options);
  REQUIRE(detected.ok());
  CHECK(detected->detected.size() == 4);
}

TEST_CASE("a node with one GPU removed reports fewer devices", "[gres][node_hardware]") {
  namespace fs = std::filesystem;
  fs::path copy = fs::temp_directory_path() / "gantry-pcie4-missing";
  fs::remove_all(copy);
  fs::copy("tests/fixtures/hosts/pcie4-linked-pairs", copy, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::remove_all(copy / "proc/driver/nvidia/gpus/0000:61:00.0");
  auto options = fixtureNode("pcie4-linked-pairs");
  options.hostRoot = copy.string();
  options.autoDetectOverride = "nvidia";
  options.nodeGres = *config::parseGresList("gpu:4");
  auto hw = nodegres::loadNodeHardware(options);
  REQUIRE(hw.ok());
  CHECK(hw->merged.records.size() == 3);
  CHECK(hw->merged.drainReason.empty());  // fewer than configured is the controller's call
  fs::remove_all(copy);
}
