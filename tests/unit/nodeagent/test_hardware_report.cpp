// The agent's registration content: merged records in device order with
// per-name indexes, shard dmem slices, drain reasons, and `gantryd -C`.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "detect/fixture_hosts.h"
#include "nodeagent/detect/uptime.h"
#include "nodeagent/hardware_report.h"

using namespace gantry;
namespace fs = std::filesystem;

namespace {

// A configuration directory holding `files` (name -> text), removed again
// at the end of the test.
struct ConfDir {
  fs::path path;
  ConfDir(const std::string& name, const std::vector<std::pair<std::string, std::string>>& files)
      : path(fs::temp_directory_path() / name) {
    fs::remove_all(path);
    fs::create_directories(path);
    for (const auto& [file, text] : files) std::ofstream(path / file) << text;
  }
  ~ConfDir() { fs::remove_all(path); }
};

struct Setup {
  config::GantryConf conf;
  config::NodeConf node;
  agent::ReportOptions options;
};

Setup setupFor(const std::string& host, const ConfDir& dir) {
  gantry::testing::fixtureOptions(host, "");  // points the fake libraries at the host's data
  auto loaded = config::loadGantryConf(dir.path / "gantry.conf");
  if (!loaded) FAIL(loaded.error());
  Setup setup{.conf = loaded->conf, .node = *loaded->conf.findNode("node0"), .options = {}};
  setup.options.confDir = dir.path.string();
  setup.options.hostRoot = gantry::testing::fixtureHost(host);
  setup.options.nvmlLibrary = GANTRY_FAKE_NVML_PATH;
  return setup;
}

const char* kMixedGantryConf =
    "ClusterName=hw\nSlurmctldHost=localhost\nGresTypes=gpu,shard\nTaskPlugin=task/cgroup\n"
    "NodeName=node0 CPUs=32 Gres=gpu:rtx_5090:1,gpu:rtx_5060_ti:1,gpu:amd_granite:1,"
    "shard:rtx_5090:16,shard:rtx_5060_ti:16,shard:amd_granite:4\n";
const char* kMixedGresConf =
    "AutoDetect=nvml\n"
    "Name=gpu Type=rtx_5060_ti File=/dev/nvidia1 DmemRegion=off\n"
    "Name=gpu Type=amd_granite File=/dev/dri/renderD128\n"
    "Name=shard Type=rtx_5090 Count=16\nName=shard Type=rtx_5060_ti Count=16\nName=shard Type=amd_granite Count=4\n";

}  // namespace

TEST_CASE("registration carries the merged records in device order", "[agent][hardware]") {
  ConfDir dir("gantry-hw-mixed", {{"gantry.conf", kMixedGantryConf},
                                         {"gres.conf", kMixedGresConf},
                                         {"cgroup.conf", "ConstrainDevices=yes\nConstrainDeviceMemory=yes\n"}});
  Setup setup = setupFor("mixed3-dmem", dir);
  auto report = agent::collectHardware(setup.conf, setup.node, setup.options);
  REQUIRE(report.ok());
  const v1::NodeHardware& hw = report->hardware;
  CHECK(hw.cpus() == 32);
  CHECK(hw.sockets() == 1);
  REQUIRE(hw.gres_size() == 6);
  CHECK(hw.gres(0).name() == "gpu");
  CHECK(hw.gres(0).type() == "rtx_5090");
  CHECK(hw.gres(0).index() == 0);
  CHECK(hw.gres(0).files(0) == "/dev/nvidia0");
  CHECK(hw.gres(0).pci_bus_id() == "0000:17:00.0");
  CHECK(hw.gres(2).index() == 2);
  CHECK(hw.gres(2).files(0) == "/dev/dri/renderD128");
  // Shard records ride on their GPUs: no index of their own, their count,
  // and the per-shard dmem slice (none where DmemRegion=off).
  CHECK(hw.gres(3).name() == "shard");
  CHECK(hw.gres(3).index() == -1);
  CHECK(hw.gres(3).count() == 16);
  CHECK(hw.gres(3).dmem_slice_bytes() / (1024 * 1024) == 2037);
  CHECK(hw.gres(0).dmem_slice_bytes() == hw.gres(3).dmem_slice_bytes());
  CHECK(hw.gres(4).dmem_slice_bytes() == 0);
  CHECK(report->errors.empty());
  CHECK(std::find(report->log.begin(), report->log.end(),
                  "shard: /dev/nvidia0 shards=16 region=nvidia/0000:17:00/vidmem capacity=32607MiB slice=2037MiB "
                  "dmem=enforced") != report->log.end());
  CHECK(std::find(report->log.begin(), report->log.end(),
                  "shard: /dev/nvidia1 shards=16 region=nvidia/0000:b3:00/vidmem dmem=off") != report->log.end());
}

TEST_CASE("registration names the dmem region of each enforced device", "[agent][hardware]") {
  // One GPU given by File (no autodetection), its shards by File too.
  ConfDir dir("gantry-hw-dmem-region",
              {{"gantry.conf", "ClusterName=hw\nSlurmctldHost=localhost\nGresTypes=gpu,shard\nTaskPlugin=task/cgroup\n"
                               "NodeName=node0 CPUs=32 Gres=gpu:l4:1,shard:10\n"},
               {"gres.conf", "AutoDetect=off\nName=gpu Type=l4 File=/dev/nvidia1\nName=shard Count=10 File=/dev/nvidia1\n"},
               {"cgroup.conf", "ConstrainDevices=yes\nConstrainDeviceMemory=yes\n"}});
  Setup setup = setupFor("mixed3-dmem", dir);
  auto report = agent::collectHardware(setup.conf, setup.node, setup.options);
  REQUIRE(report.ok());
  const v1::NodeHardware& hw = report->hardware;
  REQUIRE(hw.gres_size() == 2);
  for (const auto& device : hw.gres()) {
    CHECK(device.dmem_region() == "nvidia/0000:b3:00/vidmem");
    CHECK(device.dmem_slice_bytes() == 16311ULL * 1024 * 1024 / 10);
  }
}

TEST_CASE("without ConstrainDeviceMemory no dmem slice is registered", "[agent][hardware]") {
  ConfDir dir("gantry-hw-mixed-nodmem", {{"gantry.conf", kMixedGantryConf}, {"gres.conf", kMixedGresConf}});
  Setup setup = setupFor("mixed3-dmem", dir);
  auto report = agent::collectHardware(setup.conf, setup.node, setup.options);
  REQUIRE(report.ok());
  for (const auto& device : report->hardware.gres()) CHECK(device.dmem_slice_bytes() == 0);
}

TEST_CASE("detected GPUs that gantry.conf does not account for become drain reasons", "[agent][hardware]") {
  ConfDir dir("gantry-hw-nv8", {{"gantry.conf", "ClusterName=hw\nSlurmctldHost=localhost\nGresTypes=gpu,shard\n"
                                                       "NodeName=node0 CPUs=64 Gres=gpu:4\n"},
                                       {"gres.conf", "AutoDetect=nvml\n"}});
  Setup setup = setupFor("nvlink8-2socket", dir);
  auto report = agent::collectHardware(setup.conf, setup.node, setup.options);
  REQUIRE(report.ok());
  CHECK(report->hardware.gres_size() == 8);
  REQUIRE(report->errors.size() == 1);
  CHECK(report->errors[0].rfind("gres/gpu: 4 detected device(s) not in gantry.conf Gres=gpu:4 of node node0", 0) == 0);
  // Links between the NVLinked GPUs travel with the registration.
  CHECK(std::vector<int>(report->hardware.gres(0).links().begin(), report->hardware.gres(0).links().end()) ==
        std::vector<int>{-1, 2, 2, 2, 2, 2, 2, 2});
}

TEST_CASE("a cgroup.conf that does not load stops the agent", "[agent][hardware]") {
  ConfDir dir("gantry-hw-badcgroup", {{"gantry.conf", kMixedGantryConf},
                                             {"gres.conf", kMixedGresConf},
                                             {"cgroup.conf", "ConstrainDeviceMemory=yes\n"}});
  Setup setup = setupFor("mixed3-dmem", dir);
  auto report = agent::collectHardware(setup.conf, setup.node, setup.options);
  REQUIRE_FALSE(report.ok());
  CHECK(report.error().find("cgroup.conf") != std::string::npos);
}

TEST_CASE("gantryd -C prints the node line even when GPU affinity splits a socket", "[agent][hardware]") {
  ConfDir dir("gantry-hw-l3", {{"gantry.conf", "ClusterName=hw\nSlurmctldHost=localhost\nGresTypes=gpu,shard\n"
                                                      "NodeName=node0 CPUs=32 Gres=gpu:2\n"},
                                      {"gres.conf", "AutoDetect=nvml\n"}});
  Setup setup = setupFor("many-l3-1socket", dir);
  // A real start refuses this node: the A100s are local to one L3 each.
  CHECK_FALSE(agent::collectHardware(setup.conf, setup.node, setup.options).ok());
  auto plain = agent::formatNodeReport(setup.conf, setup.node, setup.options);
  REQUIRE(plain.ok());
  CHECK(plain->rfind("NodeName=node0 CPUs=32 Boards=1 SocketsPerBoard=1 CoresPerSocket=16 ThreadsPerCore=2 "
                     "RealMemory=131072 Gres=gpu:nvidia_a100-pcie-40gb:2\n", 0) == 0);
  setup.options.parameters = {"l3cache_as_socket"};
  auto l3 = agent::formatNodeReport(setup.conf, setup.node, setup.options);
  REQUIRE(l3.ok());
  CHECK(l3->rfind(
            "NodeName=node0 CPUs=32 Boards=1 SocketsPerBoard=8 CoresPerSocket=2 ThreadsPerCore=2 RealMemory=131072 "
            "Parameters=l3cache_as_socket Gres=gpu:nvidia_a100-pcie-40gb:2\n"
            "Found gpu:nvidia_a100-pcie-40gb:2 with Autodetect=nvml (Substring of gpu name may be used instead)\n"
            "UpTime=",
            0) == 0);
  // With the parameter the same node starts.
  CHECK(agent::collectHardware(setup.conf, setup.node, setup.options).ok());
}

TEST_CASE("gantryd -C ends with the node's UpTime as days-hh:mm:ss", "[agent][hardware][uptime]") {
  ConfDir dir("gantry-hw-uptime", {{"gantry.conf", "ClusterName=hw\nSlurmctldHost=localhost\nGresTypes=gpu\n"
                                                   "NodeName=node0 CPUs=48 Gres=gpu:6\n"},
                                    {"gres.conf", "AutoDetect=nrt\n"}});
  Setup setup = setupFor("neuron6-ring", dir);
  auto report = agent::formatNodeReport(setup.conf, setup.node, setup.options);
  REQUIRE(report.ok());
  // The fixture's /proc/uptime says 200885.43 seconds.
  CHECK(*report ==
        "NodeName=node0 CPUs=48 Boards=1 SocketsPerBoard=2 CoresPerSocket=12 ThreadsPerCore=2 RealMemory=393216 "
        "Gres=gpu:trainium2:6\n"
        "Found gpu:trainium2:6 with Autodetect=nrt (Substring of gpu name may be used instead)\n"
        "UpTime=2-07:48:05\n");
}

TEST_CASE("UpTime counts whole days, then hours, minutes and seconds", "[agent][hardware][uptime]") {
  CHECK(detect::formatUptime(0) == "0-00:00:00");
  CHECK(detect::formatUptime(59) == "0-00:00:59");
  CHECK(detect::formatUptime(86399) == "0-23:59:59");
  CHECK(detect::formatUptime(86400 * 41 + 3600 * 5 + 60 * 17 + 3) == "41-05:17:03");
}

TEST_CASE("a gres.conf UUID that differs from the detected GPU omits that GPU", "[agent][hardware][uuid]") {
  const char* gantryConf = "ClusterName=hw\nSlurmctldHost=localhost\nGresTypes=gpu\nNodeName=node0 CPUs=32 Gres=gpu:4\n";
  SECTION("matching UUID: the GPU stays") {
    ConfDir dir("gantry-hw-uuid-ok", {{"gantry.conf", gantryConf},
                                      {"gres.conf", "AutoDetect=nvml\nName=gpu Type=a6000 File=/dev/nvidia2 "
                                                    "UUID=GPU-5f3a9c21-d7e8-4b6d-3906-9604f5708ef6\n"}});
    Setup setup = setupFor("pcie4-linked-pairs", dir);
    auto report = agent::collectHardware(setup.conf, setup.node, setup.options);
    REQUIRE(report.ok());
    CHECK(report->hardware.gres_size() == 4);
    CHECK(report->errors.empty());
  }
  SECTION("another UUID: the GPU is left out with an error naming both") {
    ConfDir dir("gantry-hw-uuid-bad", {{"gantry.conf", gantryConf},
                                       {"gres.conf", "AutoDetect=nvml\nName=gpu Type=a6000 File=/dev/nvidia2 "
                                                     "UUID=GPU-00000000-0000-0000-0000-000000000000\n"}});
    Setup setup = setupFor("pcie4-linked-pairs", dir);
    auto report = agent::collectHardware(setup.conf, setup.node, setup.options);
    REQUIRE(report.ok());
    REQUIRE(report->hardware.gres_size() == 3);
    for (const auto& device : report->hardware.gres()) CHECK(device.files(0) != "/dev/nvidia2");
    REQUIRE(report->errors.size() == 1);
    CHECK_THAT(report->errors[0],
               Catch::Contains("gres/gpu: detected GPU 0000:41:00.0 (/dev/nvidia2) has "
                               "UUID=GPU-5f3a9c21-d7e8-4b6d-3906-9604f5708ef6 but gres.conf says "
                               "UUID=GPU-00000000-0000-0000-0000-000000000000; the GPU is omitted from node node0"));
    CHECK_THAT(agent::formatGresReport(*report), Catch::Contains("omitted: Name=gpu Type=nvidia_rtx_a6000"));
  }
  SECTION("UUID on a line of several devices is refused with file and line") {
    ConfDir dir("gantry-hw-uuid-many", {{"gantry.conf", gantryConf},
                                        {"gres.conf", "AutoDetect=nvml\nName=gpu File=/dev/nvidia[0-1] UUID=GPU-x\n"}});
    Setup setup = setupFor("pcie4-linked-pairs", dir);
    auto report = agent::collectHardware(setup.conf, setup.node, setup.options);
    REQUIRE_FALSE(report.ok());
    CHECK_THAT(report.error(), Catch::Contains("gres.conf:2: UUID= names one device, but the line describes 2"));
  }
}
