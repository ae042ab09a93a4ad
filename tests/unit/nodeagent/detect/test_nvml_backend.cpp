#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "fixture_hosts.h"

using namespace gantry;
using gantry::testing::fixtureOptions;

TEST_CASE("AutoDetect=nvml: 8 GPUs all-to-all over NVLink", "[detect][nvml]") {
  std::vector<std::string> log;
  auto gpus = detect::detectGpus(fixtureOptions("nvlink8-2socket", "nvml"), &log);
  REQUIRE(gpus.ok());
  REQUIRE(gpus->size() == 8);
  CHECK((*gpus)[0].links == std::vector<int>{-1, 2, 2, 2, 2, 2, 2, 2});
  CHECK((*gpus)[5].links == std::vector<int>{2, 2, 2, 2, 2, -1, 2, 2});
  CHECK((*gpus)[0].files == std::vector<std::string>{"/dev/nvidia1"});
  CHECK((*gpus)[4].cores.front() == 16);
  CHECK((*gpus)[4].cores.size() == 16);
  CHECK((*gpus)[0].mechanism == "nvml");
  REQUIRE(log.size() == 1);
  CHECK(log[0] == "Found gpu:nvidia_h100_80gb_hbm3:8 with Autodetect=nvml (Substring of gpu name may be used instead)");
}

TEST_CASE("AutoDetect=nvml: two NVLink-bridged pairs", "[detect][nvml]") {
  auto gpus = detect::detectGpus(fixtureOptions("pcie4-linked-pairs", "nvml"), nullptr);
  REQUIRE(gpus.ok());
  REQUIRE(gpus->size() == 4);
  CHECK((*gpus)[0].links == std::vector<int>{-1, 4, 0, 0});
  CHECK((*gpus)[1].links == std::vector<int>{4, -1, 0, 0});
  CHECK((*gpus)[2].links == std::vector<int>{0, 0, -1, 4});
  CHECK((*gpus)[3].links == std::vector<int>{0, 0, 4, -1});
  CHECK((*gpus)[0].type == "nvidia_rtx_a6000");
}

TEST_CASE("AutoDetect=nvml: MIG instances replace their parent", "[detect][nvml][mig]") {
  std::vector<std::string> log;
  auto gpus = detect::detectGpus(fixtureOptions("a100-mig", "nvml"), &log);
  REQUIRE(gpus.ok());
  REQUIRE(gpus->size() == 3);
  CHECK((*gpus)[0].type == "nvidia_a100-sxm4-40gb");
  CHECK_FALSE((*gpus)[0].isMig);
  const auto& mig = (*gpus)[1];
  CHECK(mig.isMig);
  CHECK(mig.type == "nvidia_a100_3g.20gb");
  CHECK(mig.uuid.starts_with("MIG-"));
  CHECK(mig.files == std::vector<std::string>{"/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap147",
                                              "/dev/nvidia-caps/nvidia-cap148"});
  CHECK((*gpus)[2].files[1] == "/dev/nvidia-caps/nvidia-cap156");
  CHECK(mig.links.empty());
  CHECK(mig.cores.front() == 8);
  // The whole A100's NVLinks lead to a GPU now split into MIGs: not a GRES peer.
  CHECK((*gpus)[0].links == std::vector<int>{-1, 0, 0});
  REQUIRE(log.size() == 2);
  CHECK(log[1] == "Found gpu:nvidia_a100_3g.20gb:2 with Autodetect=nvml (Substring of gpu name may be used instead)");
}

TEST_CASE("AutoDetect=nvml without a loadable library is an error", "[detect][nvml]") {
  auto options = fixtureOptions("pcie4-linked-pairs", "nvml");
  options.nvmlLibrary = "libgantry-no-such-nvml.so";
  auto gpus = detect::detectGpus(options, nullptr);
  REQUIRE_FALSE(gpus.ok());
  CHECK(gpus.error().starts_with("AutoDetect=nvml: NVML not loadable: "));
}

TEST_CASE("AutoDetect=nvml reports an NVML failure with the call", "[detect][nvml]") {
  auto options = fixtureOptions("pcie4-linked-pairs", "nvml");
  setenv("GANTRY_FAKE_NVML_FILE", "tests/fixtures/hosts/does-not-exist", 1);
  auto gpus = detect::detectGpus(options, nullptr);
  REQUIRE_FALSE(gpus.ok());
  CHECK(gpus.error() == "AutoDetect=nvml: nvmlInit_v2 failed (NVML error 9)");
}

TEST_CASE("AutoDetect=nvml: GPUs on an NVSwitch fabric are linked over their switch links", "[detect][nvml]") {
  auto options = fixtureOptions("nvlink8-2socket", "nvml");
  std::string data = (std::filesystem::temp_directory_path() / "gantry-fake-nvswitch.txt").string();
  {
    std::ofstream out(data);
    out << "gpu|NVIDIA H200|GPU-a|00000000:18:00.0|0|0-15|0\n"
        << "gpu|NVIDIA H200|GPU-b|00000000:2a:00.0|1|0-15|0\n"
        << "gpu|NVIDIA H200|GPU-c|00000000:3a:00.0|2|0-15|0\n";
    for (int link = 0; link < 18; ++link) out << "nvswitch|00000000:18:00.0\nnvswitch|00000000:2a:00.0\n";
  }
  setenv("GANTRY_FAKE_NVML_FILE", data.c_str(), 1);
  auto gpus = detect::detectGpus(options, nullptr);
  REQUIRE(gpus.ok());
  REQUIRE(gpus->size() == 3);
  CHECK((*gpus)[0].links == std::vector<int>{-1, 18, 0});
  CHECK((*gpus)[1].links == std::vector<int>{18, -1, 0});
  CHECK((*gpus)[2].links == std::vector<int>{0, 0, -1});  // not on the fabric
  std::filesystem::remove(data);
}
