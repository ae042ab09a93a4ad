#include <algorithm>
#include <catch2/catch.hpp>

#include "fixture_hosts.h"

using namespace gantry;
using gantry::testing::fixtureOptions;

TEST_CASE("AutoDetect=off and unset detect nothing", "[detect][dispatch]") {
  for (const char* mechanism : {"off", ""}) {
    auto gpus = detect::detectGpus(fixtureOptions("nvlink8-2socket", mechanism), nullptr);
    REQUIRE(gpus.ok());
    CHECK(gpus->empty());
  }
}

TEST_CASE("oneapi is not available in this build", "[detect][dispatch]") {
  auto gpus = detect::detectGpus(fixtureOptions("nvlink8-2socket", "oneapi"), nullptr);
  REQUIRE_FALSE(gpus.ok());
  CHECK(gpus.error() ==
        "AutoDetect=oneapi: not available in this build (supported: nvml, nvidia, rsmi, amd, nrt, full, off)");
}

TEST_CASE("an unknown AutoDetect value is refused", "[detect][dispatch]") {
  auto gpus = detect::detectGpus(fixtureOptions("nvlink8-2socket", "cuda"), nullptr);
  REQUIRE_FALSE(gpus.ok());
  CHECK(gpus.error() == "AutoDetect=cuda: unknown mechanism (expected off, nvml, nvidia, rsmi, amd, oneapi, nrt or full)");
}

TEST_CASE("AutoDetect=full takes the first mechanism that finds devices", "[detect][dispatch]") {
  auto options = fixtureOptions("amd8-xgmi", "full");
  options.nvmlLibrary = "libgantry-no-such-nvml.so";
  std::vector<std::string> log;
  auto gpus = detect::detectGpus(options, &log);
  REQUIRE(gpus.ok());
  REQUIRE(gpus->size() == 8);
  CHECK((*gpus)[0].mechanism == "rsmi");
  CHECK(log.front().starts_with("AutoDetect=full: skipping nvml: NVML not loadable"));

  auto nvidia = detect::detectGpus(fixtureOptions("pcie4-linked-pairs", "full"), nullptr);
  REQUIRE(nvidia.ok());
  CHECK((*nvidia)[0].mechanism == "nvml");
}

TEST_CASE("AutoDetect=full logs and skips a library that loads but cannot start", "[detect][dispatch]") {
  // NVIDIA GPUs through the driver only; ROCm SMI is installed but its init
  // fails (the fake answers status 8 without a data file, as the real one
  // does on a node without amdgpu).
  auto options = fixtureOptions("pcie4-linked-pairs", "full");
  options.nvmlLibrary = "libgantry-no-such-nvml.so";
  unsetenv("GANTRY_FAKE_RSMI_FILE");
  std::vector<std::string> log;
  auto gpus = detect::detectGpus(options, &log);
  REQUIRE(gpus.ok());
  REQUIRE(gpus->size() == 4);
  CHECK((*gpus)[0].mechanism == "nvidia");
  CHECK(std::find(log.begin(), log.end(),
                  "AutoDetect=full: skipping rsmi: AutoDetect=rsmi: rsmi_init failed (ROCm SMI status 8)") != log.end());

  // Asked for by name, the same failure still stops detection.
  options.autoDetect = "rsmi";
  auto rsmi = detect::detectGpus(options, nullptr);
  REQUIRE_FALSE(rsmi.ok());
  CHECK(rsmi.error() == "AutoDetect=rsmi: rsmi_init failed (ROCm SMI status 8)");
}

TEST_CASE("AutoDetect=nrt finds neuron devices in numeric order with their ring links", "[detect][dispatch][nrt]") {
  std::vector<std::string> log;
  auto gpus = detect::detectGpus(fixtureOptions("neuron6-ring", "nrt"), &log);
  REQUIRE(gpus.ok());
  REQUIRE(gpus->size() == 6);
  std::vector<std::string> files;
  for (const auto& gpu : *gpus) files.push_back(gpu.files.front());
  CHECK(files == std::vector<std::string>{"/dev/neuron0", "/dev/neuron1", "/dev/neuron2", "/dev/neuron3",
                                          "/dev/neuron4", "/dev/neuron10"});
  CHECK((*gpus)[0].type == "trainium2");
  CHECK((*gpus)[0].mechanism == "nrt");
  CHECK((*gpus)[0].cores.empty());
  // Ring 0-1-2-3-4-10-0: each device links its two neighbours once.
  CHECK((*gpus)[0].links == std::vector<int>{-1, 1, 0, 0, 0, 1});
  CHECK((*gpus)[5].links == std::vector<int>{1, 0, 0, 0, 1, -1});
  CHECK(log == std::vector<std::string>{
                   "Found gpu:trainium2:6 with Autodetect=nrt (Substring of gpu name may be used instead)"});
}

TEST_CASE("AutoDetect=nrt on a node without the neuron driver finds nothing; full moves past it", "[detect][dispatch][nrt]") {
  std::vector<std::string> log;
  auto none = detect::detectGpus(fixtureOptions("many-l3-1socket", "nrt"), &log);
  REQUIRE(none.ok());
  CHECK(none->empty());
  REQUIRE(log.size() == 1);
  CHECK(log[0].starts_with("AutoDetect=nrt: no neuron driver"));

  auto options = fixtureOptions("neuron6-ring", "full");
  options.nvmlLibrary = "libgantry-no-such-nvml.so";
  auto full = detect::detectGpus(options, nullptr);
  REQUIRE(full.ok());
  REQUIRE(full->size() == 6);
  CHECK((*full)[0].mechanism == "nrt");
}

TEST_CASE("Type matching: equal or substring, spaces as underscores", "[detect][dispatch]") {
  CHECK(detect::typeFromName("NVIDIA GeForce RTX 5090") == "nvidia_geforce_rtx_5090");
  CHECK(detect::typeMatches("rtx_5090", "nvidia_geforce_rtx_5090"));
  CHECK(detect::typeMatches("geforce", "nvidia_geforce_rtx_5090"));
  CHECK(detect::typeMatches("RTX_5090", "nvidia_geforce_rtx_5090"));
  CHECK_FALSE(detect::typeMatches("rtx_5060_ti", "nvidia_geforce_rtx_5090"));
  CHECK(detect::typeMatches("a100", "nvidia_a100_3g.20gb"));
}
