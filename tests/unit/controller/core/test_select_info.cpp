// The selection view of a registered node (core::selectInfoFor): which GRES
// records become devices and which are counted, as the Gres= of gantry.conf
// says. One row per rule.
#include <catch2/catch.hpp>

#include "controller/core/select_info.h"
#include "controller/select/cluster.h"
#include "tests/unit/controller/select/rule_rows.h"
#include "tests/unit/controller/select/select_builders.h"

using namespace gantry;

namespace {

// A registered node whose agent reported `records` (name, files, count) and
// whose gantry.conf line has Gres=`configured`.
core::NodeRecord registeredNode(const std::vector<config::GresCount>& configured,
                                const std::vector<std::tuple<std::string, std::string, uint64_t>>& records) {
  core::NodeRecord record;
  record.conf.name = "lab7";
  record.conf.cpus = 4;
  record.conf.coresPerSocket = 4;
  record.conf.gres = configured;
  record.hardwareKnown = true;
  record.hardware.set_cpus(4);
  record.hardware.set_sockets(1);
  record.hardware.set_cores_per_socket(4);
  record.hardware.set_threads_per_core(1);
  record.hardware.set_real_memory_mb(8000);
  for (const auto& [name, file, count] : records) {
    v1::GresDevice* device = record.hardware.add_gres();
    device->set_name(name);
    if (!file.empty()) device->add_files(file);
    device->set_count(count);
    device->set_index(-1);
  }
  return record;
}

select::Request askFor(const std::string& name, uint64_t count) {
  select::Request request;
  request.gresPerNode.push_back({name, "", count});
  return request;
}

}  // namespace

TEST_CASE("select view of count-only GRES", "[core][select_info]") {
  select_test::runRows({
      {"a no_consume GRES of one is counted, not a device",
       [] {
         auto node = registeredNode({{.name = "lic", .type = "", .noConsume = true, .count = 1}}, {{"lic", "", 1}});
         select::NodeInfo info = core::selectInfoFor(node);
         CHECK(info.devices.empty());
         REQUIRE(info.countedGres.size() == 1);
         CHECK(info.countedGres[0].name == "lic");
         CHECK(info.countedGres[0].count == 1);
         CHECK(info.countedGres[0].noConsume);
       }},
      {"a consumable GRES of one without a file stays a device",
       [] {
         auto node = registeredNode({{.name = "dongle", .type = "", .noConsume = false, .count = 1}}, {{"dongle", "", 1}});
         select::NodeInfo info = core::selectInfoFor(node);
         REQUIRE(info.devices.size() == 1);
         CHECK(info.devices[0].name == "dongle");
         CHECK(info.countedGres.empty());
       }},
      {"two jobs may hold a no_consume GRES of one at once, and it shows as unused",
       [] {
         auto node = registeredNode({{.name = "lic", .type = "", .noConsume = true, .count = 1}, {.name = "dongle", .type = "", .noConsume = false, .count = 1}},
                                    {{"lic", "", 1}, {"dongle", "", 1}});
         select::Cluster cluster;
         cluster.addNode(core::selectInfoFor(node));
         for (int job = 0; job < 2; ++job) {
           auto outcome = cluster.select(askFor("lic", 1), select::testing::allNodes(cluster));
           REQUIRE(outcome.verdict == select::Verdict::Placed);
           cluster.commit(outcome.allocation);
         }
         auto consumed = cluster.select(askFor("dongle", 1), select::testing::allNodes(cluster));
         REQUIRE(consumed.verdict == select::Verdict::Placed);
         cluster.commit(consumed.allocation);
         CHECK(cluster.select(askFor("dongle", 1), select::testing::allNodes(cluster)).verdict == select::Verdict::NotNow);
         CHECK(cluster.gresUsed(0) == "dongle:1(IDX:0),lic:0");
       }},
  });
}
