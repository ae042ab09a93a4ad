// The rules of record_checks.h, one table row each.
#include <catch2/catch.hpp>

#include <functional>

#include "controller/accounting/record_checks.h"
#include "tests/unit/controller/accounting/accounting_fixtures.h"

using namespace gantry::accounting;
using namespace gantry::accounting::testing;

TEST_CASE("job records that break a rule are refused, naming the record and the rule") {
  struct Row {
    const char* rule;
    std::function<void(JobRecord&)> change;
    const char* message;  // empty: the record is accepted
  };
  const std::vector<Row> rows = {
      {"a whole job record is accepted", [](JobRecord&) {}, ""},
      {"batch, extern, interactive and numbered steps are step ids",
       [](JobRecord& r) { r.stepId = "interactive"; }, ""},
      {"a numbered step is a step id", [](JobRecord& r) { r.stepId = "31"; }, ""},
      {"the cluster is required", [](JobRecord& r) { r.cluster.clear(); }, "job record 77: no cluster"},
      {"the job id must be above 0", [](JobRecord& r) { r.jobId = 0; },
       "job record 0 of cluster north: the job id must be above 0"},
      {"a step id is batch, extern, interactive or a number", [](JobRecord& r) { r.stepId = "prolog"; },
       "job record 77.prolog of cluster north: step id \"prolog\" is not batch, extern, interactive or a step number"},
      {"a signed step number is not a step id", [](JobRecord& r) { r.stepId = "-1"; }, "step id \"-1\""},
      {"the submit time is required", [](JobRecord& r) { r.submitTime = 0; },
       "job record 77 of cluster north: no submit time"},
      {"the state is required", [](JobRecord& r) { r.state.clear(); }, "job record 77 of cluster north: no state"},
      {"a record does not end before it starts",
       [](JobRecord& r) {
         r.startTime = kT0 + 60;
         r.endTime = kT0 + 30;
       },
       "ends (1900000030) before it starts (1900000060)"},
  };
  for (const auto& row : rows) {
    SECTION(row.rule) {
      JobRecord record = jobRecord({.id = 77});
      row.change(record);
      auto status = checkJobRecord(record);
      if (std::string(row.message).empty()) {
        CHECK(status.ok());
      } else {
        REQUIRE_FALSE(status.ok());
        CHECK(status.errorCode() == gantry::ErrorCode::Invalid);
        CHECK_THAT(status.error(), Catch::Contains(row.message));
      }
    }
  }
}

TEST_CASE("node events that break a rule are refused, naming the node and the rule") {
  struct Row {
    const char* rule;
    std::function<void(NodeEvent&)> change;
    const char* message;
  };
  const std::vector<Row> rows = {
      {"a whole event is accepted", [](NodeEvent&) {}, ""},
      {"an open event (end 0) is accepted", [](NodeEvent& e) { e.endTime = 0; }, ""},
      {"the cluster is required", [](NodeEvent& e) { e.cluster.clear(); }, "node event of node rack4-7: no cluster"},
      {"the node is required", [](NodeEvent& e) { e.node.clear(); }, "no node name"},
      {"the state is required", [](NodeEvent& e) { e.state.clear(); },
       "node event of node rack4-7 of cluster north: no state"},
      {"the start time is required", [](NodeEvent& e) { e.startTime = 0; }, "no start time"},
      {"an event does not end before it starts", [](NodeEvent& e) { e.endTime = e.startTime - 1; },
       "before it starts"},
  };
  for (const auto& row : rows) {
    SECTION(row.rule) {
      NodeEvent event{.cluster = "north", .node = "rack4-7", .startTime = kT0, .endTime = kT0 + 90,
                      .state = "DRAIN", .reason = "", .user = "", .tres = "", .tresReference = ""};
      row.change(event);
      auto status = checkNodeEvent(event);
      if (std::string(row.message).empty()) {
        CHECK(status.ok());
      } else {
        REQUIRE_FALSE(status.ok());
        CHECK_THAT(status.error(), Catch::Contains(row.message));
      }
    }
  }
}

TEST_CASE("job selections that break a rule are refused, naming the selection") {
  CHECK(checkJobQuery({.ids = {{.jobId = 12, .stepId = "extern"}}}).ok());
  auto zero = checkJobQuery({.ids = {{.jobId = 0}}});
  REQUIRE_FALSE(zero.ok());
  CHECK_THAT(zero.error(), Catch::Contains("job selection 0: the job id must be above 0"));
  auto badStep = checkJobQuery({.ids = {{.jobId = 12, .stepId = "x1"}}});
  REQUIRE_FALSE(badStep.ok());
  CHECK_THAT(badStep.error(), Catch::Contains("job selection 12.x1: step id \"x1\""));
  auto emptyStep = checkJobQuery({.ids = {{.jobId = 12, .stepId = ""}}});
  CHECK_FALSE(emptyStep.ok());
}
