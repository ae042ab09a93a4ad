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

TEST_CASE("oneapi and nrt are not available in this build", "[detect][dispatch]") {
  auto gpus = detect::detectGpus(fixtureOptions("nvlink8-2socket", "oneapi"), nullptr);
  REQUIRE_FALSE(gpus.ok());
  CHECK(gpus.error() == "AutoDetect=oneapi: not available in this build (supported: nvml, nvidia, rsmi, amd, full, off)");
  auto nrt = detect::detectGpus(fixtureOptions("nvlink8-2socket", "nrt"), nullptr);
  REQUIRE_FALSE(nrt.ok());
  CHECK(nrt.error().starts_with("AutoDetect=nrt: not available in this build"));
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

TEST_CASE("Type matching: equal or substring, spaces as underscores", "[detect][dispatch]") {
  CHECK(detect::typeFromName("NVIDIA GeForce RTX 5090") == "nvidia_geforce_rtx_5090");
  CHECK(detect::typeMatches("rtx_5090", "nvidia_geforce_rtx_5090"));
  CHECK(detect::typeMatches("geforce", "nvidia_geforce_rtx_5090"));
  CHECK(detect::typeMatches("RTX_5090", "nvidia_geforce_rtx_5090"));
  CHECK_FALSE(detect::typeMatches("rtx_5060_ti", "nvidia_geforce_rtx_5090"));
  CHECK(detect::typeMatches("a100", "nvidia_a100_3g.20gb"));
}
