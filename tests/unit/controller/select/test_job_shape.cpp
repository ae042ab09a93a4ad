#include <catch2/catch.hpp>

#include "controller/select/job_shape.h"

using namespace gantry::select;

TEST_CASE("request validation names the option and the rule", "[select][shape]") {
  Request r;
  CHECK(validateRequest(r).ok());
  r.gpusPerSocket = 1;
  CHECK_THAT(validateRequest(r).error(), Catch::Contains("--gpus-per-socket") && Catch::Contains("--sockets-per-node"));
  Request perNodeAndSocket;
  perNodeAndSocket.gpusPerNode = 2;
  perNodeAndSocket.gpusPerSocket = 1;
  perNodeAndSocket.socketsPerNode = 2;
  CHECK_THAT(validateRequest(perNodeAndSocket).error(), Catch::Contains("mutually exclusive"));
  Request taskAboveNode;
  taskAboveNode.gresPerNode = {{"gpu", "", 2}};
  taskAboveNode.gpusPerTask = 3;
  CHECK_THAT(validateRequest(taskAboveNode).error(), Catch::Contains("--gpus-per-task must not exceed"));
  Request mem;
  mem.memPerCpuMb = mem.memPerNodeMb = 1;
  CHECK_THAT(validateRequest(mem).error(), Catch::Contains("--mem"));
  Request nodes;
  nodes.minNodes = 3;
  nodes.maxNodes = 2;
  CHECK_THAT(validateRequest(nodes).error(), Catch::Contains("-N"));
  Request twice;
  twice.gresPerNode = {{"gpu", "a100", 1}, {"gpu", "a100", 2}};
  CHECK_THAT(validateRequest(twice).error(), Catch::Contains("given twice"));
}

TEST_CASE("shapes: node range, spreading and fixed task counts", "[select][shape]") {
  Request r;
  r.ntasks = 4;
  auto loose = shapeJob(r, {});
  REQUIRE(loose.ok());
  CHECK(loose->canSpread);
  CHECK_FALSE(loose->tasksPerNodeFixed);
  r.maxNodes = 1;
  CHECK_FALSE(shapeJob(r, {})->canSpread);
  Request perNode;
  perNode.ntasks = 4;
  perNode.ntasksPerNode = 2;
  auto fixed = shapeJob(perNode, {});
  CHECK(fixed->minNodes == 2);
  CHECK(fixed->maxNodes == 2);
  CHECK(fixed->tasksPerNodeFixed);
  Request n2;
  n2.minNodes = 2;
  n2.ntasksPerNode = 3;
  CHECK(shapeJob(n2, {})->ntasks == 6);
  Request single;
  CHECK_FALSE(shapeJob(single, {})->canSpread);
  auto capped = shapeJob(r, ShapeOptions{.partitionMaxNodes = 1});
  CHECK(capped->maxNodes == 1);
  Request gpus;
  gpus.gpus = 8;
  gpus.gpusPerNode = 4;
  auto split = shapeJob(gpus, {});
  CHECK(split->minNodes == 2);
  CHECK(split->gpusPerJob == 0);
  Request exclusive;
  exclusive.exclusive = true;
  CHECK(shapeJob(exclusive, {})->wholeNode);
  Request spec;
  spec.coreSpec = 1;
  CHECK_FALSE(shapeJob(spec, {})->wholeNode);
  CHECK(shapeJob(spec, ShapeOptions{.allowSpecResourcesUsage = true})->wholeNode);
}

TEST_CASE("--gpus with --gpus-per-node fixes the node count", "[select][shape]") {
  Request one;
  one.gpus = 4;
  one.gpusPerNode = 4;
  auto shape = shapeJob(one, {});
  CHECK(shape->minNodes == 1);
  CHECK(shape->maxNodes == 1);
  CHECK_FALSE(shape->canSpread);
  Request two = one;
  two.gpus = 8;
  CHECK(shapeJob(two, {})->maxNodes == 2);
}

// Whether a job may land on more than one node decides whether it may take
// part of a chunk domain; whether its per-node task count is known decides
// whether a per-task device count is. One row per rule of gres.md "What Jobs
// May Request".
TEST_CASE("a per-node GPU count with a per-task one allocates the per-node count", "[select][shape]") {
  Request r;
  r.gpus = 6;
  r.gpusPerNode = 3;
  r.gpusPerTask = 1;
  r.ntasks = 6;
  auto shape = shapeJob(r, {});
  REQUIRE(shape.ok());
  CHECK(shape->minNodes == 2);
  REQUIRE(shape->demands.size() == 1);
  CHECK(shape->demands[0].count == 3);
  CHECK(shape->demands[0].kind == DemandKind::PerNode);
}

TEST_CASE("spreading rules: who may use part of a chunk domain", "[select][shape][chunks]") {
  struct Row {
    const char* rule;
    Request request;
    ShapeOptions options;
    bool canSpread;
    bool tasksPerNodeFixed;
  };
  auto make = [](int minNodes, int maxNodes, int ntasks, int ntasksPerNode) {
    Request r;
    r.minNodes = minNodes;
    r.maxNodes = maxNodes;
    r.ntasks = ntasks;
    r.ntasksPerNode = ntasksPerNode;
    return r;
  };
  const Row rows[] = {
      {"-N1 with several tasks stays on one node", make(1, 1, 5, 0), {}, false, true},
      {"a single task without -N stays on one node", make(1, 0, 1, 0), {}, false, true},
      {"--ntasks-per-node covering every task stays on one node", make(1, 0, 6, 6), {}, false, true},
      {"partition MaxNodes=1 keeps the job on one node", make(1, 0, 7, 0), {.partitionMaxNodes = 1}, false, true},
      {"several tasks without -N may spread", make(1, 0, 3, 0), {}, true, false},
      {"a node range may spread, even with one task", make(1, 3, 1, 0), {}, true, false},
      {"-N3 spreads over exactly three nodes", make(3, 3, 6, 0), {}, true, false},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    auto shape = shapeJob(row.request, row.options);
    REQUIRE(shape.ok());
    CHECK(shape->canSpread == row.canSpread);
    CHECK(shape->tasksPerNodeFixed == row.tasksPerNodeFixed);
  }
}
