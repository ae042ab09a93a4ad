#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "controller/gang/occupancy.h"
#include "gang_builders.h"

using namespace gantry::gang;
using namespace gantry::gang::test;

namespace {

struct FitRow {
  std::string rule;
  Resolution resolution;
  std::vector<int> capacity;
  std::vector<GangJob> placed;
  GangJob candidate;
  bool fits;
};

}  // namespace

TEST_CASE("occupancy: which jobs fit beside the active set", "[gang]") {
  std::vector<FitRow> rows = {
      {"whole nodes: disjoint node ranges fit", Resolution::WholeNode, nodes(6),
       {onNodes(1, 0, 2)}, onNodes(2, 3, 5), true},
      {"whole nodes: one shared node is an overlap", Resolution::WholeNode, nodes(6),
       {onNodes(1, 0, 2)}, onNodes(2, 2, 4), false},
      {"cores: disjoint cores on the same nodes fit", Resolution::Core, nodes(3, 12),
       {onUnits(1, 0, 2, 12, {0, 5})}, onUnits(2, 0, 2, 12, {6, 11}), true},
      {"cores: one shared core is an overlap", Resolution::Core, nodes(3, 12),
       {onUnits(1, 0, 2, 12, {0, 5})}, onUnits(2, 1, 1, 12, {5, 6}), false},
      {"cores: sets wider than one word compare every word", Resolution::Core, nodes(1, 200),
       {onUnits(1, 0, 0, 200, {150, 190})}, onUnits(2, 0, 0, 200, {120, 150}), false},
      {"sockets: different sockets fit", Resolution::Socket, nodes(2, 4),
       {onUnits(1, 0, 1, 4, {0, 1})}, onUnits(2, 0, 1, 4, {2, 3}), true},
      {"cpu counts: within the node's cpus fit", Resolution::CpuCount, nodes(2, 10),
       {withCpus(1, 0, 1, 4), withCpus(2, 0, 1, 3)}, withCpus(3, 0, 1, 3), true},
      {"cpu counts: one cpu beyond the node is an overlap", Resolution::CpuCount, nodes(2, 10),
       {withCpus(1, 0, 1, 4), withCpus(2, 0, 1, 3)}, withCpus(3, 1, 1, 4), false},
      {"a node the partition does not have never fits", Resolution::WholeNode, nodes(2), {},
       onNodes(1, 1, 2), false},
  };
  for (const FitRow& row : rows) {
    SECTION(row.rule) {
      Occupancy occupancy(row.resolution, row.capacity);
      for (const GangJob& job : row.placed) {
        REQUIRE(occupancy.fits(job));
        occupancy.add(job);
      }
      CHECK(occupancy.fits(row.candidate) == row.fits);
    }
  }
}

TEST_CASE("occupancy: clear frees every node", "[gang]") {
  Occupancy occupancy(Resolution::Core, nodes(4, 8));
  occupancy.add(onUnits(1, 0, 3, 8, {0, 7}));
  REQUIRE_FALSE(occupancy.fits(onUnits(2, 3, 3, 8, {7, 7})));
  occupancy.clear();
  CHECK(occupancy.fits(onUnits(2, 0, 3, 8, {0, 7})));
}
