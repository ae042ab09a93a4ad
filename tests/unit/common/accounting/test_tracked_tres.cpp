#include <catch2/catch.hpp>

#include "common/accounting/tracked_tres.h"

using namespace gantry::accounting;

namespace {

TrackedTres trackedFrom(const std::vector<std::string>& configured) {
  auto tracked = trackedTresFrom(configured);
  REQUIRE(tracked.ok());
  return tracked.value();
}

struct TracksRow {
  const char* rule;
  std::vector<std::string> configured;  // AccountingStorageTRES
  std::string tres;
  bool tracked;
};

void checkRows(const std::vector<TracksRow>& rows) {
  for (const TracksRow& row : rows) {
    DYNAMIC_SECTION(row.rule) { CHECK(trackedFrom(row.configured).tracks(row.tres) == row.tracked); }
  }
}

}  // namespace

TEST_CASE("the default TRES are always tracked and cannot be removed", "[accounting][tracked]") {
  checkRows({
      {"billing with nothing configured", {}, "billing", true},
      {"cpu with nothing configured", {}, "cpu", true},
      {"energy with nothing configured", {}, "energy", true},
      {"fs/disk with nothing configured", {}, "fs/disk", true},
      {"mem with nothing configured", {}, "mem", true},
      {"node with nothing configured", {}, "node", true},
      {"pages with nothing configured", {}, "pages", true},
      {"vmem with nothing configured", {}, "vmem", true},
      {"a list naming others still has cpu", {"license/fluent", "gres/nic"}, "cpu", true},
      {"a list naming others still has vmem", {"license/fluent"}, "vmem", true},
      {"fs/lustre is not a default", {}, "fs/lustre", false},
      {"no GRES by default", {}, "gres/gpu", false},
      {"no gpumem by default", {}, "gres/gpumem", false},
  });
  CHECK(TrackedTres().names() ==
        std::vector<std::string>{"billing", "cpu", "energy", "fs/disk", "mem", "node", "pages", "vmem"});
}

TEST_CASE("tracking gres/gpu also tracks gres/gpumem and gres/gpuutil", "[accounting][tracked]") {
  checkRows({
      {"gres/gpu adds gpumem", {"license/fluent", "gres/gpu"}, "gres/gpumem", true},
      {"gres/gpu adds gpuutil", {"gres/gpu"}, "gres/gpuutil", true},
      {"the type part is case-free", {"GRES/gpu"}, "gres/gpuutil", true},
      {"another GRES adds neither", {"gres/nic"}, "gres/gpumem", false},
      {"a typed GPU alone adds neither", {"gres/gpu:h100"}, "gres/gpuutil", false},
  });
}

TEST_CASE("gres/gpumem and gres/gpuutil can be tracked on their own", "[accounting][tracked]") {
  checkRows({
      {"gpumem alone is tracked", {"gres/gpumem"}, "gres/gpumem", true},
      {"gpumem alone leaves gpuutil out", {"gres/gpumem"}, "gres/gpuutil", false},
      {"gpumem alone does not track the GPU", {"gres/gpumem"}, "gres/gpu", false},
      {"gpuutil alone is tracked", {"gres/gpuutil"}, "gres/gpuutil", true},
      {"gpuutil alone leaves gpumem out", {"gres/gpuutil"}, "gres/gpumem", false},
  });
  auto tracked = trackedFrom({"gres/gpuutil"});
  CHECK(tracked.tracksGpuUtil());
  CHECK_FALSE(tracked.tracksGpuMem());
}

TEST_CASE("a typed GRES is tracked under its own name", "[accounting][tracked]") {
  checkRows({
      {"the typed name is tracked", {"gres/gpu:h100"}, "gres/gpu:h100", true},
      {"the untyped name is not", {"gres/gpu:h100"}, "gres/gpu", false},
      {"another type is not", {"gres/gpu:h100"}, "gres/gpu:l40s", false},
      {"the untyped name does not track a type", {"gres/gpu"}, "gres/gpu:l40s", false},
      {"a MIG profile type is a name like any", {"gres/gpu:h100_1g.10gb"}, "gres/gpu:h100_1g.10gb", true},
      {"GRES names are matched as written", {"gres/gpu:H100"}, "gres/gpu:h100", false},
  });
}

TEST_CASE("a bad AccountingStorageTRES entry is refused, naming it", "[accounting][tracked]") {
  struct Row {
    const char* rule;
    std::vector<std::string> configured;
    const char* message;
  };
  std::vector<Row> rows = {
      {"an unknown type", {"gres/nic", "gpu/a40"},
       "AccountingStorageTRES: 'gpu/a40' is not a known TRES type (bb, billing, cpu, energy, fs, gres, ic, license, "
       "mem, node, pages, vmem)"},
      {"gres without a name", {"gres"}, "AccountingStorageTRES: 'gres' needs a name, as in gres/NAME"},
      {"license with an empty name", {"license/"}, "AccountingStorageTRES: 'license/' needs a name, as in license/NAME"},
      {"an empty entry", {"gres/nic", " "}, "AccountingStorageTRES: empty entry"},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto tracked = trackedTresFrom(row.configured);
      REQUIRE_FALSE(tracked.ok());
      CHECK(tracked.error() == row.message);
    }
  }
}

TEST_CASE("a drained TRES counts in the node event when tracked", "[accounting][tracked][drain]") {
  struct Row {
    const char* rule;
    std::vector<std::string> configured;
    std::string drained;
    bool counts;
  };
  std::vector<Row> rows = {
      {"cpu always counts", {}, "cpu", true},
      {"mem always counts", {"gres/nic"}, "mem", true},
      {"an untracked GRES does not count", {"gres/nic"}, "gres/gpu", false},
      {"a tracked GRES counts", {"gres/gpu"}, "gres/gpu", true},
      {"a typed drain counts under its tracked untyped name", {"gres/nic"}, "gres/nic:cx7", true},
      {"a typed drain counts when its type is tracked", {"gres/gpu:l40s"}, "gres/gpu:l40s", true},
      {"another tracked type does not make it count", {"gres/gpu:l40s"}, "gres/gpu:h100", false},
      {"an untracked counted GRES does not count", {"gres/gpu"}, "gres/bandwidth", false},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) { CHECK(drainedTresCounts(trackedFrom(row.configured), row.drained) == row.counts); }
  }
}

TEST_CASE("a drain of only untracked GRES opens no node event", "[accounting][tracked][drain]") {
  auto tracked = trackedFrom({"gres/nic"});
  CHECK_FALSE(drainOpensEvent(tracked, {"gres/gpu"}));
  CHECK_FALSE(drainOpensEvent(tracked, {"gres/gpu", "gres/fpga:u280"}));
  CHECK(drainOpensEvent(tracked, {"gres/gpu", "cpu"}));
  CHECK(drainOpensEvent(tracked, {"gres/nic"}));
  CHECK_FALSE(drainOpensEvent(tracked, {}));
}
