#include <catch2/catch.hpp>

#include "merge_fixture.h"

using namespace gantry;
using gantry::testing::MergeCase;
using gantry::testing::runMerge;

TEST_CASE("autodetected GPUs take the gantry.conf type they stand for", "[gres][merge]") {
  auto run = runMerge({.host = "nvlink8-2socket", .autoDetect = "nvml", .gresConfText = "AutoDetect=nvml\n",
                       .nodeGres = "gpu:h100:8"});
  REQUIRE(run.result.ok());
  const auto& records = run.result->records;
  REQUIRE(records.size() == 8);
  CHECK(records[0].type == "h100");
  CHECK(records[0].files == std::vector<std::string>{"/dev/nvidia1"});
  CHECK(records[0].links == std::vector<int>{-1, 2, 2, 2, 2, 2, 2, 2});
  CHECK(records[0].autodetected);
  CHECK(run.result->drainReason.empty());
  CHECK(run.result->errors.empty());
}

TEST_CASE("detected devices gantry.conf does not account for drain the node", "[gres][merge]") {
  auto run = runMerge({.host = "pcie4-linked-pairs", .autoDetect = "nvml", .gresConfText = "AutoDetect=nvml\n",
                       .nodeGres = "gpu:a6000:2"});
  REQUIRE(run.result.ok());
  CHECK(run.result->records.size() == 4);
  CHECK(run.result->drainReason ==
        "gres/gpu: 2 detected device(s) not in gantry.conf Gres=gpu:a6000:2 of node node0: "
        "gpu:a6000(/dev/nvidia2) gpu:a6000(/dev/nvidia3)");
}

TEST_CASE("a gres.conf line whose Cores contradict the detected GPU omits it", "[gres][merge]") {
  auto run = runMerge({.host = "pcie4-linked-pairs",
                       .autoDetect = "nvml",
                       .gresConfText = "AutoDetect=nvml\nName=gpu Type=a6000 File=/dev/nvidia2 Cores=0-7\n",
                       .nodeGres = "gpu:a6000:4"});
  REQUIRE(run.result.ok());
  const auto& r = *run.result;
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0] ==
        "gres.conf:2: gres/gpu: detected GPU 0000:41:00.0 (/dev/nvidia2) has Cores=0-15 but gres.conf says "
        "Cores=0-7; the GPU is omitted from node node0");
  REQUIRE(r.records.size() == 3);
  CHECK(r.records[2].files == std::vector<std::string>{"/dev/nvidia3"});
  REQUIRE(r.omitted.size() == 1);
  CHECK(r.omitted[0].pciBusId == "0000:41:00.0");
  // Links are re-indexed over the devices that remain.
  CHECK(r.records[0].links == std::vector<int>{-1, 4, 0});
  CHECK(r.records[2].links == std::vector<int>{0, 0, -1});
}

TEST_CASE("a gres.conf line whose Links contradict the detected GPU omits it", "[gres][merge]") {
  auto run = runMerge({.host = "pcie4-linked-pairs",
                       .autoDetect = "nvml",
                       .gresConfText = "AutoDetect=nvml\nName=gpu File=/dev/nvidia0 Links=-1,0,4,0\n",
                       .nodeGres = "gpu:4"});
  REQUIRE(run.result.ok());
  REQUIRE(run.result->errors.size() == 1);
  CHECK(run.result->errors[0] ==
        "gres.conf:2: gres/gpu: detected GPU 0000:01:00.0 (/dev/nvidia0) has Links=-1,4,0,0 but gres.conf says "
        "Links=-1,0,4,0; the GPU is omitted from node node0");
  CHECK(run.result->records.size() == 3);
}

TEST_CASE("matching gres.conf lines are double-checked and keep their Type and Flags", "[gres][merge]") {
  auto run = runMerge({.host = "pcie4-linked-pairs",
                       .autoDetect = "nvml",
                       .gresConfText = "AutoDetect=nvml\n"
                                       "Name=gpu Type=a6000 File=/dev/nvidia1 Cores=0-15 Links=4,-1,0,0 Flags=env_uuid\n",
                       .nodeGres = "gpu:a6000:4"});
  REQUIRE(run.result.ok());
  CHECK(run.result->errors.empty());
  const auto& second = run.result->records[1];
  CHECK(second.type == "a6000");
  CHECK(second.flags == std::vector<std::string>{"env_uuid"});
  CHECK(second.sourceLine == 2);
  CHECK(second.uuid.starts_with("GPU-"));
}

TEST_CASE("a gres.conf Type that is no substring of the detected name does not match", "[gres][merge]") {
  auto run = runMerge({.host = "pcie4-linked-pairs",
                       .autoDetect = "nvml",
                       .gresConfText = "AutoDetect=nvml\nName=gpu Type=h100 File=/dev/nvidia0 Cores=0-15\n",
                       .nodeGres = "gpu:4,gpu:h100:1"});
  REQUIRE(run.result.ok());
  CHECK(run.result->errors.empty());  // not matched, so not checked
  REQUIRE(run.result->records.size() == 5);
  CHECK(run.result->records[4].type == "h100");  // configured-only device after the detected ones
  CHECK_FALSE(run.result->records[4].autodetected);
}

TEST_CASE("chunked records drop detected Links with one warning per line", "[gres][merge][chunks]") {
  auto run = runMerge({.host = "nvlink8-2socket",
                       .autoDetect = "nvml",
                       .gresConfText = "AutoDetect=nvml\nName=gpu Type=h100 File=/dev/nvidia[0-7] ChunkSizes=2,4,8\n",
                       .nodeGres = "gpu:h100:8"});
  REQUIRE(run.result.ok());
  const auto& r = *run.result;
  REQUIRE(r.records.size() == 8);
  for (const auto& record : r.records) {
    CHECK(record.links.empty());
    CHECK(record.chunkSizes == std::vector<int>{2, 4, 8});
  }
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] == "gres.conf:2: Links found by AutoDetect are ignored for Name=gpu Type=h100 because it sets ChunkSizes");
  CHECK(r.records[0].files == std::vector<std::string>{"/dev/nvidia1"});  // device order stays PCI bus order
}

TEST_CASE("without AutoDetect devices follow the File order of gres.conf", "[gres][merge]") {
  auto run = runMerge({.host = "pcie4-linked-pairs",
                       .autoDetect = "off",
                       .gresConfText = "Name=gpu Type=a6000 File=/dev/nvidia[2-3] Cores=0-15\n"
                                       "Name=gpu Type=a6000 File=/dev/nvidia[0-1]\n"
                                       "Name=bandwidth Type=lustre Count=4G Flags=CountOnly\n",
                       .nodeGres = "gpu:a6000:4,bandwidth:lustre:4G"});
  REQUIRE(run.result.ok());
  const auto& records = run.result->records;
  REQUIRE(records.size() == 5);
  CHECK(records[0].files == std::vector<std::string>{"/dev/nvidia2"});
  CHECK(records[2].files == std::vector<std::string>{"/dev/nvidia0"});
  CHECK(records[0].pciBusId == "0000:41:00.0");
  CHECK(records[4].name == "bandwidth");
  CHECK(records[4].count == 4ULL * 1024 * 1024 * 1024);
  CHECK(run.result->drainReason.empty());
}

TEST_CASE("gantry.conf GRES with no gres.conf lines become count-only records", "[gres][merge]") {
  auto run = runMerge({.host = "pcie4-linked-pairs", .autoDetect = "off", .gresConfText = "", .nodeGres = "gpu:2"});
  REQUIRE(run.result.ok());
  REQUIRE(run.result->records.size() == 1);
  CHECK(run.result->records[0].count == 2);
  CHECK(run.result->records[0].files.empty());
}

TEST_CASE("autodetected affinity splitting a socket stops the agent", "[gres][merge][sockets]") {
  auto run = runMerge({.host = "many-l3-1socket", .autoDetect = "nvml", .gresConfText = "AutoDetect=nvml\n",
                       .nodeGres = "gpu:a100:2"});
  REQUIRE_FALSE(run.result.ok());
  CHECK(run.result.error() ==
        "_check_core_range_matches_sock: gres/gpu GRES autodetected core affinity 0-1 on node node0 doesn't match socket boundaries. (Socket 0 is cores 0-15)\n"
        "_check_core_range_matches_sock: gres/gpu GRES autodetected core affinity 8-9 on node node0 doesn't match socket boundaries. (Socket 0 is cores 0-15)");

  auto aligned = runMerge({.host = "many-l3-1socket", .autoDetect = "nvml", .gresConfText = "AutoDetect=nvml\n",
                           .nodeGres = "gpu:a100:2", .parameters = {"l3cache_as_socket"}});
  REQUIRE(aligned.result.ok());
  CHECK(aligned.result->records[1].cores == std::vector<int>{8, 9});
}

TEST_CASE("numa_node_as_socket does not help where NUMA spans the package", "[gres][merge][sockets]") {
  auto run = runMerge({.host = "many-l3-1socket", .autoDetect = "nvml", .gresConfText = "AutoDetect=nvml\n",
                       .nodeGres = "gpu:a100:2", .parameters = {"numa_node_as_socket"}});
  CHECK_FALSE(run.result.ok());
}

TEST_CASE("MIG instances register with their profile type", "[gres][merge][mig]") {
  auto run = runMerge({.host = "a100-mig", .autoDetect = "nvml", .gresConfText = "AutoDetect=nvml\n",
                       .nodeGres = "gpu:a100:1,gpu:a100_3g.20gb:2"});
  REQUIRE(run.result.ok());
  const auto& records = run.result->records;
  REQUIRE(records.size() == 3);
  CHECK(records[0].type == "a100");
  CHECK(records[1].type == "a100_3g.20gb");
  CHECK(records[1].isMig);
  CHECK(records[1].files.size() == 3);
  CHECK(records[1].links.empty());
  CHECK(run.result->drainReason.empty());
}

TEST_CASE("file-less gpu lines lend their Flags to detected GPUs of their Type", "[gres][merge]") {
  auto run = runMerge({.host = "amd8-xgmi",
                       .autoDetect = "amd",
                       .gresConfText = "AutoDetect=amd\nName=gpu Type=mi300x Count=8 Flags=env_uuid\n",
                       .nodeGres = "gpu:mi300x:8"});
  REQUIRE(run.result.ok());
  REQUIRE(run.result->records.size() == 8);
  for (const auto& r : run.result->records) CHECK(r.flags == std::vector<std::string>{"env_uuid"});
  CHECK(run.result->records[0].files == std::vector<std::string>{"/dev/dri/renderD128", "/dev/dri/card1"});
  CHECK(run.result->records[0].links == std::vector<int>{-1, 1, 1, 1, 1, 1, 1, 1});
}

TEST_CASE("shards spread over the GPUs of their Type", "[gres][merge][shard]") {
  auto run = runMerge({.host = "pcie4-linked-pairs",
                       .autoDetect = "nvml",
                       .gresConfText = "AutoDetect=nvml\nName=shard Count=10\n",
                       .nodeGres = "gpu:4,shard:10"});
  REQUIRE(run.result.ok());
  const auto& records = run.result->records;
  REQUIRE(records.size() == 8);
  CHECK(records[4].name == "shard");
  CHECK(records[4].count == 3);
  CHECK(records[5].count == 3);
  CHECK(records[6].count == 2);
  CHECK(records[7].files == std::vector<std::string>{"/dev/nvidia3"});
}

TEST_CASE("a shared GRES with no GPU to share stops the agent", "[gres][merge][shard]") {
  auto run = runMerge({.host = "pcie4-linked-pairs",
                       .autoDetect = "off",
                       .gresConfText = "Name=mps Type=h100 Count=100\n",
                       .nodeGres = "mps:100"});
  REQUIRE_FALSE(run.result.ok());
  CHECK(run.result.error() == "gres.conf:1: Name=mps Type=h100: no gpu with device files on node node0 to share");
}

// --- shared GRES: the per-type form (Name + Type + Count, no File) ----------

namespace {

// Configured GPUs (no AutoDetect), one line per device, in this order.
std::string gpuLines(const std::vector<std::pair<std::string, std::string>>& typeAndFile) {
  std::string text;
  for (const auto& [type, file] : typeAndFile) text += "Name=gpu Type=" + type + " File=" + file + "\n";
  return text;
}

std::vector<uint64_t> sharedCounts(const nodegres::MergeResult& result, const std::string& name) {
  std::vector<uint64_t> counts;
  for (const auto& r : result.records)
    if (r.name == name) counts.push_back(r.count);
  return counts;
}

}  // namespace

TEST_CASE("shared per-type rules", "[gres][merge][shard][mps]") {
  struct Row {
    const char* rule;
    std::string gresConf;
    std::string nodeGres;
    const char* name;
    std::vector<uint64_t> expected;  // per GPU that offers any, in device order
  };
  const std::string twoKinds = gpuLines({{"h200", "/dev/nvidia0"}, {"h200", "/dev/nvidia1"},
                                         {"h200", "/dev/nvidia2"}, {"l4", "/dev/nvidia3"}});
  const std::string nested = gpuLines({{"h200_nvl", "/dev/nvidia0"}, {"h200_sxm", "/dev/nvidia1"},
                                       {"h200_nvl", "/dev/nvidia2"}});
  const std::string contained = gpuLines({{"rtx_a1000", "/dev/nvidia0"}, {"a10", "/dev/nvidia1"},
                                          {"rtx_a1000", "/dev/nvidia2"}});
  const Row rows[] = {
      {"the Count is given to every GPU of the Type, per device",
       twoKinds + "Name=shard Type=h200 Count=24\nName=shard Type=l4 Count=6\n",
       "gpu:h200:3,gpu:l4:1,shard:h200:72,shard:l4:6", "shard", {24, 24, 24, 6}},
      {"the most specific of overlapping Types wins, the counts never add up",
       nested + "Name=shard Type=H200 Count=10\nName=shard Type=h200_nvl Count=14\n",
       "gpu:h200_nvl:2,gpu:h200_sxm:1,shard:38", "shard", {14, 10, 14}},
      {"a Type contained in another GPU type loses to that GPU's own line",
       contained + "Name=shard Type=a10 Count=5\nName=shard Type=rtx_a1000 Count=3\n",
       "gpu:rtx_a1000:2,gpu:a10:1,shard:11", "shard", {3, 5, 3}},
      {"the per-type Type matches case-insensitively as a substring",
       twoKinds + "Name=mps Type=H2 Count=100\n", "gpu:h200:3,gpu:l4:1,mps:300", "mps", {100, 100, 100}},
      {"MPS takes the per-device Count like shards",
       twoKinds + "Name=mps Type=h200 Count=300\nName=mps Type=l4 Count=50\n",
       "gpu:h200:3,gpu:l4:1,mps:h200:900,mps:l4:50", "mps", {300, 300, 300, 50}},
      {"a gantry.conf typed total with no gres.conf line is still split over its GPUs",
       twoKinds, "gpu:h200:3,gpu:l4:1,shard:h200:30", "shard", {10, 10, 10}},
      {"a Count-only line is still a node total split evenly",
       twoKinds + "Name=shard Count=10\n", "gpu:h200:3,gpu:l4:1,shard:10", "shard", {3, 3, 2, 2}},
  };
  for (const auto& row : rows) {
    SECTION(row.rule) {
      auto run = runMerge({.host = "pcie4-linked-pairs", .autoDetect = "off", .gresConfText = row.gresConf,
                           .nodeGres = row.nodeGres});
      REQUIRE(run.result.ok());
      CHECK(sharedCounts(*run.result, row.name) == row.expected);
    }
  }
}

TEST_CASE("per-type shared records take the type of their GPU", "[gres][merge][shard]") {
  auto run = runMerge({.host = "pcie4-linked-pairs",
                       .autoDetect = "off",
                       .gresConfText = gpuLines({{"h200_nvl", "/dev/nvidia0"}, {"l4", "/dev/nvidia1"}}) +
                                       "Name=shard Type=h200 Count=8\n",
                       .nodeGres = "gpu:h200_nvl:1,gpu:l4:1,shard:h200_nvl:8"});
  REQUIRE(run.result.ok());
  const auto& records = run.result->records;
  REQUIRE(records.size() == 3);
  CHECK(records[2].name == "shard");
  CHECK(records[2].type == "h200_nvl");
  CHECK(records[2].files == std::vector<std::string>{"/dev/nvidia0"});
  CHECK(records[2].count == 8);
}

TEST_CASE("ChunkSizes on a shared GRES line reaches the shared records", "[gres][merge][shard]") {
  auto run = runMerge({.host = "pcie4-linked-pairs",
                       .autoDetect = "off",
                       .gresConfText = gpuLines({{"l4", "/dev/nvidia0"}, {"l4", "/dev/nvidia1"}}) +
                                       "Name=shard File=/dev/nvidia[0-1] Count=6 ChunkSizes=2\n",
                       .nodeGres = "gpu:l4:2,shard:6"});
  REQUIRE(run.result.ok());
  const auto& records = run.result->records;
  REQUIRE(records.size() == 4);
  CHECK(records[2].chunkSizes == std::vector<int>{2});
  CHECK(records[3].chunkSizes == std::vector<int>{2});
}

TEST_CASE("per-type shared lines also match the name AutoDetect gave the GPU", "[gres][merge][shard]") {
  // gantry.conf's a6000 names the detected nvidia_rtx_a6000 GPUs; the more
  // specific rtx_a6000 line still wins on them.
  auto run = runMerge({.host = "pcie4-linked-pairs",
                       .autoDetect = "nvml",
                       .gresConfText = "AutoDetect=nvml\nName=shard Type=a6000 Count=2\nName=shard Type=rtx_a6000 Count=6\n",
                       .nodeGres = "gpu:a6000:4,shard:a6000:24"});
  REQUIRE(run.result.ok());
  CHECK(sharedCounts(*run.result, "shard") == std::vector<uint64_t>{6, 6, 6, 6});
  CHECK(run.result->records[4].type == "a6000");
}

namespace {

detect::CpuTopology socketsOf(int sockets, int coresPerSocket) {
  detect::CpuTopology topology;
  topology.sockets = sockets;
  topology.coresPerSocket = coresPerSocket;
  topology.cpus = sockets * coresPerSocket;
  for (int s = 0; s < sockets; ++s) {
    std::vector<int> cores;
    for (int c = 0; c < coresPerSocket; ++c) cores.push_back(s * coresPerSocket + c);
    topology.socketCores.push_back(cores);
  }
  return topology;
}

// gres.conf "Name=gpu File=/dev/nvidia0 Cores=<cores>" on a machine of one
// socket of 2 cores whose gantry.conf line (under config_overrides, when
// `configured`) says 4 sockets of 3 cores.
Result<nodegres::MergeResult> mergeCores(const std::string& cores, bool configured) {
  auto conf = config::parseGresConf("AutoDetect=off\nName=gpu File=/dev/nvidia0 Cores=" + cores + "\n",
                                    "gres.conf", "node0");
  REQUIRE(conf.ok());
  nodegres::MergeInput input;
  input.nodeName = "node0";
  input.gresConf = &conf.value();
  input.topology = socketsOf(1, 2);
  if (configured) input.configuredTopology = socketsOf(4, 3);
  input.nodeGres = config::parseGresList("gpu:1").value();
  return nodegres::mergeGres(input);
}

}  // namespace

TEST_CASE("gres.conf Cores= under config_overrides follow the configured topology", "[gres][merge]") {
  SECTION("cores the machine lacks but the configured node has are accepted") {
    auto merged = mergeCores("6-8", true);
    REQUIRE(merged.ok());
    CHECK(merged->records.at(0).cores == std::vector<int>{6, 7, 8});
  }
  SECTION("without config_overrides the same cores are beyond the machine") {
    auto merged = mergeCores("6-8", false);
    REQUIRE_FALSE(merged.ok());
    CHECK_THAT(merged.error(), Catch::Contains("names cores beyond the node's 2 cores (0-1)"));
  }
  SECTION("cores splitting a configured socket are refused") {
    auto merged = mergeCores("7", true);
    REQUIRE_FALSE(merged.ok());
    CHECK_THAT(merged.error(), Catch::Contains("doesn't match socket boundaries. (Socket 2 is cores 6-8)"));
  }
  SECTION("cores beyond the configured node are refused") {
    auto merged = mergeCores("12-14", true);
    REQUIRE_FALSE(merged.ok());
    CHECK_THAT(merged.error(), Catch::Contains("names cores beyond the node's 12 cores (0-11)"));
  }
}
