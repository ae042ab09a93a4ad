#include <catch2/catch.hpp>

#include "fixture_hosts.h"

using namespace gantry;
using gantry::testing::fixtureOptions;

TEST_CASE("AutoDetect=nvidia reads the driver's procfs, sorted by bus id", "[detect][nvidia]") {
  auto options = fixtureOptions("nvlink8-2socket", "nvidia");
  std::vector<std::string> log;
  auto gpus = detect::detectGpus(options, &log);
  REQUIRE(gpus.ok());
  REQUIRE(gpus->size() == 8);
  CHECK((*gpus)[0].pciBusId == "0000:18:00.0");
  CHECK((*gpus)[0].files == std::vector<std::string>{"/dev/nvidia1"});  // minor differs from bus order
  CHECK((*gpus)[1].files == std::vector<std::string>{"/dev/nvidia0"});
  CHECK((*gpus)[0].type == "nvidia_h100_80gb_hbm3");
  CHECK((*gpus)[0].uuid.starts_with("GPU-"));
  CHECK((*gpus)[0].cores.size() == 16);
  CHECK((*gpus)[0].cores.front() == 0);
  CHECK((*gpus)[7].cores.front() == 16);
  CHECK((*gpus)[0].links.empty());  // the driver's procfs knows no NVLink
  CHECK((*gpus)[0].mechanism == "nvidia");
  REQUIRE(log.size() == 1);
  CHECK(log[0] == "Found gpu:nvidia_h100_80gb_hbm3:8 with Autodetect=nvidia (Substring of gpu name may be used instead)");
}

TEST_CASE("AutoDetect=nvidia shows no MIG instances", "[detect][nvidia]") {
  auto gpus = detect::detectGpus(fixtureOptions("a100-mig", "nvidia"), nullptr);
  REQUIRE(gpus.ok());
  REQUIRE(gpus->size() == 2);
  CHECK((*gpus)[1].type == "nvidia_a100-sxm4-40gb");
  CHECK_FALSE((*gpus)[1].isMig);
}

TEST_CASE("AutoDetect=nvidia on a node without the driver finds nothing", "[detect][nvidia]") {
  std::vector<std::string> log;
  auto gpus = detect::detectGpus(fixtureOptions("amd8-xgmi", "nvidia"), &log);
  REQUIRE(gpus.ok());
  CHECK(gpus->empty());
  REQUIRE(log.size() == 1);
  CHECK(log[0].find("NVIDIA kernel driver not loaded") != std::string::npos);
}
