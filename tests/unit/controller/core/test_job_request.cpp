// The submit edge: what a JobSpec from the CLI turns into for the selection,
// and which specs are refused there. One row per rule; the chunk rows then
// run the converted request against a chunked node, since the node count the
// edge derives is what decides whether a job may take part of a domain.
#include <catch2/catch.hpp>

#include <functional>

#include "common/config/gantry_conf.h"
#include "controller/core/job_request.h"
#include "tests/unit/controller/select/select_builders.h"

using namespace gantry;

namespace {

config::GantryConf confWith(const std::string& extra) {
  auto loaded = config::parseGantryConf("ClusterName=unit\nGresTypes=gpu\n" + extra +
                                            "NodeName=n1 CPUs=8 CoresPerSocket=8 RealMemory=8000 Gres=gpu:8\n"
                                            "PartitionName=debug Nodes=n1 Default=YES\n",
                                        "unit.conf");
  REQUIRE(loaded.ok());
  return loaded->conf;
}

void addGpus(v1::JobSpec& spec, int count) {
  auto* gres = spec.add_gres();
  gres->set_name("gpu");
  gres->set_count(count);
}

struct Row {
  const char* rule;
  std::function<void(v1::JobSpec&)> set;
  const char* error;  // null: accepted
};

void checkRows(const config::GantryConf& conf, std::initializer_list<Row> rows) {
  for (const Row& row : rows) {
    INFO(row.rule);
    v1::JobSpec spec;
    row.set(spec);
    auto request = core::jobSpecToRequest(spec, conf);
    if (row.error) {
      REQUIRE_FALSE(request.ok());
      CHECK_THAT(request.error(), Catch::Contains(row.error));
    } else {
      CHECK(request.ok());
    }
  }
}

}  // namespace

TEST_CASE("-N a without a maximum asks for exactly a nodes", "[core][request]") {
  config::GantryConf conf = confWith("");
  struct NodeRow {
    const char* rule;
    int minNodes, maxNodes;
    int wantMin, wantMax;
  };
  for (const NodeRow& row : {NodeRow{"no -N leaves the count open", 0, 0, 1, 0},
                             NodeRow{"-N1 is one node exactly", 1, 0, 1, 1},
                             NodeRow{"-N3 is three nodes exactly", 3, 0, 3, 3},
                             NodeRow{"-N2-5 keeps its range", 2, 5, 2, 5}}) {
    INFO(row.rule);
    v1::JobSpec spec;
    spec.set_min_nodes(row.minNodes);
    spec.set_max_nodes(row.maxNodes);
    auto request = core::jobSpecToRequest(spec, conf);
    REQUIRE(request.ok());
    CHECK(request->minNodes == row.wantMin);
    CHECK(request->maxNodes == row.wantMax);
  }
}

TEST_CASE("--ntasks-per-socket reaches the selection and may not be negative", "[core][request]") {
  config::GantryConf conf = confWith("");
  v1::JobSpec spec;
  spec.set_ntasks_per_socket(2);
  auto request = core::jobSpecToRequest(spec, conf);
  REQUIRE(request.ok());
  CHECK(request->ntasksPerSocket == 2);
  checkRows(conf, {{"a negative count is refused", [](v1::JobSpec& s) { s.set_ntasks_per_socket(-1); },
                    "--ntasks-per-socket"}});
}

TEST_CASE("--gpus-per-task requires a task count", "[core][request]") {
  const char* kNeedsTasks = "Requires the job to specify a task count";
  checkRows(confWith(""),
            {{"--gpus-per-task alone is refused", [](auto& s) { s.set_gpus_per_task(3); }, kNeedsTasks},
             {"a node count is not a task count",
              [](auto& s) {
                s.set_min_nodes(2);
                s.set_gpus_per_task(1);
              },
              kNeedsTasks},
             {"-n gives the count",
              [](auto& s) {
                s.set_ntasks(3);
                s.set_gpus_per_task(2);
              },
              nullptr},
             {"--ntasks-per-node gives the count",
              [](auto& s) {
                s.set_ntasks_per_node(2);
                s.set_gpus_per_task(2);
              },
              nullptr},
             {"--gpus with --gpus-per-task gives the count",
              [](auto& s) {
                s.set_gpus(6);
                s.set_gpus_per_task(3);
              },
              nullptr}});
}

TEST_CASE("a malformed --gpu-bind is refused at submit", "[core][request]") {
  checkRows(confWith(""), {{"map_gpu with a word", [](auto& s) { s.set_gpu_bind("map_gpu:zero"); }, "--gpu-bind"},
                           {"an unknown form", [](auto& s) { s.set_gpu_bind("nearest"); }, "--gpu-bind"},
                           {"single:2 is accepted", [](auto& s) { s.set_gpu_bind("single:2"); }, nullptr}});
}

TEST_CASE("--gpus-per-socket requires a socket count", "[core][request]") {
  const char* kNeedsSockets = "Requires the job to specify a task socket";
  checkRows(confWith(""), {{"--gpus-per-socket alone is refused", [](auto& s) { s.set_gpus_per_socket(2); },
                            kNeedsSockets},
                           {"--sockets-per-node gives the count",
                            [](auto& s) {
                              s.set_gpus_per_socket(2);
                              s.set_sockets_per_node(1);
                            },
                            nullptr}});
}

TEST_CASE("GPU options beyond --gres need select/cons_tres", "[core][request]") {
  const char* kUnsupported = "Requested GRES option unsupported by configured SelectType plugin";
  std::initializer_list<Row> gpuOptions = {
      {"--gpus", [](auto& s) { s.set_gpus(3); }, kUnsupported},
      {"--gpus-per-node", [](auto& s) { s.set_gpus_per_node(3); }, kUnsupported},
      {"--gpus-per-socket",
       [](auto& s) {
         s.set_gpus_per_socket(1);
         s.set_sockets_per_node(2);
       },
       kUnsupported},
      {"--gpus-per-task",
       [](auto& s) {
         s.set_ntasks(2);
         s.set_gpus_per_task(1);
       },
       kUnsupported},
      {"--cpus-per-gpu",
       [](auto& s) {
         addGpus(s, 1);
         s.set_cpus_per_gpu(3);
       },
       kUnsupported},
      {"--mem-per-gpu",
       [](auto& s) {
         addGpus(s, 1);
         s.set_mem_per_gpu_mb(700);
       },
       kUnsupported},
      {"--gpu-freq",
       [](auto& s) {
         addGpus(s, 1);
         s.set_gpu_freq("medium");
       },
       kUnsupported},
      {"--gpu-bind",
       [](auto& s) {
         addGpus(s, 2);
         s.set_gpu_bind("closest");
       },
       kUnsupported},
      {"--gres=gpu stays allowed", [](auto& s) { addGpus(s, 3); }, nullptr},
  };
  SECTION("select/cons_res") { checkRows(confWith("SelectType=select/cons_res\n"), gpuOptions); }
  SECTION("select/linear") { checkRows(confWith("SelectType=select/linear\n"), gpuOptions); }
  SECTION("the refusal names the option and the plugin") {
    v1::JobSpec spec;
    spec.set_gpus_per_node(2);
    auto request = core::jobSpecToRequest(spec, confWith("SelectType=select/cons_res\n"));
    REQUIRE_FALSE(request.ok());
    CHECK_THAT(request.error(), Catch::Contains("--gpus-per-node") && Catch::Contains("select/cons_res"));
  }
  SECTION("select/cons_tres accepts them all") {
    config::GantryConf consTres = confWith("SelectType=select/cons_tres\n");
    for (const Row& row : gpuOptions) {
      INFO(row.rule);
      v1::JobSpec spec;
      row.set(spec);
      CHECK(core::jobSpecToRequest(spec, consTres).ok());
    }
  }
}

TEST_CASE("shared GPUs (gres/shard, gres/mps) need select/cons_tres", "[core][request]") {
  auto conf = [](const std::string& select) {
    auto loaded = config::parseGantryConf("ClusterName=unit\nGresTypes=gpu,shard,mps\n" + select +
                                              "NodeName=n1 CPUs=8 CoresPerSocket=8 RealMemory=8000 "
                                              "Gres=gpu:2,shard:12,mps:200\n"
                                              "PartitionName=debug Nodes=n1 Default=YES\n",
                                          "unit.conf");
    REQUIRE(loaded.ok());
    return loaded->conf;
  };
  auto shared = [](const char* name, int count) {
    return [name, count](v1::JobSpec& s) {
      auto* gres = s.add_gres();
      gres->set_name(name);
      gres->set_count(count);
    };
  };
  const char* kUnsupported = "Requested GRES option unsupported by configured SelectType plugin";
  for (const char* select : {"SelectType=select/cons_res\n", "SelectType=select/linear\n"}) {
    INFO(select);
    checkRows(conf(select), {{"gres/shard is refused", shared("shard", 5), kUnsupported},
                             {"gres/mps is refused", shared("mps", 30), kUnsupported}});
  }
  checkRows(conf("SelectType=select/cons_tres\n"), {{"gres/shard is accepted", shared("shard", 5), nullptr},
                                                    {"gres/mps is accepted", shared("mps", 30), nullptr}});
}

TEST_CASE("--core-spec and --thread-spec without AllowSpecResourcesUsage are accepted", "[core][request]") {
  checkRows(confWith(""), {{"--core-spec", [](auto& s) { s.set_core_spec(2); }, nullptr},
                           {"--thread-spec", [](auto& s) { s.set_thread_spec(3); }, nullptr}});
}

// The shapes an outside check found refused on chunked nodes, on a node of
// eight GPUs in chunks of 2, 4 and 8.
TEST_CASE("submitted shapes against a chunked node", "[core][request][chunks]") {
  config::GantryConf conf = confWith("");
  select::NodeInfo node = select::testing::gpuNode("c1", 8, "", {.sockets = 2, .coresPerSocket = 12});
  node.chunks.push_back({"", {2, 4, 8}, {}});
  select::Cluster cluster;
  cluster.addNode(node);
  struct ShapeRow {
    const char* rule;
    std::function<void(v1::JobSpec&)> set;
    select::Verdict verdict;
  };
  const ShapeRow rows[] = {
      {"-N1 with several tasks and --gres takes part of a domain",
       [](auto& s) {
         s.set_min_nodes(1);
         s.set_ntasks(5);
         addGpus(s, 4);
       },
       select::Verdict::Placed},
      {"-N1 still needs a chunk size: 3 tasks x 2 GPUs is 6",
       [](auto& s) {
         s.set_min_nodes(1);
         s.set_ntasks(3);
         s.set_gpus_per_task(2);  // 6: not a chunk size
       },
       select::Verdict::Never},
      {"-N1 -n2 --gpus-per-task=2 (also --tres-per-task=gres/gpu=2)",
       [](auto& s) {
         s.set_min_nodes(1);
         s.set_ntasks(2);
         s.set_gpus_per_task(2);
       },
       select::Verdict::Placed},
      {"-N1 with --gpus and --gpus-per-task",
       [](auto& s) {
         s.set_min_nodes(1);
         s.set_ntasks(4);
         s.set_gpus(4);
         s.set_gpus_per_task(1);
       },
       select::Verdict::Placed},
      {"several tasks without -N could spread",
       [](auto& s) {
         s.set_ntasks(3);
         addGpus(s, 4);
       },
       select::Verdict::Never},
      {"a node range could spread, even with one task",
       [](auto& s) {
         s.set_min_nodes(1);
         s.set_max_nodes(3);
         addGpus(s, 4);
       },
       select::Verdict::Never},
      {"a node range may take whole domains",
       [](auto& s) {
         s.set_min_nodes(1);
         s.set_max_nodes(3);
         addGpus(s, 8);
       },
       select::Verdict::Placed},
      {"--core-spec leaves the node shared and the chunk rules apply",
       [](auto& s) {
         s.set_core_spec(2);
         addGpus(s, 2);
       },
       select::Verdict::Placed},
      {"--core-spec does not make a whole node: 3 is no chunk size",
       [](auto& s) {
         s.set_core_spec(2);
         addGpus(s, 3);
       },
       select::Verdict::Never},
  };
  for (const ShapeRow& row : rows) {
    INFO(row.rule);
    v1::JobSpec spec;
    row.set(spec);
    auto request = core::jobSpecToRequest(spec, conf);
    REQUIRE(request.ok());
    CHECK(cluster.canEverRun(*request, select::testing::allNodes(cluster)).verdict == row.verdict);
  }
}

TEST_CASE("--tres-bind is judged at submission with Slurm's TRES error", "[core][request][tres-bind]") {
  config::GantryConf conf = confWith("SelectType=select/cons_tres\n");
  checkRows(conf, {
                      {"a valid map list", [](auto& s) { s.set_tres_bind("gres/gpu:map:6,2"); }, nullptr},
                      {"an empty mask list", [](auto& s) { s.set_tres_bind("gres/gpu:mask:"); }, nullptr},
                      {"a letter in a map list",
                       [](auto& s) { s.set_tres_bind("gres/gpu:map:5k"); },
                       "Invalid Trackable RESource (TRES) specification: --tres-bind: 'gres/gpu:map:5k'"},
                      {"a TRES that is not a GRES", [](auto& s) { s.set_tres_bind("mem:closest"); },
                       "Invalid Trackable RESource (TRES) specification"},
                  });
  CHECK(core::checkTresBindValue("gres/gpu:single:4").ok());
  CHECK_THAT(core::checkTresBindValue("gres/gpu:mask:0xq").error(),
             Catch::StartsWith("Invalid Trackable RESource (TRES) specification: --tres-bind:"));
}

TEST_CASE("-O/--overcommit asks CPUs as for one task per node", "[core][request][overcommit]") {
  config::GantryConf conf = confWith("");
  struct OvercommitRow {
    const char* rule;
    std::function<void(v1::JobSpec&)> set;
    int ntasks;
    int ntasksPerNode;
    int cpusPerTask;
  };
  const OvercommitRow rows[] = {
      {"eleven tasks ask one task's CPUs",
       [](auto& s) {
         s.set_ntasks(11);
         s.set_overcommit(true);
       },
       1, 0, 1},
      {"-c stays per node",
       [](auto& s) {
         s.set_ntasks(5);
         s.set_cpus_per_task(3);
         s.set_overcommit(true);
       },
       1, 0, 3},
      {"--ntasks-per-node becomes one per node",
       [](auto& s) {
         s.set_min_nodes(1);
         s.set_ntasks_per_node(12);
         s.set_overcommit(true);
       },
       1, 1, 1},
      {"an --exclusive job is left as asked",
       [](auto& s) {
         s.set_ntasks(6);
         s.set_exclusive(true);
         s.set_overcommit(true);
       },
       6, 0, 1},
      {"without -O every task counts",
       [](auto& s) { s.set_ntasks(6); },
       6, 0, 1},
      {"GPUs per task keep every task's CPUs",
       [](auto& s) {
         s.set_ntasks(3);
         s.set_gpus_per_task(1);
         s.set_overcommit(true);
       },
       3, 0, 1},
  };
  for (const OvercommitRow& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      v1::JobSpec spec;
      row.set(spec);
      auto request = core::jobSpecToRequest(spec, conf);
      REQUIRE(request.ok());
      CHECK(request->ntasks == row.ntasks);
      CHECK(request->ntasksPerNode == row.ntasksPerNode);
      CHECK(request->cpusPerTask == row.cpusPerTask);
    }
  }
}
