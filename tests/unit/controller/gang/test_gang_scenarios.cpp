// The squeue transcripts of the gang scheduling spec, replayed slice by
// slice in simulated time, then the same rules on other shapes and numbers.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "controller/gang/partition_gang.h"
#include "gang_builders.h"

using namespace gantry::gang;
using namespace gantry::gang::test;

namespace {

using Ids = std::set<uint64_t>;

// Drives one partition through slices of `slice` seconds and keeps each
// job's time spent running, as squeue's TIME column counts it.
class SliceClock {
 public:
  SliceClock(PartitionGang& gang, int slice) : gang_(gang), slice_(slice) {}

  void admit(GangJob job) {
    uint64_t id = job.id;
    gang_.admit(std::move(job));
    ran_.emplace(id, 0);
  }
  // Lets a whole slice pass, then fires the slice timer.
  void sliceEnds() {
    for (auto& [id, seconds] : ran_)
      if (gang_.state(id) == GangState::Running) seconds += slice_;
    GangChanges changes = gang_.rotate();
    // Suspends and resumes never name the same job, and a job is resumed
    // only if it was not running.
    for (uint64_t id : changes.suspend) CHECK(gang_.state(id) == GangState::Waiting);
    for (uint64_t id : changes.resume) CHECK(gang_.state(id) == GangState::Running);
  }
  Ids running() const {
    Ids ids;
    for (auto& [id, seconds] : ran_)
      if (gang_.state(id) == GangState::Running) ids.insert(id);
    return ids;
  }
  int ranSeconds(uint64_t id) const { return ran_.at(id); }

 private:
  PartitionGang& gang_;
  int slice_;
  std::map<uint64_t, int> ran_;
};

}  // namespace

TEST_CASE("spec: two five-node jobs alternate every slice", "[gang][spec]") {
  PartitionGang gang(Resolution::WholeNode, nodes(5));
  SliceClock clock(gang, 30);
  clock.admit(onNodes(3, 0, 4));
  clock.admit(onNodes(4, 0, 4));
  CHECK(clock.running() == Ids{3});
  clock.sliceEnds();
  CHECK(clock.running() == Ids{4});
  clock.sliceEnds();
  CHECK(clock.running() == Ids{3});
  CHECK(clock.ranSeconds(3) == 30);
  CHECK(clock.ranSeconds(4) == 30);
}

TEST_CASE("spec: job 10 runs on while 9 and 11 take turns", "[gang][spec]") {
  PartitionGang gang(Resolution::WholeNode, nodes(5));
  SliceClock clock(gang, 30);
  clock.admit(onNodes(9, 0, 2));
  clock.admit(onNodes(10, 3, 4));
  clock.admit(onNodes(11, 0, 2));
  CHECK(clock.running() == Ids{9, 10});
  clock.sliceEnds();
  CHECK(clock.running() == Ids{10, 11});
  clock.sliceEnds();
  CHECK(clock.running() == Ids{9, 10});
  CHECK(clock.ranSeconds(10) == 60);
  CHECK(clock.ranSeconds(9) == 30);
  CHECK(clock.ranSeconds(11) == 30);
}

TEST_CASE("spec: local backfill starts job 14 beside job 12 while 13 waits", "[gang][spec]") {
  PartitionGang gang(Resolution::WholeNode, nodes(5));
  SliceClock clock(gang, 30);
  clock.admit(onNodes(12, 0, 2));
  clock.admit(onNodes(13, 0, 4));
  clock.admit(onNodes(14, 3, 4));
  CHECK(clock.running() == Ids{12, 14});
  clock.sliceEnds();
  CHECK(clock.running() == Ids{13});
  clock.sliceEnds();
  CHECK(clock.running() == Ids{12, 14});
}

TEST_CASE("spec: under CR_Core only the jobs sharing cores alternate", "[gang][spec]") {
  // Five nodes of two quad-core sockets; every job holds two cores a node.
  PartitionGang gang(Resolution::Core, nodes(5, 8));
  SliceClock clock(gang, 30);
  clock.admit(onUnits(44, 0, 4, 8, {0, 1}));
  clock.admit(onUnits(45, 0, 4, 8, {2, 3}));
  clock.admit(onUnits(46, 0, 4, 8, {4, 5}));
  clock.admit(onUnits(47, 0, 4, 8, {6, 7}));
  clock.admit(onUnits(48, 0, 4, 8, {0, 1}));
  clock.admit(onUnits(49, 0, 4, 8, {2, 3}));
  CHECK(clock.running() == Ids{44, 45, 46, 47});
  for (int slice = 1; slice <= 6; ++slice) {
    clock.sliceEnds();
    CHECK(clock.running().count(46));
    CHECK(clock.running().count(47));
    CHECK(clock.running() == (slice % 2 ? Ids{46, 47, 48, 49} : Ids{44, 45, 46, 47}));
  }
  CHECK(clock.ranSeconds(46) == 180);
  CHECK(clock.ranSeconds(47) == 180);
  CHECK(clock.ranSeconds(44) == 90);
  CHECK(clock.ranSeconds(48) == 90);
}

TEST_CASE("spec: under CR_CPU all six jobs share time equally", "[gang][spec]") {
  PartitionGang gang(Resolution::CpuCount, nodes(5, 8));
  SliceClock clock(gang, 30);
  for (uint64_t id = 51; id <= 56; ++id) clock.admit(withCpus(id, 0, 4, 2));
  CHECK(clock.running() == Ids{51, 52, 53, 54});
  clock.sliceEnds();
  CHECK(clock.running() == Ids{51, 52, 55, 56});
  clock.sliceEnds();
  CHECK(clock.running() == Ids{53, 54, 55, 56});
  clock.sliceEnds();
  CHECK(clock.running() == Ids{51, 52, 53, 54});
  for (uint64_t id = 51; id <= 56; ++id) CHECK(clock.ranSeconds(id) == 60);
}

// The same rules on other shapes: no job waits more than its share, and the
// resources of the active set never overlap.
TEST_CASE("rotation: three jobs on one node each run one slice in three", "[gang]") {
  PartitionGang gang(Resolution::WholeNode, nodes(1));
  SliceClock clock(gang, 45);
  for (uint64_t id = 1; id <= 3; ++id) clock.admit(onNodes(id, 0, 0));
  for (int slice = 0; slice < 9; ++slice) {
    CHECK(clock.running().size() == 1);
    clock.sliceEnds();
  }
  for (uint64_t id = 1; id <= 3; ++id) CHECK(clock.ranSeconds(id) == 135);
}

TEST_CASE("rotation: cpu counts of uneven size on twelve-cpu nodes", "[gang]") {
  // Jobs of 6, 6, 8 and 4 cpus a node on three 12-cpu nodes: no slice ever
  // holds more than 12 cpus a node, and nobody waits more than one slice.
  PartitionGang gang(Resolution::CpuCount, nodes(3, 12));
  SliceClock clock(gang, 10);
  clock.admit(withCpus(1, 0, 2, 6));
  clock.admit(withCpus(2, 0, 2, 6));
  clock.admit(withCpus(3, 0, 2, 8));
  clock.admit(withCpus(4, 0, 2, 4));
  std::map<uint64_t, int> waited;
  for (int slice = 0; slice < 12; ++slice) {
    Ids now = clock.running();
    int cpus = 0;
    const std::map<uint64_t, int> size = {{1, 6}, {2, 6}, {3, 8}, {4, 4}};
    for (uint64_t id : now) cpus += size.at(id);
    CHECK(cpus <= 12);
    for (uint64_t id = 1; id <= 4; ++id) {
      waited[id] = now.count(id) ? 0 : waited[id] + 1;
      CHECK(waited[id] <= 1);
    }
    clock.sliceEnds();
  }
}

TEST_CASE("rotation: a job ending mid-slice lets the waiting job in at once", "[gang]") {
  PartitionGang gang(Resolution::Socket, nodes(2, 2));
  gang.admit(onUnits(7, 0, 1, 2, {0, 1}));
  gang.admit(onUnits(8, 0, 1, 2, {1, 1}));
  gang.admit(onUnits(9, 0, 0, 2, {0, 0}));
  GangChanges changes = gang.remove(7);
  CHECK(changes.resume == std::vector<uint64_t>{8, 9});
  CHECK(changes.suspend.empty());
}

TEST_CASE("docs/gang.md worked example", "[gang][docs]") {
  PartitionGang gang(Resolution::WholeNode, nodes(4));
  SliceClock clock(gang, 30);
  clock.admit(onNodes(1, 0, 1));  // A
  clock.admit(onNodes(2, 0, 3));  // B
  clock.admit(onNodes(3, 2, 3));  // C
  CHECK(clock.running() == Ids{1, 3});
  clock.sliceEnds();
  CHECK(clock.running() == Ids{2});
  CHECK(gang.order() == std::vector<uint64_t>{2, 1, 3});
  clock.sliceEnds();
  CHECK(clock.running() == Ids{1, 3});
  CHECK(gang.remove(3).empty());
  CHECK(gang.order() == std::vector<uint64_t>{1, 2});
  clock.sliceEnds();
  CHECK(gang.state(2) == GangState::Running);
  CHECK(gang.state(1) == GangState::Waiting);
}
