// Every example in conf/ and every configuration snippet of the spec
// (tests/fixtures/spec-snippets/, one folder per snippet) must load.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "common/config/cgroup_conf.h"
#include "common/config/check_all.h"
#include "common/config/gantry_conf.h"
#include "common/config/gres_conf.h"
#include "common/config/gres_format.h"
#include "common/config/resctrl_conf.h"
#include "common/config/shared_gres.h"

namespace fs = std::filesystem;
using namespace gantry::config;

namespace {

std::vector<fs::path> subfolders(const fs::path& root) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory()) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Nodes a gres.conf should be checked for: those of gantry.conf and of its
// own NodeName lines, or a stand-in when neither names any.
std::set<std::string> nodesFor(const fs::path& dir, const GantryConf* gantry) {
  std::set<std::string> nodes;
  if (gantry) {
    for (const auto& node : gantry->nodes) nodes.insert(node.name);
  }
  GresLinesParse lines = parseGresLines(readConfFile(dir / "gres.conf"));
  for (const auto& line : lines.lines) nodes.insert(line.nodes.begin(), line.nodes.end());
  if (nodes.empty()) nodes.insert("node0");
  return nodes;
}

// Loads each file of a configuration folder with its own loader.
void loadFolder(const fs::path& dir) {
  INFO(dir.string());
  GantryConf gantry;
  bool hasGantry = fs::exists(dir / "gantry.conf");
  if (hasGantry) {
    auto loaded = loadGantryConf(dir / "gantry.conf");
    if (!loaded.ok()) FAIL(loaded.error());
    gantry = loaded->conf;
  }
  if (fs::exists(dir / "gres.conf")) {
    for (const auto& node : nodesFor(dir, hasGantry ? &gantry : nullptr)) {
      auto gres = loadGresConf(dir / "gres.conf", node);
      if (!gres.ok()) FAIL(gres.error());
      CHECK(gres->present);
      bool printed = formatGresRecords(gres.value()).find("Gres Name=") != std::string::npos;
      CHECK(printed == !gres->records.empty());
    }
  }
  if (fs::exists(dir / "cgroup.conf")) {
    auto cgroup = loadCgroupConf(dir / "cgroup.conf", gantry);
    if (!cgroup.ok()) FAIL(cgroup.error());
  }
  auto resctrl = loadResctrlConf(dir / "resctrl.yaml");
  if (!resctrl.ok()) FAIL(resctrl.error());
  CHECK(resctrl->present == fs::exists(dir / "resctrl.yaml"));
}

}  // namespace

TEST_CASE("conf/: every example folder loads without errors", "[config][examples]") {
  auto folders = subfolders("conf");
  REQUIRE(folders.size() >= 5);
  for (const auto& dir : folders) {
    loadFolder(dir);
    CheckReport report = checkAll(dir);
    INFO(report.toString());
    CHECK(report.ok());
  }
}

TEST_CASE("spec snippets: every configuration block of the spec loads", "[config][spec]") {
  auto folders = subfolders("tests/fixtures/spec-snippets");
  REQUIRE(folders.size() >= 20);
  for (const auto& dir : folders) loadFolder(dir);
}

TEST_CASE("spec snippet: GRES counts on a NodeName line", "[config][spec]") {
  auto c = loadGantryConf("tests/fixtures/spec-snippets/gres-configuration/gantry.conf");
  REQUIRE(c.ok());
  REQUIRE(c->conf.nodes.size() == 8);
  const auto& gres = c->conf.nodes[7].gres;
  REQUIRE(gres.size() == 4);
  CHECK(formatGresCount(gres[0]) == "gpu:tesla:2");
  CHECK(formatGresCount(gres[1]) == "gpu:kepler:2");
  CHECK(formatGresCount(gres[2]) == "mps:400");
  CHECK(formatGresCount(gres[3]) == "bandwidth:lustre:no_consume:4294967296");
}

TEST_CASE("spec snippet: chunk layouts per Type", "[config][spec][chunks]") {
  auto c = loadGresConf("tests/fixtures/spec-snippets/gres-chunk-types/gres.conf", "node1");
  REQUIRE(c.ok());
  REQUIRE(c->records.size() == 3);
  CHECK(c->records[0].chunkSizes == std::vector<uint32_t>{2, 4, 8, 16});
  CHECK(c->records[1].files.size() == 4);
  CHECK(c->records[2].chunkSizes.empty());
  auto order = loadGresConf("tests/fixtures/spec-snippets/gres-chunk-order/gres.conf", "node1");
  REQUIRE(order.ok());
  CHECK(order->records[0].chunkOrder ==
        std::vector<uint32_t>{0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15});
}

TEST_CASE("spec snippet: ChunkSizes=2,3,6 stops the node agent", "[config][spec][chunks][errors]") {
  auto c = parseGresConf("NodeName=node1 Name=gpu File=/dev/nvidia[0-5] ChunkSizes=2,3,6\n", "gres.conf", "node1");
  REQUIRE_FALSE(c.ok());
  CHECK_THAT(c.error(), Catch::StartsWith("gres.conf:1: ChunkSizes=2,3,6:"));
}

TEST_CASE("spec snippet: links pairs", "[config][spec]") {
  auto c = loadGresConf("tests/fixtures/spec-snippets/gres-links/gres.conf", "node0");
  REQUIRE(c.ok());
  REQUIRE(c->records.size() == 4);
  CHECK(c->records[2].links == std::vector<int>{0, 0, -1, 1});
}

TEST_CASE("spec snippet: MPS and shard forms resolve per GPU", "[config][spec][shared]") {
  const std::vector<GpuRef> gpus = {
      {"/dev/nvidia0", "gtx1080"}, {"/dev/nvidia1", "gtx1070"}, {"/dev/nvidia2", "gtx1060"}, {"/dev/nvidia3", "gtx1050"}};
  auto mps1 = loadGresConf("tests/fixtures/spec-snippets/gres-mps-1/gres.conf", "tux1");
  REQUIRE(mps1.ok());
  CHECK(resolveSharedCounts(planSharedGres(mps1.value(), "mps").value(), gpus, 0) ==
        std::vector<uint64_t>{100, 100, 100, 100});
  auto mps2 = loadGresConf("tests/fixtures/spec-snippets/gres-mps-2/gres.conf", "tux1");
  REQUIRE(mps2.ok());
  CHECK(resolveSharedCounts(planSharedGres(mps2.value(), "mps").value(), gpus, 0) ==
        std::vector<uint64_t>{1300, 1200, 1100, 1000});
  auto shard1 = loadGresConf("tests/fixtures/spec-snippets/gres-shard-1/gres.conf", "tux1");
  REQUIRE(shard1.ok());
  CHECK(resolveSharedCounts(planSharedGres(shard1.value(), "shard").value(), gpus, 0) ==
        std::vector<uint64_t>{8, 8, 8, 8});
  auto dmem = loadGresConf("tests/fixtures/spec-snippets/gres-dmem-2/gres.conf", "node2");
  REQUIRE(dmem.ok());
  const std::vector<GpuRef> mixed = {{"/dev/nvidia0", "rtx_5090"}, {"/dev/nvidia1", "rtx_5060_ti"},
                                     {"/dev/dri/renderD128", "amd_granite"}};
  CHECK(resolveSharedCounts(planSharedGres(dmem.value(), "shard").value(), mixed, 0) ==
        std::vector<uint64_t>{16, 16, 4});
  CHECK(dmem->records[0].dmemRegion == "off");
}

TEST_CASE("spec snippet: gang scheduling settings", "[config][spec][gang]") {
  auto timeslice = loadGantryConf("tests/fixtures/spec-snippets/gang-timeslice/gantry.conf");
  REQUIRE(timeslice.ok());
  CHECK(timeslice->conf.gangScheduling());
  CHECK(timeslice->conf.schedulerTimeSliceSec == 30);
  auto core = loadGantryConf("tests/fixtures/spec-snippets/gang-cr-core/gantry.conf");
  REQUIRE(core.ok());
  CHECK(core->conf.select.crCore);
  CHECK(core->conf.select.crMemory);
  auto cpu = loadGantryConf("tests/fixtures/spec-snippets/gang-cr-cpu/gantry.conf");
  REQUIRE(cpu.ok());
  CHECK(cpu->conf.select.crCpu);
  auto config = loadGantryConf("tests/fixtures/spec-snippets/gang-configuration/gantry.conf");
  REQUIRE(config.ok());
  CHECK(config->conf.partitions[0].overSubscribe == OverSubscribeMode::Force);
  CHECK(config->conf.partitions[0].overSubscribeCount == 6);
  CHECK(config->conf.defMemPerTaskMb == 1024);
  CHECK(config->conf.select.crMemory);
}

TEST_CASE("spec snippet: switch/lua settings", "[config][spec][switch]") {
  auto c = loadGantryConf("tests/fixtures/spec-snippets/switch-lua/gantry.conf");
  REQUIRE(c.ok());
  CHECK(c->conf.switchType == "switch/lua");
  CHECK(c->conf.switchTimeoutSec == 120);
  CHECK(c->conf.switchRetries == 5);
  CHECK_FALSE(c->conf.switchDrainOnFailure);
  CHECK(c->conf.disableJobShrink);
}

TEST_CASE("spec snippet: dmem shards need task/cgroup and ConstrainDevices", "[config][spec][cgroup]") {
  auto gantry = loadGantryConf("tests/fixtures/spec-snippets/gres-dmem-1/gantry.conf");
  REQUIRE(gantry.ok());
  auto cgroup = loadCgroupConf("tests/fixtures/spec-snippets/gres-dmem-1/cgroup.conf", gantry->conf);
  REQUIRE(cgroup.ok());
  CHECK(cgroup->constrainDeviceMemory);
  auto noTask = loadCgroupConf("tests/fixtures/spec-snippets/gres-dmem-1/cgroup.conf", GantryConf{});
  REQUIRE_FALSE(noTask.ok());
  CHECK_THAT(noTask.error(), Catch::Contains("cgroup.conf:3: ConstrainDeviceMemory=yes requires TaskPlugin"));
}

TEST_CASE("spec snippet: resctrl groups", "[config][spec][resctrl]") {
  auto r = loadResctrlConf("tests/fixtures/spec-snippets/resctrl/resctrl.yaml");
  REQUIRE(r.ok());
  REQUIRE(r->groups.size() == 3);
  CHECK(r->groups[0].name == "cpu_only");
  CHECK(r->groups[2].schemata == "MB:0=70;1=70\n");
}

TEST_CASE("checkAll reports every problem of every file at once", "[config][check]") {
  CheckReport report = checkAll("tests/fixtures/config/broken");
  std::string text = report.toString();
  INFO(text);
  CHECK_THAT(text, Catch::Contains("gantry.conf:3: SchedulerType=sched/wiki: must be one of"));
  CHECK_THAT(text, Catch::Contains("gantry.conf:5: unknown key \"FancyKey\" is ignored"));
  CHECK_THAT(text, Catch::Contains("gres.conf:2: ChunkSizes=2,3,6:"));
  CHECK_THAT(text, Catch::Contains("gres.conf:3: ChunkOrder is set without ChunkSizes"));
  CHECK_THAT(text, Catch::Contains("cgroup.conf:1: ConstrainDeviceMemory=yes requires ConstrainDevices=yes"));
  CHECK_THAT(text, Catch::Contains("resctrl.yaml: group gpu_two_per_socket is missing"));
  CHECK(report.errors.size() == 5);
}

TEST_CASE("checkAll: a folder without gantry.conf", "[config][check]") {
  CheckReport report = checkAll("tests/fixtures/config/no-such-folder");
  REQUIRE_FALSE(report.ok());
  CHECK_THAT(report.errors[0].toString(), Catch::Contains("gantry.conf: cannot open the file"));
}

TEST_CASE("spec snippet: a detected node line loads as configuration", "[config][spec]") {
  auto c = loadGantryConf("tests/fixtures/spec-snippets/gres-detected-node/gantry.conf");
  REQUIRE(c.ok());
  const NodeConf* node = c->conf.findNode("node0");
  REQUIRE(node);
  CHECK(node->sockets == 8);
  CHECK(node->coresPerSocket == 2);
  CHECK(node->threadsPerCore == 2);
  CHECK(node->cpus == 32);
  CHECK(node->realMemoryMb == 128762);
  CHECK(node->gres[0].type == "nvidia_a100-pcie-40gb");
  CHECK(node->hasParameter("l3cache_as_socket"));
}
