// MaxDrainedTres: one row per rule of "Bounding How Much May Be Drained".
#include <catch2/catch.hpp>

#include "controller/drain/drain_limits.h"
#include "tests/unit/controller/drain/drain_fixtures.h"

using namespace drain_test;
using gantry::config::parseTresLimits;
using gantry::config::TresLimit;

namespace {

struct Row {
  const char* rule;
  DrainedTres record;
  const char* limits;
  const char* reason;  // nullptr: within every limit
};

DrainedTres gpus(std::vector<DeviceDrain> drains) {
  DrainedTres r;
  r.devices = std::move(drains);
  normalise(r);
  return r;
}

}  // namespace

TEST_CASE("MaxDrainedTres decides between DEGRADED and drained", "[drain][limits]") {
  DrainedTres cpus;
  cpus.cpus = {{0, "a"}, {1, "a"}, {2, "a"}, {3, "a"}, {4, "a"}, {5, "a"}};
  DrainedTres mem;
  mem.counts = {{"mem", 6144, "dimm"}};
  DrainedTres bw;
  bw.counts = {{"gres/scratch:nvme", 3, "a"}, {"gres/scratch:ssd", 2, "b"}};
  std::vector<Row> rows = {
      {"within the limit the node stays DEGRADED", gpus({gpuDrain(0, "a"), gpuDrain(1, "b")}), "gres/gpu:3", nullptr},
      {"at the limit the node stays DEGRADED", gpus({gpuDrain(0, "a"), gpuDrain(1, "b")}), "gres/gpu:2", nullptr},
      {"past the limit the node is drained naming the TRES",
       gpus({gpuDrain(0, "a"), gpuDrain(1, "b"), gpuDrain(5, "c", "", "l40")}), "gres/gpu:2",
       "MaxDrainedTres exceeded: gres/gpu 3 drained, limit 2"},
      {"a typed limit counts only that type",
       gpus({gpuDrain(0, "a"), gpuDrain(4, "b", "", "l40"), gpuDrain(5, "c", "", "l40")}), "gres/gpu:h200:1", nullptr},
      {"a typed limit past its count names the type",
       gpus({gpuDrain(0, "a"), gpuDrain(1, "b"), gpuDrain(4, "b", "", "l40")}), "gres/gpu:h200:1",
       "MaxDrainedTres exceeded: gres/gpu:h200 2 drained, limit 1"},
      {"absent slots count toward the GRES", gpus({notFoundDrain(2, uuidOf(2)), gpuDrain(3, "x")}), "gres/gpu:1",
       "MaxDrainedTres exceeded: gres/gpu 2 drained, limit 1"},
      {"absent slots count toward their type",
       gpus({notFoundDrain(4, uuidOf(4), "l40"), notFoundDrain(5, uuidOf(5), "l40")}), "gres/gpu:l40:1",
       "MaxDrainedTres exceeded: gres/gpu:l40 2 drained, limit 1"},
      {"a typed limit names the detected type names it is part of, as registration does",
       gpus({gpuDrain(0, "a", "", "nvidia_h200_nvl"), gpuDrain(1, "b", "", "NVIDIA_H200_NVL"),
             gpuDrain(2, "c", "", "l40s")}),
       "gres/gpu:h200:1", "MaxDrainedTres exceeded: gres/gpu:h200 2 drained, limit 1"},
      {"every drained thread counts toward cpu", cpus, "cpu:5", "MaxDrainedTres exceeded: cpu 6 drained, limit 5"},
      {"mem counts megabytes", mem, "mem:8G", nullptr},
      {"mem past its limit", mem, "mem:4096", "MaxDrainedTres exceeded: mem 6144 drained, limit 4096"},
      {"an untyped limit of a count-only GRES counts all its types", bw, "gres/scratch:4",
       "MaxDrainedTres exceeded: gres/scratch 5 drained, limit 4"},
      {"each TRES past its limit is named",
       [] {
         DrainedTres r = gpus({gpuDrain(0, "a"), gpuDrain(1, "b")});
         r.cpus = {{0, "a"}, {1, "a"}};
         return r;
       }(),
       "gres/gpu:1,cpu:1", "MaxDrainedTres exceeded: gres/gpu 2 drained, limit 1; cpu 2 drained, limit 1"},
      {"a TRES without a limit never drains the node", cpus, "gres/gpu:0", nullptr},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto limits = parseTresLimits(row.limits);  // gantry.conf's own parser of the NodeName value
      REQUIRE(limits.ok());
      auto reason = limitDrainReason(row.record, *limits);
      if (row.reason == nullptr) {
        CHECK_FALSE(reason.has_value());
      } else {
        REQUIRE(reason.has_value());
        CHECK(*reason == row.reason);
      }
    }
  }
}
