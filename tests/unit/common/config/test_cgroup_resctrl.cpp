#include <catch2/catch.hpp>

#include "common/config/cgroup_conf.h"
#include "common/config/resctrl_conf.h"

using namespace gantry::config;

namespace {
GantryConf withTaskPlugins(const std::string& plugins) {
  auto loaded = parseGantryConf("TaskPlugin=" + plugins + "\n", "gantry.conf");
  REQUIRE(loaded.ok());
  return loaded->conf;
}
}  // namespace

TEST_CASE("cgroup.conf: every key", "[config][cgroup]") {
  auto c = parseCgroupConf(
      "CgroupMountpoint=/sys/fs/cgroup\nCgroupPlugin=cgroup/v2\nConstrainCores=yes\nConstrainRAMSpace=yes\n"
      "ConstrainSwapSpace=no\nConstrainDevices=yes\nConstrainDeviceMemory=yes\nEnableControllers=yes\n"
      "CgroupJobIdPaths=yes\nAllowedRAMSpace=98.5\nIgnoreSystemd=no\n",
      "cgroup.conf", withTaskPlugins("task/cgroup,task/affinity"));
  REQUIRE(c.ok());
  CHECK(c->plugin == "cgroup/v2");
  CHECK(c->constrainCores);
  CHECK(c->constrainRamSpace);
  CHECK(c->constrainDevices);
  CHECK(c->constrainDeviceMemory);
  CHECK(c->enableControllers);
  CHECK(c->cgroupJobIdPaths);
  CHECK(c->allowedRamSpacePercent == Approx(98.5));
}

TEST_CASE("cgroup.conf: ConstrainDeviceMemory needs ConstrainDevices", "[config][cgroup][errors]") {
  auto c = parseCgroupConf("ConstrainDevices=no\nConstrainDeviceMemory=yes\n", "cgroup.conf",
                           withTaskPlugins("task/cgroup"));
  REQUIRE_FALSE(c.ok());
  CHECK_THAT(c.error(), Catch::StartsWith("cgroup.conf:2: ConstrainDeviceMemory=yes requires ConstrainDevices=yes"));
}

TEST_CASE("cgroup.conf: ConstrainDeviceMemory needs task/cgroup", "[config][cgroup][errors]") {
  auto c = parseCgroupConf("ConstrainDevices=yes\nConstrainDeviceMemory=yes\n", "cgroup.conf",
                           withTaskPlugins("task/affinity"));
  REQUIRE_FALSE(c.ok());
  CHECK_THAT(c.error(), Catch::Contains("cgroup.conf:2: ConstrainDeviceMemory=yes requires TaskPlugin to include "
                                        "task/cgroup in gantry.conf"));
}

TEST_CASE("cgroup.conf: bad values and unknown keys", "[config][cgroup][errors]") {
  auto bad = parseCgroupConf("ConstrainCores=sometimes\nCgroupPlugin=cgroup/v3\n", "cgroup.conf", GantryConf{});
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error(), Catch::Contains("cgroup.conf:1: ConstrainCores=sometimes:") &&
                              Catch::Contains("cgroup.conf:2: CgroupPlugin=cgroup/v3: expected autodetect"));
  auto unknown = parseCgroupConf("Shiny=yes\n", "cgroup.conf", GantryConf{});
  REQUIRE(unknown.ok());
  CHECK(unknown->warnings[0].toString() == "cgroup.conf:1: unknown key \"Shiny\" is ignored");
}

TEST_CASE("cgroup.conf: a missing file gives defaults", "[config][cgroup]") {
  auto c = loadCgroupConf("tests/fixtures/config/no-such-cgroup.conf", GantryConf{});
  REQUIRE(c.ok());
  CHECK_FALSE(c->present);
  CHECK(c->mountPoint == "/sys/fs/cgroup");
}

namespace {
const char* kGoodResctrl =
    "mount_options: [mba_MBps]\n"
    "groups:\n"
    "  - name: gpu_two_per_socket\n    schemata: \"MB:0=70;1=70\\n\"\n"
    "  - name: cpu_only\n    schemata: |\n      MB:0=30;1=30\n"
    "  - name: gpu_one_per_socket\n    schemata: |\n      MB:0=35;1=35\n";
std::string resctrlError(const std::string& text) {
  auto r = parseResctrlConf(text, "resctrl.yaml");
  INFO(text);
  REQUIRE_FALSE(r.ok());
  return r.error();
}
}  // namespace

TEST_CASE("resctrl.yaml: groups keep file order", "[config][resctrl]") {
  auto r = parseResctrlConf(kGoodResctrl, "resctrl.yaml");
  REQUIRE(r.ok());
  REQUIRE(r->groups.size() == 3);
  CHECK(r->groups[0].name == "gpu_two_per_socket");
  CHECK(r->groups[1].name == "cpu_only");
  CHECK(r->groups[1].schemata == "MB:0=30;1=30\n");
  CHECK(r->groups[1].line == 5);
  CHECK(r->mountOptions == "mba_MBps");
}

TEST_CASE("resctrl.yaml: the three names, all required, no others", "[config][resctrl][errors]") {
  CHECK_THAT(resctrlError("groups:\n  - name: cpu_only\n    schemata: MB:0=1\n"),
             Catch::Contains("resctrl.yaml: group gpu_one_per_socket is missing") &&
                 Catch::Contains("group gpu_two_per_socket is missing"));
  CHECK_THAT(resctrlError(std::string(kGoodResctrl) + "  - name: extra\n    schemata: MB:0=1\n"),
             Catch::Contains("resctrl.yaml:11: group name \"extra\" is not accepted"));
  CHECK_THAT(resctrlError(std::string(kGoodResctrl) + "  - name: cpu_only\n    schemata: MB:0=1\n"),
             Catch::Contains("resctrl.yaml:11: group cpu_only is defined twice"));
  CHECK_THAT(resctrlError("groups:\n  - name: cpu_only\n"), Catch::Contains("resctrl.yaml:2: group cpu_only has no schemata"));
  CHECK_THAT(resctrlError("groups: 3\n"), Catch::Contains("resctrl.yaml:1: 'groups' must be a list"));
  CHECK_THAT(resctrlError("colour: blue\n"), Catch::Contains("resctrl.yaml:1: unknown key \"colour\"") &&
                                                 Catch::Contains("'groups' is missing"));
  CHECK_THAT(resctrlError("groups:\n  - name: cpu_only\n    schemata: [1]\n    size: 3\n"),
             Catch::Contains("resctrl.yaml:3: group schemata must be a string") &&
                 Catch::Contains("resctrl.yaml:4: unknown group key \"size\""));
  CHECK_THAT(resctrlError("groups: [\n"), Catch::Contains("not valid YAML"));
  CHECK_THAT(resctrlError("- a\n"), Catch::Contains("the top level must be a mapping"));
  CHECK_THAT(resctrlError(std::string(200, '[')), Catch::Contains("nests more than"));
}

TEST_CASE("resctrl.yaml: a missing file means no groups are managed", "[config][resctrl]") {
  auto r = loadResctrlConf("tests/fixtures/config/no-such-resctrl.yaml");
  REQUIRE(r.ok());
  CHECK_FALSE(r->present);
}
