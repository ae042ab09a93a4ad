// applyDrainCommand: one row per rule of gres.md "Draining GRES" that needs
// the node. gx7 (drain_fixtures.h) has six GPUs in a saved order, slot 4 empty and drained not_found.
#include <catch2/catch.hpp>
#include <functional>

#include "tests/unit/controller/drain/drain_fixtures.h"

using namespace drain_test;

namespace {

struct Row {
  const char* rule;
  DrainedTres before;
  DrainRequest request;
  // Either the error text it must contain (the record is then unchanged) ...
  const char* error;
  // ... or a check of the record after, and the devices it reports left drained.
  std::function<void(const DrainedTres&)> check;
  std::vector<std::string> leftDrained = {};
};

DrainedTres with(std::function<void(DrainedTres&)> edit, DrainedTres record = gx7Record()) {
  edit(record);
  normalise(record);
  return record;
}

std::vector<int> drainedGpus(const DrainedTres& r) {
  std::vector<int> out;
  for (const DeviceDrain& d : r.devices) out.push_back(d.index);
  return out;
}

std::vector<int> drainedCpus(const DrainedTres& r) {
  std::vector<int> out;
  for (const CpuDrain& c : r.cpus) out.push_back(c.cpu);
  return out;
}

const CountDrain* countOf(const DrainedTres& r, const std::string& tres) {
  for (const CountDrain& c : r.counts) {
    if (c.tres == tres) return &c;
  }
  return nullptr;
}

const std::string kGone4 = "gres/gpu index 4 of gx7 stays drained: no device there";

}  // namespace

TEST_CASE("drain commands follow every rule of Draining GRES", "[drain][command]") {
  std::vector<Row> rows = {
      {"Reason is required for Drain",
       gx7Record(),
       byIndex("gres/gpu", {1}, DrainAction::Drain),
       "Reason= is required for Action=Drain",
       {}},
      {"Reason is required for SetDrain",
       gx7Record(),
       byIndex("gres/gpu", {1}, DrainAction::SetDrain),
       "Reason= is required for Action=SetDrain",
       {}},
      {"Resume needs no Reason", with([](DrainedTres& r) { r.devices.push_back(gpuDrain(1, "fan", uuidOf(1))); }),
       byIndex("gres/gpu", {1}, DrainAction::Resume), nullptr,
       [](const DrainedTres& r) { CHECK(drainedGpus(r) == std::vector<int>{4}); }},
      {"a request selects something",
       gx7Record(),
       request("gres/gpu", SelectorKind::None, DrainAction::Drain, "x"),
       "needs Index=, Uuid= or Count=",
       {}},
      {"with a saved order an Index drain belongs to the device at that index", gx7Record(),
       byIndex("gres/gpu", {2}, DrainAction::Drain, "xid_79"), nullptr,
       [](const DrainedTres& r) {
         REQUIRE(deviceDrainAt(r, "gpu", 2));
         CHECK(*deviceDrainAt(r, "gpu", 2) == gpuDrain(2, "xid_79", uuidOf(2)));
       }},
      {"without a saved order a drain belongs to its index", DrainedTres{},
       byIndex("gres/gpu", {2}, DrainAction::Drain, "xid_79"), nullptr,
       [](const DrainedTres& r) { CHECK(*deviceDrainAt(r, "gpu", 2) == gpuDrain(2, "xid_79", "")); }},
      {"Uuid selects the saved slot of that device", gx7Record(), byUuid(uuidOf(5), DrainAction::Drain, "hot"), nullptr,
       [](const DrainedTres& r) {
         CHECK(drainedGpus(r) == std::vector<int>{4, 5});
       }},
      {"Uuid never selects an empty slot",
       gx7Record(),
       byUuid(uuidOf(4), DrainAction::Resume),
       "its empty slot is gres/gpu Index=4",
       {}},
      {"an unknown Uuid is refused",
       gx7Record(),
       byUuid("GPU-0000", DrainAction::Drain, "x"),
       "no gres/gpu on gx7 has Uuid=GPU-0000",
       {}},
      {"Index=ALL of a type drains every device of it, empty slots included", gx7Record(),
       request("gres/gpu:l40", SelectorKind::All, DrainAction::Drain, "fw"), nullptr,
       [](const DrainedTres& r) {
         CHECK(drainedGpus(r) == std::vector<int>{4, 5});
         CHECK(deviceDrainAt(r, "gpu", 4)->reason == "fw");
         CHECK(deviceDrainAt(r, "gpu", 4)->uuid == uuidOf(4));  // the device that left keeps its drain
       }},
      {"a TresName type names the devices whose type contains it, in any case", gx7Record(),
       request("gres/gpu:L4", SelectorKind::All, DrainAction::Drain, "fw"), nullptr,
       [](const DrainedTres& r) {
         CHECK(drainedGpus(r) == std::vector<int>{4, 5});
       }},
      {"Index names a device of the TresName's type",
       gx7Record(),
       byIndex("gres/gpu:l40", {1}, DrainAction::Drain, "x"),
       "index 1 of gx7 is not of type l40",
       {}},
      {"Index names a device of the node",
       gx7Record(),
       byIndex("gres/gpu", {6}, DrainAction::Drain, "x"),
       "gres/gpu Index=6 is not a device of gx7 (indexes 0-5)",
       {}},
      {"Drain adds to what is drained", with([](DrainedTres& r) { r.devices.push_back(gpuDrain(0, "a", uuidOf(0))); }),
       byIndex("gres/gpu", {3}, DrainAction::Drain, "b"), nullptr,
       [](const DrainedTres& r) {
         CHECK(drainedGpus(r) == std::vector<int>{0, 3, 4});
       }},
      {"SetDrain makes the drained set exactly what it names, leaving empty slots drained",
       with([](DrainedTres& r) { r.devices.push_back(gpuDrain(0, "a", uuidOf(0))); }),
       byIndex("gres/gpu", {3}, DrainAction::SetDrain, "b"),
       nullptr,
       [](const DrainedTres& r) {
         CHECK(drainedGpus(r) == std::vector<int>{3, 4});
       },
       {kGone4}},
      {"Resume of an absent index is refused",
       gx7Record(),
       byIndex("gres/gpu", {4}, DrainAction::Resume),
       "gres/gpu index 4 of gx7 has no device; it stays drained until a device fills it",
       {}},
      {"Resume Index=ALL leaves an empty slot drained and names it",
       with([](DrainedTres& r) { r.devices.push_back(gpuDrain(1, "a", uuidOf(1))); }),
       request("gres/gpu", SelectorKind::All, DrainAction::Resume),
       nullptr,
       [](const DrainedTres& r) { CHECK(drainedGpus(r) == std::vector<int>{4}); },
       {kGone4}},
      {"a device GRES is not drained by Count",
       gx7Record(),
       byCount("gres/gpu", 2, DrainAction::Drain, "x"),
       "select them with Index= or Uuid=",
       {}},
      {"shared GRES cannot be drained directly",
       gx7Record(),
       byCount("gres/shard", 2, DrainAction::Drain, "x"),
       "gres/shard is shared and cannot be drained directly; drain the GPU that backs it",
       {}},
      {"mps cannot be drained directly either",
       gx7Record(),
       byCount("gres/mps", 50, DrainAction::Drain, "x"),
       "gres/mps is shared and cannot be drained directly; drain the GPU that backs it",
       {}},
      {"a GRES the node lacks is refused",
       gx7Record(),
       byCount("gres/fpga", 1, DrainAction::Drain, "x"),
       "gx7 has no gres/fpga",
       {}},
      {"only cpu, mem and gres can be drained",
       gx7Record(),
       byCount("license/matlab", 1, DrainAction::Drain, "x"),
       "TresName=license/matlab cannot be drained",
       {}},
      {"a count-only GRES drains by Count", gx7Record(), byCount("gres/netbw", 3, DrainAction::Drain, "probe"), nullptr,
       [](const DrainedTres& r) {
         CHECK(*countOf(r, "gres/netbw") == CountDrain{"gres/netbw", 3, "probe"});
       }},
      {"a later Drain of an amount adds to it and replaces its one reason", with([](DrainedTres& r) {
         r.counts.push_back({"gres/netbw", 3, "probe"});
       }),
       byCount("gres/netbw", 2, DrainAction::Drain, "relink"), nullptr,
       [](const DrainedTres& r) {
         CHECK(*countOf(r, "gres/netbw") == CountDrain{"gres/netbw", 5, "relink"});
       }},
      {"SetDrain of an amount sets it exactly", with([](DrainedTres& r) {
         r.counts.push_back({"gres/netbw", 3, "probe"});
       }),
       byCount("gres/netbw", 1, DrainAction::SetDrain, "probe"), nullptr,
       [](const DrainedTres& r) { CHECK(countOf(r, "gres/netbw")->count == 1); }},
      {"Resume of an amount returns that much", with([](DrainedTres& r) {
         r.counts.push_back({"gres/netbw", 5, "probe"});
       }),
       byCount("gres/netbw", 2, DrainAction::Resume), nullptr,
       [](const DrainedTres& r) { CHECK(countOf(r, "gres/netbw")->count == 3); }},
      {"an amount cannot pass what the node has",
       gx7Record(),
       byCount("gres/netbw", 9, DrainAction::Drain, "x"),
       "draining 9 of gres/netbw is more than the 8 gx7 has",
       {}},
      {"a typed count-only GRES keeps one drain per type", gx7Record(),
       byCount("gres/scratch:ssd", 4, DrainAction::Drain, "worn"), nullptr,
       [](const DrainedTres& r) {
         CHECK(*countOf(r, "gres/scratch:ssd") == CountDrain{"gres/scratch:ssd", 4, "worn"});
       }},
      {"an untyped name of a GRES with several types is refused",
       gx7Record(),
       byCount("gres/scratch", 1, DrainAction::Drain, "x"),
       "gres/scratch has types nvme, ssd on gx7",
       {}},
      {"a count-only GRES is not drained by Index",
       gx7Record(),
       byIndex("gres/netbw", {0}, DrainAction::Drain, "x"),
       "select how much with Count=",
       {}},
      {"memory drains by Count in megabytes", gx7Record(), byCount("mem", 3072, DrainAction::Drain, "dimm"), nullptr,
       [](const DrainedTres& r) {
         CHECK(*countOf(r, "mem") == CountDrain{"mem", 3072, "dimm"});
       }},
      {"memory is not drained by Index",
       gx7Record(),
       byIndex("mem", {0}, DrainAction::Drain, "x"),
       "select how much with Count=",
       {}},
      {"a numeric Count is refused for cpu",
       gx7Record(),
       byCount("cpu", 2, DrainAction::Drain, "x"),
       "a numeric Count= is refused for cpu",
       {}},
      {"Count=ALL drains every core", gx7Record(), request("cpu", SelectorKind::All, DrainAction::Drain, "mce"),
       nullptr, [](const DrainedTres& r) { CHECK(r.cpus.size() == 16); }},
      {"naming one thread drains its whole core", gx7Record(), byIndex("cpu", {5, 8}, DrainAction::Drain, "mce"),
       nullptr,
       [](const DrainedTres& r) {
         CHECK(drainedCpus(r) == std::vector<int>{4, 5, 8, 9});
       }},
      {"resuming one thread resumes its whole core", with([](DrainedTres& r) {
         r.cpus = {{4, "mce"}, {5, "mce"}, {8, "mce"}, {9, "mce"}};
       }),
       byIndex("cpu", {9}, DrainAction::Resume), nullptr,
       [](const DrainedTres& r) {
         CHECK(drainedCpus(r) == std::vector<int>{4, 5});
       }},
      {"SetDrain of CPUs leaves exactly the named cores", with([](DrainedTres& r) {
         r.cpus = {{4, "mce"}, {5, "mce"}};
       }),
       byIndex("cpu", {0}, DrainAction::SetDrain, "l1"), nullptr,
       [](const DrainedTres& r) {
         CHECK(drainedCpus(r) == std::vector<int>{0, 1});
       }},
      {"a CPU index past the node is refused",
       gx7Record(),
       byIndex("cpu", {16}, DrainAction::Drain, "x"),
       "cpu Index=16 is not a CPU of gx7 (CPUs 0-15)",
       {}},
      {"CPUs have no Uuid",
       gx7Record(),
       [] {
         DrainRequest r = byUuid(uuidOf(1), DrainAction::Drain, "x");
         r.tres = "cpu";
         return r;
       }(),
       "cpu has no Uuid=",
       {}},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto outcome = applyDrainCommand(row.before, gx7Node(row.before), row.request);
      if (row.error != nullptr) {
        REQUIRE_FALSE(outcome.ok());
        CHECK_THAT(outcome.error(), Catch::Contains(row.error));
      } else {
        REQUIRE(outcome.ok());
        row.check(outcome->record);
        CHECK(outcome->leftDrained == row.leftDrained);
      }
    }
  }
}

TEST_CASE("SetDrain repeated changes nothing", "[drain][command]") {
  DrainRequest set = byIndex("gres/gpu:h200", {1, 2}, DrainAction::SetDrain, "pcie_replay");
  auto once = applyDrainCommand(gx7Record(), gx7Node(gx7Record()), set);
  REQUIRE(once.ok());
  auto twice = applyDrainCommand(once->record, gx7Node(once->record), set);
  REQUIRE(twice.ok());
  CHECK(twice->record == once->record);
}
