// sacctmgr show event: conditions, Slurm's default window and format,
// Format= fields and the table.
#include <catch2/catch.hpp>

#include "cli/sacct_time.h"
#include "cli/sacctmgr_event.h"
#include "cli_fixtures.h"

using namespace gantry;
using namespace gantry::cli;

namespace {

const int64_t kNow = 1805000000;  // 2027-03-14T04:53:20 UTC

std::vector<std::string> keys(const EventPlan& plan) {
  std::vector<std::string> out;
  for (const auto& field : plan.fields) out.push_back(field.key);
  return out;
}

v1::AccountingNodeEvent openDegraded() {
  v1::AccountingNodeEvent event;
  event.set_cluster("orion");
  event.set_node("gn12");
  event.set_start_time(kNow - 7200);
  event.set_state("DEGRADED");
  event.set_reason("ecc_storm");
  event.set_user("root");
  event.set_tres("cpu=64,mem=515000M,gres/gpu=4");
  event.set_tres_reference("gres/gpu=1");
  return event;
}

}  // namespace

TEST_CASE("sacctmgr show event plans", "[cli][sacctmgr]") {
  cli_fixtures::useUtc();
  SECTION("no conditions: since 00:00 yesterday, Slurm's default format without TRES") {
    auto plan = planEventQuery({}, kNow);
    REQUIRE(plan.ok());
    CHECK(plan->request.window().start() == startOfYesterday(kNow));
    CHECK(keys(*plan) ==
          std::vector<std::string>{"Cluster", "NodeName", "TimeStart", "TimeEnd", "State", "Reason", "User"});
  }
  SECTION("States= without Start= asks for what is in force now") {
    auto plan = planEventQuery({"States=Degraded,drain"}, kNow);
    REQUIRE(plan.ok());
    CHECK(plan->request.window().start() == kNow);
    REQUIRE(plan->request.states_size() == 2);
    CHECK(plan->request.states(0) == "DEGRADED");
    CHECK(plan->request.states(1) == "DRAIN");
  }
  SECTION("Nodes=, Start=, End=, CondFlags=Open, where") {
    auto plan = planEventQuery({"where", "Nodes=gn[10-12]", "Start=uts1804000000", "End=uts1804900000",
                                "CondFlags=Open"},
                               kNow);
    REQUIRE(plan.ok());
    CHECK(plan->request.nodes() == "gn[10-12]");
    CHECK(plan->request.window().start() == 1804000000);
    CHECK(plan->request.window().end() == 1804900000);
    CHECK(plan->request.open_only());
  }
  SECTION("All_Time lifts the window") {
    auto plan = planEventQuery({"All_Time"}, kNow);
    REQUIRE(plan.ok());
    CHECK_FALSE(plan->request.has_window());
  }
  SECTION("Format= with Start/End aliases, TRES and TresReference") {
    auto plan = planEventQuery({"format=NodeName,Start,End,State,Reason,TRES,TresReference,Duration"}, kNow);
    REQUIRE(plan.ok());
    CHECK(keys(*plan) == std::vector<std::string>{"NodeName", "TimeStart", "TimeEnd", "State", "Reason", "TRES",
                                                  "TresReference", "Duration"});
  }
  SECTION("bad words are refused by name") {
    for (const char* word : {"Colour=red", "Format=NodeName,Colour", "States=sleepy", "Start=whenever",
                             "CondFlags=Closed", "loose"}) {
      INFO(word);
      auto plan = planEventQuery({word}, kNow);
      REQUIRE_FALSE(plan.ok());
    }
    auto plan = planEventQuery({"Format=NodeName,Colour"}, kNow);
    CHECK_THAT(plan.error(), Catch::Contains("Colour"));
  }
}

TEST_CASE("sacctmgr show event tables", "[cli][sacctmgr]") {
  cli_fixtures::useUtc();
  auto plan = planEventQuery({"Format=NodeName,Start,End,State,Reason,TRES,TresReference"}, kNow);
  REQUIRE(plan.ok());
  std::vector<v1::AccountingNodeEvent> events{openDegraded()};
  SECTION("-p") {
    CHECK(renderEvents(plan->fields, events, TableStyle{.parsable = Parsable::Trailing}, kNow) ==
          "NodeName|TimeStart|TimeEnd|State|Reason|TRES|TresReference|\n"
          "gn12|2027-03-14T02:53:20|Unknown|DEGRADED|ecc_storm|cpu=64,mem=515000M,gres/gpu=4|gres/gpu=1|\n");
  }
  SECTION("columns cut States to six letters as sacctmgr does") {
    std::string out = renderEvents(plan->fields, events, TableStyle{.header = false}, kNow);
    CHECK_THAT(out, Catch::StartsWith("gn12            2027-03-14T02:53:20             Unknown DEGRA+ "));
  }
  SECTION("Duration runs to now for an open event") {
    auto duration = planEventQuery({"Format=Duration"}, kNow);
    REQUIRE(duration.ok());
    CHECK(renderEvents(duration->fields, events, TableStyle{.header = false, .parsable = Parsable::NoTrailing},
                       kNow) == "02:00:00\n");
  }
}
