// -O/--overcommit: how a step's tasks are shared out over the nodes the
// selection gave it. One row per rule.
#include <catch2/catch.hpp>

#include "controller/core/overcommit.h"

using namespace gantry;

TEST_CASE("overcommitted tasks are spread evenly, the first nodes taking one more", "[core][overcommit]") {
  struct Row {
    const char* rule;
    int ntasks;
    int nodes;
    std::vector<int> tasks;
  };
  const Row rows[] = {
      {"all on one node", 9, 1, {9}},
      {"an even split", 10, 2, {5, 5}},
      {"the remainder on the first nodes", 7, 3, {3, 2, 2}},
      {"every node keeps a task", 2, 4, {1, 1, 1, 1}},
      {"no task count: one per node", 0, 3, {1, 1, 1}},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      std::vector<select::NodeGrant> grants(row.nodes);
      core::spreadTasks(row.ntasks, grants);
      std::vector<int> got;
      for (const auto& grant : grants) got.push_back(grant.tasks);
      CHECK(got == row.tasks);
    }
  }
}

TEST_CASE("an overcommitted request keeps its node count and -c", "[core][overcommit]") {
  select::Request request;
  request.minNodes = 3;
  request.maxNodes = 3;
  request.ntasks = 40;
  request.cpusPerTask = 2;
  select::Request asked = core::overcommitted(request);
  CHECK(asked.ntasks == 3);
  CHECK(asked.minNodes == 3);
  CHECK(asked.cpusPerTask == 2);
}
