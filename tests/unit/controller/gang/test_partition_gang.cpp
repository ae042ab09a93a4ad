#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "controller/gang/partition_gang.h"
#include "gang_builders.h"

using namespace gantry::gang;
using namespace gantry::gang::test;

namespace {

using Ids = std::vector<uint64_t>;

struct RuleRow {
  std::string rule;
  // Brings the partition (7 whole nodes) to the state under test and does
  // the action whose changes are checked.
  std::function<GangChanges(PartitionGang&)> act;
  Ids suspend;
  Ids resume;
  std::map<uint64_t, GangState> states;
};

constexpr auto R = GangState::Running;
constexpr auto W = GangState::Waiting;
constexpr auto H = GangState::Held;

}  // namespace

TEST_CASE("partition gang: one rule per row", "[gang]") {
  std::vector<RuleRow> rows = {
      {"a job that fits beside the active set runs at once",
       [](PartitionGang& g) {
         g.admit(onNodes(1, 0, 3));
         CHECK(g.admit(onNodes(2, 4, 6)));
         return GangChanges{};
       },
       {}, {}, {{1, R}, {2, R}}},
      {"a job that overlaps the active set starts suspended",
       [](PartitionGang& g) {
         g.admit(onNodes(1, 0, 3));
         CHECK_FALSE(g.admit(onNodes(2, 3, 4)));
         return GangChanges{};
       },
       {}, {}, {{1, R}, {2, W}}},
      {"admitting a known job again changes nothing",
       [](PartitionGang& g) {
         g.admit(onNodes(1, 0, 3));
         g.admit(onNodes(2, 0, 0));
         CHECK_FALSE(g.admit(onNodes(2, 5, 5)));
         return GangChanges{};
       },
       {}, {}, {{1, R}, {2, W}}},
      {"a slice end with no job waiting changes nothing",
       [](PartitionGang& g) {
         g.admit(onNodes(1, 0, 1));
         g.admit(onNodes(2, 2, 3));
         return g.rotate();
       },
       {}, {}, {{1, R}, {2, R}}},
      {"at a slice end the longest waiting job runs and the runners are suspended",
       [](PartitionGang& g) {
         g.admit(onNodes(1, 0, 6));
         g.admit(onNodes(2, 0, 6));
         g.admit(onNodes(3, 0, 6));
         return g.rotate();
       },
       {1}, {2}, {{1, W}, {2, R}, {3, W}}},
      {"runners go to the back of the queue keeping their order",
       [](PartitionGang& g) {
         g.admit(onNodes(1, 0, 2));
         g.admit(onNodes(2, 3, 6));
         g.admit(onNodes(3, 0, 6));
         auto changes = g.rotate();
         CHECK(g.order() == Ids{3, 1, 2});
         return changes;
       },
       {1, 2}, {3}, {{1, W}, {2, W}, {3, R}}},
      {"a runner that does not overlap the waiting job keeps running",
       [](PartitionGang& g) {
         g.admit(onNodes(1, 0, 2));
         g.admit(onNodes(2, 5, 6));
         g.admit(onNodes(3, 0, 2));
         return g.rotate();
       },
       {1}, {3}, {{1, W}, {2, R}, {3, R}}},
      {"every following job that fits joins the rebuilt active set",
       [](PartitionGang& g) {
         g.admit(onNodes(1, 0, 6));
         g.admit(onNodes(2, 0, 1));
         g.admit(onNodes(3, 1, 2));
         g.admit(onNodes(4, 3, 4));
         return g.rotate();
       },
       {1}, {2, 4}, {{1, W}, {2, R}, {3, W}, {4, R}}},
      {"an ending runner makes room for waiting jobs in queue order",
       [](PartitionGang& g) {
         g.admit(onNodes(1, 0, 6));
         g.admit(onNodes(2, 0, 3));
         g.admit(onNodes(3, 3, 6));
         g.admit(onNodes(4, 4, 6));
         return g.remove(1);
       },
       {}, {2, 4}, {{2, R}, {3, W}, {4, R}}},
      {"an ending waiting job changes nothing for the others",
       [](PartitionGang& g) {
         g.admit(onNodes(1, 0, 6));
         g.admit(onNodes(2, 0, 6));
         return g.remove(2);
       },
       {}, {}, {{1, R}}},
      {"removing an unknown job changes nothing",
       [](PartitionGang& g) {
         g.admit(onNodes(1, 0, 6));
         return g.remove(99);
       },
       {}, {}, {{1, R}}},
      {"an administrator hold on a runner fills its place",
       [](PartitionGang& g) {
         g.admit(onNodes(1, 0, 6));
         g.admit(onNodes(2, 0, 6));
         return g.hold(1);
       },
       {}, {2}, {{1, H}, {2, R}}},
      {"a held job is never resumed by the timeslicer",
       [](PartitionGang& g) {
         g.admit(onNodes(1, 0, 6));
         g.admit(onNodes(2, 0, 6));
         g.hold(1);
         g.rotate();
         return g.rotate();
       },
       {}, {}, {{1, H}, {2, R}}},
      {"a released job runs at once when it fits",
       [](PartitionGang& g) {
         g.admit(onNodes(1, 0, 2));
         g.hold(1);
         g.admit(onNodes(2, 3, 6));
         return g.release(1);
       },
       {}, {1}, {{1, R}, {2, R}}},
      {"a released job that overlaps waits for its turn",
       [](PartitionGang& g) {
         g.admit(onNodes(1, 0, 6));
         g.hold(1);
         g.admit(onNodes(2, 0, 6));
         auto changes = g.release(1);
         CHECK(changes.empty());
         return g.rotate();
       },
       {2}, {1}, {{1, R}, {2, W}}},
      {"a restored runner that overlaps another restored runner is suspended",
       [](PartitionGang& g) {
         g.restore(onNodes(1, 0, 3), W);
         g.restore(onNodes(2, 0, 3), R);
         return g.restore(onNodes(3, 2, 4), R);
       },
       {3}, {}, {{1, W}, {2, R}, {3, W}}},
      {"after a restore the longest waiting job runs at the next slice",
       [](PartitionGang& g) {
         g.restore(onNodes(1, 0, 3), W);
         g.restore(onNodes(2, 0, 3), R);
         return g.rotate();
       },
       {2}, {1}, {{1, R}, {2, W}}},
  };
  for (const RuleRow& row : rows) {
    SECTION(row.rule) {
      PartitionGang gang(Resolution::WholeNode, nodes(7));
      GangChanges changes = row.act(gang);
      CHECK(changes.suspend == row.suspend);
      CHECK(changes.resume == row.resume);
      for (auto [job, state] : row.states) {
        INFO("job " << job);
        CHECK(gang.state(job) == state);
      }
      CHECK(gang.size() == row.states.size());
    }
  }
}
