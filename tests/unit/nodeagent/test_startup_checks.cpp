// The start-up checks shared by the real start and `gantryd --check-config`.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "detect/fixture_hosts.h"
#include "nodeagent/startup_checks.h"
#include "tests/unit/support/scratch.h"

using namespace gantry;
namespace fs = std::filesystem;

namespace {

agent::StartChecks checksFor(const testing::TempDir& dir, const std::string& host, const std::string& gresConf) {
  std::ofstream(dir.path() / "gantry.conf")
      << "ClusterName=c\nSlurmctldHost=localhost\nGresTypes=gpu\nNodeName=node0 CPUs=32 Gres=gpu:1\n";
  std::ofstream(dir.path() / "gres.conf") << gresConf;
  auto loaded = config::loadGantryConf(dir.path() / "gantry.conf");
  if (!loaded) FAIL(loaded.error());
  gantry::testing::fixtureOptions(host, "");
  agent::ReportOptions options{.confDir = dir.path().string(),
                               .hostRoot = gantry::testing::fixtureHost(host),
                               .parameters = {},
                               .nvmlLibrary = GANTRY_FAKE_NVML_PATH,
                               .rsmiLibrary = GANTRY_FAKE_RSMI_PATH};
  return agent::checkNodeStart(loaded->conf, *loaded->conf.findNode("node0"), options);
}

}  // namespace

TEST_CASE("configured Cores that split a socket of the node's real topology fail the start checks",
          "[agent][startup]") {
  testing::TempDir dir("gantry-startcheck");
  // a100-mig: 2 sockets of 8 cores; cores 0-2 are part of socket 0.
  auto split = checksFor(dir, "a100-mig", "AutoDetect=off\nName=gpu File=/dev/nvidia0 Cores=0-2\n");
  REQUIRE_FALSE(split.ok());
  REQUIRE(split.errors.size() == 1);
  CHECK(split.errors[0].ends_with(
      "gres.conf:2: gres/gpu GRES core specification 0-2 for node node0 doesn't match socket boundaries. "
      "(Socket 0 is cores 0-7)"));
  CHECK_FALSE(split.hardware);

  auto whole = checksFor(dir, "a100-mig", "AutoDetect=off\nName=gpu File=/dev/nvidia0 Cores=8-15\n");
  CHECK(whole.ok());
  CHECK(whole.hardware);
}

TEST_CASE("several fatal problems come back one per line", "[agent][startup]") {
  testing::TempDir dir("gantry-startcheck-many");
  auto checks = checksFor(dir, "many-l3-1socket", "AutoDetect=nvml\n");
  REQUIRE(checks.errors.size() == 2);
  CHECK(checks.errors[0].starts_with("_check_core_range_matches_sock: gres/gpu GRES autodetected core affinity 0-1"));
  CHECK(checks.errors[1].starts_with("_check_core_range_matches_sock: gres/gpu GRES autodetected core affinity 8-9"));
}
