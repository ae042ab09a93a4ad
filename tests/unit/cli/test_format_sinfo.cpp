#include <catch2/catch.hpp>

#include "cli/format_sinfo.h"
#include "cli/node_state.h"
#include "cli_fixtures.h"

using namespace gantry::cli;
using namespace cli_fixtures;

namespace {

std::string render(const LineFormat& format, SinfoView view = SinfoView::kPartitions,
                   bool header = true) {
  return renderSinfo(format, clusterPartitions(), clusterNodes(),
                     SinfoRenderOptions{.view = view, .header = header});
}

std::string renderCodes(const std::string& codes) {
  auto parsed = parseSinfoFormat(codes);
  REQUIRE(parsed.ok());
  return render(*parsed, SinfoView::kPartitions, false);
}

}  // namespace

TEST_CASE("sinfo partition summary", "[cli][sinfo]") {
  useUtc();
  std::string out = render(defaultSinfoFormat(SinfoView::kPartitions));
  CHECK(out == golden("sinfo_default.txt", out));
  CHECK_THAT(out, Catch::Contains("cpu*") && Catch::Contains("drain cpu3"));
}

TEST_CASE("sinfo -N lists nodes", "[cli][sinfo]") {
  std::string out = render(defaultSinfoFormat(SinfoView::kNodes), SinfoView::kNodes);
  CHECK(out == golden("sinfo_nodes.txt", out));
}

TEST_CASE("sinfo finds a partition's nodes from the nodes, so Nodes=ALL lists them", "[cli][sinfo]") {
  auto partitions = clusterPartitions();
  partitions[0].set_nodes("ALL");
  std::string out = renderSinfo(defaultSinfoFormat(SinfoView::kNodes), partitions, clusterNodes(),
                                SinfoRenderOptions{.view = SinfoView::kNodes, .header = false});
  CHECK_THAT(out, Catch::Contains("cpu1 ") && Catch::Contains("cpu2 ") && Catch::Contains("cpu3 "));
  CHECK(out == render(defaultSinfoFormat(SinfoView::kNodes), SinfoView::kNodes, false));
}

TEST_CASE("sinfo -R lists reasons", "[cli][sinfo]") {
  useUtc();
  std::string out = render(defaultSinfoFormat(SinfoView::kReasons), SinfoView::kReasons);
  CHECK(out == "REASON                         USER      TIMESTAMP           NODELIST\n"
               "bad dimm                       root      2026-11-30T09:00:00 cpu3\n");
}

TEST_CASE("each sinfo format code", "[cli][sinfo]") {
  useUtc();
  CHECK(renderCodes("%P") == "cpu*\ngpu\nfuture\n");
  CHECK(renderCodes("%R %a") == "cpu up\ngpu up\nfuture inactive\n");
  CHECK(renderCodes("%R %l") == "cpu infinite\ngpu 1-00:00:00\nfuture 30:00\n");
  CHECK(renderCodes("%R %D") == "cpu 3\ngpu 2\nfuture 0\n");
  CHECK(renderCodes("%R %T %N") ==
        "cpu idle cpu[1-2]\ncpu drained cpu3\ngpu mixed gpu[1-2]\nfuture n/a \n");
  CHECK(renderCodes("%R %t") == "cpu idle\ncpu drain\ngpu mix\nfuture n/a\n");
  CHECK(renderCodes("%R %c %m") == "cpu 8 64000\ngpu 8 64000\nfuture n/a n/a\n");
  CHECK(renderCodes("%R %G") == "cpu (null)\ngpu gpu:a100:4\nfuture n/a\n");
  CHECK(renderCodes("%N %E") == "cpu[1-2],gpu[1-2] none\ncpu3 bad dimm\n");
  CHECK(renderCodes("%N %z") == "cpu[1-3],gpu[1-2] 2:4:1\n");
  CHECK(renderCodes("%R %C") == "cpu 0/16/8/24\ngpu 8/8/0/16\nfuture 0/0/0/0\n");
}

TEST_CASE("sinfo -O field names", "[cli][sinfo]") {
  auto parsed = parseSinfoFieldList("NodeList:10,Gres:20,GresUsed:0");
  REQUIRE(parsed.ok());
  std::string out = render(*parsed);
  CHECK(out == "NODELIST  GRES                GRES_USED\n"
               "cpu[1-3]  (null)              (null)\n"
               "gpu[1-2]  gpu:a100:4          gpu:a100:2(IDX:0-1)\n");
  auto all = parseSinfoFieldList("Partition,StateLong,CPUs,Memory,Reason,Nodes,Available,Time,"
                                 "StateCompact,CPUsState,Features,SocketCoreThread");
  REQUIRE(all.ok());
  CHECK(all->fields.size() == 12);
  CHECK_THAT(parseSinfoFieldList("NodeList,Colour").error(),
             Catch::Contains("-O/--Format: unknown field 'Colour'"));
  CHECK_THAT(parseSinfoFormat("%P %Q").error(), Catch::Contains("unknown field code '%Q'"));
}

TEST_CASE("sinfo -s: one line per partition, its nodes allocated/idle/other/total", "[cli][sinfo]") {
  useUtc();
  std::string out = render(defaultSinfoFormat(SinfoView::kPartitions, SinfoDefaults{.summarize = true}));
  // cpu: two idle, one drained; gpu: both nodes hold jobs; future: no nodes.
  CHECK(out == "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T)  NODELIST\n"
               "cpu*         up   infinite          0/2/1/3  cpu[1-3]\n"
               "gpu          up 1-00:00:00          2/0/0/2  gpu[1-2]\n"
               "future    inact      30:00          0/0/0/0  \n");
}

TEST_CASE("sinfo -l: Slurm's long columns in each view", "[cli][sinfo]") {
  useUtc();
  std::string partitions = render(defaultSinfoFormat(SinfoView::kPartitions, SinfoDefaults{.longList = true}));
  CHECK_THAT(partitions, Catch::StartsWith("PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  NODES"));
  CHECK_THAT(partitions, Catch::Contains("gpu          up 1-00:00:00        1-2   no  FORCE:4        all      2"));
  auto nodes = clusterNodes();
  nodes[0].set_tmp_disk_mb(2048);
  nodes[0].set_weight(10);
  std::string long_nodes = renderSinfo(defaultSinfoFormat(SinfoView::kNodes, SinfoDefaults{.longList = true}),
                                       clusterPartitions(), nodes,
                                       SinfoRenderOptions{.view = SinfoView::kNodes, .header = true});
  CHECK_THAT(long_nodes, Catch::StartsWith("NODELIST  NODES PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT AVAIL_FE REASON"));
  CHECK_THAT(long_nodes, Catch::Contains("\ncpu1          1 cpu*             idle    8    2:4:1  64000     2048     10   (null) none"));
  CHECK_THAT(long_nodes, Catch::Contains("\ncpu3          1 cpu*          drained    8    2:4:1  64000        0      1   (null) bad dimm"));
  std::string reasons = render(defaultSinfoFormat(SinfoView::kReasons, SinfoDefaults{.longList = true}), SinfoView::kReasons);
  CHECK(reasons == "REASON               USER      TIMESTAMP           STATE  NODELIST\n"
                   "bad dimm             root      2026-11-30T09:00:00 drain  cpu3\n");
}
