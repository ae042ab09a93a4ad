#include <catch2/catch.hpp>

#include "common/config/gres_conf.h"
#include "common/config/gres_format.h"
#include "tests/unit/support/scratch.h"

using namespace gantry::config;

namespace {
GresConf mustParse(const std::string& text, const std::string& node = "node1") {
  auto conf = parseGresConf(text, "gres.conf", node);
  INFO(text);
  if (!conf.ok()) FAIL(conf.error());
  return conf.value();
}
bool iequalsMode(AutoDetect mode, std::string_view text) {
  std::string lower(text);
  for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return toString(mode) == lower;
}
std::string parseError(const std::string& text, const std::string& node = "node1") {
  auto conf = parseGresConf(text, "gres.conf", node);
  INFO(text);
  REQUIRE_FALSE(conf.ok());
  return conf.error();
}
}  // namespace

TEST_CASE("gres.conf: records with every property", "[config][gres]") {
  GresConf c = mustParse(
      "AutoDetect=nvml\n"
      "Name=gpu Type=a100 File=/dev/nvidia[0-1] Cores=0-15 Links=-1,2 Flags=env_uuid,nvidia_gpu_env DmemRegion=off\n"
      "Name=gpu Type=mig MultipleFiles=/dev/nvidia-caps/nvidia-cap[21-22],/dev/nvidia0\n"
      "Name=bandwidth Type=lustre Count=4G Flags=CountOnly\n"
      "Name=nic Count=2 Flags=explicit\n");
  CHECK(c.present);
  CHECK(c.autoDetect == AutoDetect::Nvml);
  REQUIRE(c.records.size() == 4);
  const GresRecord& gpu = c.records[0];
  CHECK(gpu.files == std::vector<std::string>{"/dev/nvidia0", "/dev/nvidia1"});
  CHECK(gpu.cores.size() == 16);
  CHECK(gpu.links == std::vector<int>{-1, 2});
  CHECK(gpu.flags.envUuid);
  CHECK(gpu.flags.nvidiaGpuEnv);
  CHECK(gpu.dmemRegion == "off");
  CHECK(gpu.deviceCount() == 2);
  CHECK(c.records[1].multipleFiles.size() == 3);
  CHECK(c.records[1].deviceCount() == 1);
  CHECK(c.records[2].count == (4ull << 30));
  CHECK(c.records[2].flags.countOnly);
  CHECK(c.records[3].flags.explicit_);
}

TEST_CASE("gres.conf: lines per node and AutoDetect per node", "[config][gres]") {
  const std::string text =
      "AutoDetect=nvml\nNodeName=node[0-1] AutoDetect=off\nNodeName=node0 Name=gpu File=/dev/nvidia0\n"
      "NodeName=node2 Name=gpu File=/dev/nvidia[0-3]\nName=mps Count=200\n";
  GresConf node0 = mustParse(text, "node0");
  CHECK(node0.autoDetect == AutoDetect::Off);
  REQUIRE(node0.records.size() == 2);
  CHECK(node0.records[0].files.size() == 1);
  GresConf node2 = mustParse(text, "node2");
  CHECK(node2.autoDetect == AutoDetect::Nvml);
  CHECK(node2.records[0].files.size() == 4);
  GresConf other = mustParse(text, "elsewhere");
  REQUIRE(other.records.size() == 1);
  CHECK(other.records[0].name == "mps");
}

TEST_CASE("gres.conf: every AutoDetect mode", "[config][gres]") {
  for (const char* mode : {"nvml", "nvidia", "rsmi", "amd", "nrt", "oneapi", "full", "off", "NVML"}) {
    GresConf c = mustParse(std::string("AutoDetect=") + mode + "\n");
    CHECK(iequalsMode(c.autoDetect, mode));
  }
}

TEST_CASE("gres.conf: chunk values parse", "[config][gres][chunks]") {
  GresConf c = mustParse(
      "NodeName=node1 Name=gpu File=/dev/nvidia[0-15] ChunkSizes=2,4,8,16 \\\n"
      "ChunkOrder=0,1,4,5,2,3,6,7,8,9,12,13,10,11,14,15\n");
  REQUIRE(c.records.size() == 1);
  CHECK(c.records[0].chunkSizes == std::vector<uint32_t>{2, 4, 8, 16});
  CHECK(c.records[0].chunkOrder.size() == 16);
  CHECK(parseChunkSizes("1,2,4").ok());
  CHECK(parseChunkSizes("1024").ok());
}

TEST_CASE("gres.conf: each node-agent start check names file, line and rule", "[config][gres][chunks][errors]") {
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      // ChunkSizes
      {"Name=gpu File=/dev/nvidia[0-5] ChunkSizes=2,x\n", "gres.conf:1: ChunkSizes=2,x: does not parse"},
      {"Name=gpu File=/dev/nvidia[0-5] ChunkSizes=2,,4\n", "does not parse"},
      {"Name=gpu File=/dev/nvidia[0-5] ChunkSizes=4,2\n", "gres.conf:1: ChunkSizes=4,2: sizes are not strictly ascending"},
      {"Name=gpu File=/dev/nvidia[0-5] ChunkSizes=2,2\n", "not strictly ascending"},
      {"Name=gpu File=/dev/nvidia[0-5] ChunkSizes=2,3,6\n",
       "gres.conf:1: ChunkSizes=2,3,6: 3 is not a multiple of 2 (each chunk size must be a multiple of the one before it)"},
      {"Name=gpu File=/dev/nvidia[0-5] ChunkSizes=0,2\n", "size 0 is out of range (each chunk size must be from 1 to 1024)"},
      {"Name=gpu File=/dev/nvidia[0-5] ChunkSizes=1024,2048\n", "size 2048 is out of range"},
      // ChunkOrder
      {"Name=gpu File=/dev/nvidia[0-3] ChunkSizes=2 ChunkOrder=0,a,2,3\n", "gres.conf:1: ChunkOrder=0,a,2,3: does not parse"},
      {"Name=gpu File=/dev/nvidia[0-3] ChunkSizes=2 ChunkOrder=0,1,1,3\n", "entry 1 is repeated"},
      {"Name=gpu File=/dev/nvidia[0-3] ChunkSizes=2 ChunkOrder=0,1,2,4\n",
       "entry 4 is outside the range its length allows (0-3)"},
      // ChunkOrder without ChunkSizes, ChunkSizes without files
      {"Name=gpu File=/dev/nvidia[0-3] ChunkOrder=0,1,2,3\n", "gres.conf:1: ChunkOrder is set without ChunkSizes"},
      {"Name=gpu Count=4 ChunkSizes=2,4\n", "gres.conf:1: ChunkSizes needs File or MultipleFiles"},
      // lines of one Name and Type disagree, or one sets none
      {"Name=gpu Type=a File=/dev/nvidia[0-3] ChunkSizes=2,4\nName=gpu Type=a File=/dev/nvidia[4-7] ChunkSizes=4\n",
       "gres.conf:2: Name=gpu Type=a: ChunkSizes=4 ChunkOrder= differ from ChunkSizes=2,4"},
      {"Name=gpu Type=a File=/dev/nvidia[0-3] ChunkSizes=2,4\nName=gpu Type=a File=/dev/nvidia[4-7]\n",
       "gres.conf:2: Name=gpu Type=a: sets no chunk values while another line on node node1 (line 1 of gres.conf) sets them"},
      {"Name=gpu File=/dev/nvidia[0-3] ChunkSizes=2 ChunkOrder=0,1,2,3\nName=gpu File=/dev/nvidia[4-7] ChunkSizes=2 "
       "ChunkOrder=1,0,2,3\n",
       "differ from"},
      // other value checks
      {"AutoDetect=magic\n", "gres.conf:1: AutoDetect=magic: expected nvml, nvidia, rsmi, amd, nrt, oneapi, full or off"},
      {"Name=gpu File=/dev/nvidia[0-\n", "gres.conf:1: File=/dev/nvidia[0-: hostlist"},
      {"Name=gpu File=/dev/nvidia0 Cores=a-b\n", "gres.conf:1: Cores=a-b:"},
      {"Name=gpu File=/dev/nvidia0 Links=-1,x\n", "gres.conf:1: Links=-1,x: \"x\" is not a link count"},
      {"Name=gpu File=/dev/nvidia0 Links=-2\n", "is not a link count"},
      {"Name=bw Count=4Q\n", "gres.conf:1: Count=4Q:"},
      {"Name=gpu File=/dev/nvidia0 Flags=sparkly\n", "gres.conf:1: Flags=sparkly: unknown flag \"sparkly\""},
      {"Name=gpu File=/dev/nvidia0 MultipleFiles=/dev/nvidia1\n", "File and MultipleFiles exclude each other"},
      {"Name=gpu File=/dev/nvidia[0-3] Count=2\n", "Count=2 differs from the 4 devices named by File"},
      {"Type=a100 File=/dev/nvidia0\n", "needs Name= on the same line"},
      {"NodeName=x[ Name=gpu\n", "gres.conf:1: NodeName=x[:"},
      {"Name=gpu File=/dev/nvidia0 DmemRegion=\n", "expected a dmem region name or off"},
  };
  for (const auto& c : cases) {
    CHECK_THAT(parseError(c.text), Catch::Contains(c.expected));
  }
}

TEST_CASE("gres.conf: ChunkOrder longer than 1024 entries", "[config][gres][chunks][errors]") {
  std::string order;
  for (int i = 0; i < 1025; ++i) order += (i ? "," : "") + std::to_string(i);
  CHECK_THAT(parseError("Name=gpu File=/dev/nvidia[0-1024] ChunkSizes=1 ChunkOrder=" + order + "\n"),
             Catch::Contains("ChunkOrder=") && Catch::Contains("has more than 1024 entries"));
}

TEST_CASE("gres.conf: chunk checks only compare lines of one node and one Type", "[config][gres][chunks]") {
  const std::string text =
      "NodeName=node1 Name=gpu Type=a100 File=/dev/nvidia[0-15] ChunkSizes=2,4,8,16\n"
      "NodeName=node1 Name=gpu Type=h100 File=/dev/nvidia[16-19] ChunkSizes=2,4\n"
      "NodeName=node1 Name=gpu Type=l4 File=/dev/nvidia[20-21]\n"
      "NodeName=node2 Name=gpu Type=a100 File=/dev/nvidia[0-3] ChunkSizes=4\n";
  CHECK(mustParse(text, "node1").records.size() == 3);
  CHECK(mustParse(text, "node2").records.size() == 1);
}

TEST_CASE("gres.conf: Links on a chunked GRES is a warning", "[config][gres][chunks]") {
  GresConf c = mustParse("Name=gpu File=/dev/nvidia[0-1] ChunkSizes=2 Links=-1,1\n");
  REQUIRE(c.warnings.size() == 1);
  CHECK(c.warnings[0].toString() == "gres.conf:1: Links is ignored on a GRES with ChunkSizes");
}

TEST_CASE("gres.conf: unknown keys warn", "[config][gres]") {
  GresConf c = mustParse("Name=gpu File=/dev/nvidia0 Sparkle=1\n");
  REQUIRE(c.warnings.size() == 1);
  CHECK(c.warnings[0].toString() == "gres.conf:1: unknown key \"Sparkle\" is ignored");
}

TEST_CASE("gres.conf: a missing file is not an error", "[config][gres]") {
  auto c = loadGresConf("tests/fixtures/config/no-such-gres.conf", "node1");
  REQUIRE(c.ok());
  CHECK_FALSE(c->present);
  CHECK(c->records.empty());
}

TEST_CASE("formatGresRecords prints one record per device in order", "[config][gres][format]") {
  GresConf c = mustParse(
      "Name=gpu Type=a100 File=/dev/nvidia[0-1] Cores=0-3 Links=-1,1 Flags=env_uuid ChunkSizes=2 ChunkOrder=1,0\n"
      "Name=mps Count=200 File=/dev/nvidia0\nName=bandwidth Type=lustre Count=4G Flags=CountOnly\n"
      "Name=gpu Type=rtx File=/dev/nvidia2 DmemRegion=off\n");
  CHECK(formatGresRecords(c) ==
        "Gres Name=gpu Type=a100 Count=1 Index=0 File=/dev/nvidia0 Cores=0-3 Links=-1,1 Flags=env_uuid ChunkSizes=2 "
        "ChunkOrder=1,0\n"
        "Gres Name=gpu Type=a100 Count=1 Index=1 File=/dev/nvidia1 Cores=0-3 Links=-1,1 Flags=env_uuid ChunkSizes=2 "
        "ChunkOrder=1,0\n"
        "Gres Name=mps Count=200 File=/dev/nvidia0\n"
        "Gres Name=bandwidth Type=lustre Count=4294967296 Flags=CountOnly\n"
        "Gres Name=gpu Type=rtx Count=1 Index=2 File=/dev/nvidia2 DmemRegion=off\n");
}

// --- lines for other nodes -------------------------------------------------

namespace {
const std::string kBadLineForOtherNode =
    "Name=gpu Type=l40 File=/dev/nvidia[0-1]\n"
    "NodeName=gpu-b[07-09] Name=gpu Type=l40 Count=2 ChunkSizes=2\n";
}  // namespace

TEST_CASE("a bad line for other nodes does not stop this node", "[config][gres]") {
  GresConf conf = mustParse(kBadLineForOtherNode, "gpu-a01");
  REQUIRE(conf.records.size() == 1);
  CHECK(conf.records[0].files.size() == 2);
  CHECK_THAT(parseError(kBadLineForOtherNode, "gpu-b08"),
             Catch::Contains("gres.conf:2: ChunkSizes needs File or MultipleFiles"));
}

TEST_CASE("a line whose NodeName does not parse stops every node", "[config][gres]") {
  CHECK_THAT(parseError("NodeName=gpu-b[09-07] Name=gpu Count=2 ChunkSizes=2\n", "gpu-a01"),
             Catch::Contains("gres.conf:1:"));
}

TEST_CASE("the controller finds the gres.conf problems of each node a line names", "[config][gres]") {
  gantry::testing::TempDir dir("gantry-gres-conf");
  std::ofstream(dir.path() / "gres.conf") << kBadLineForOtherNode
                                          << "NodeName=gpu-a02 Name=gpu Type=l40 File=/dev/nvidia[2-3] ChunkSizes=2\n"
                                          << "NodeName=gpu-a02 Name=gpu Type=l40 File=/dev/nvidia[4-5]\n";
  auto problems = gresConfProblemsByNode(dir.path() / "gres.conf", {"gpu-a01", "gpu-a02", "gpu-b07", "gpu-b09"});
  CHECK(problems.count("gpu-a01") == 0);
  REQUIRE(problems.count("gpu-b07") == 1);
  CHECK_THAT(problems["gpu-b07"], Catch::Contains(":2: ChunkSizes needs File or MultipleFiles"));
  CHECK_THAT(problems["gpu-b09"], Catch::Contains(":2: ChunkSizes needs File or MultipleFiles"));
  REQUIRE(problems.count("gpu-a02") == 1);
  CHECK_THAT(problems["gpu-a02"], Catch::Contains("every line of one Name and Type must set the same"));
  CHECK(gresConfProblemsByNode(dir.path() / "missing.conf", {"gpu-b07"}).empty());
}
