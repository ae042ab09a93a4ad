// collapseJobs / collapseEvents, one row per rule: what stays of records
// of one transaction that share a key is what the upsert would leave.
#include <catch2/catch.hpp>

#include "controller/accounting/write_collapse.h"
#include "tests/unit/controller/accounting/accounting_fixtures.h"

using namespace gantry::accounting;
using namespace gantry::accounting::testing;

namespace {

// A job record told apart by its name: "<id>/<tag>".
JobRecord version(JobSpec spec, const std::string& tag) {
  JobRecord record = jobRecord(spec);
  record.name = std::to_string(spec.id) + "/" + tag;
  return record;
}

NodeEvent eventVersion(std::string cluster, int64_t end, std::string reason) {
  return NodeEvent{.cluster = std::move(cluster), .node = "cn12", .startTime = kT0 + 40, .endTime = end,
                   .state = "DRAIN", .reason = std::move(reason), .user = "root", .tres = "cpu=8",
                   .tresReference = ""};
}

template <typename Record>
std::vector<const Record*> pointers(const std::vector<Record>& records) {
  std::vector<const Record*> out;
  for (const auto& record : records) out.push_back(&record);
  return out;
}

}  // namespace

TEST_CASE("collapsing job records of one transaction keeps what the upsert would") {
  const JobSpec pending{.id = 21, .state = "PENDING"};
  const JobSpec running{.id = 21, .start = kT0 + 3, .state = "RUNNING"};
  const JobSpec ended{.id = 21, .start = kT0 + 3, .end = kT0 + 8, .state = "COMPLETED"};
  struct Row {
    const char* rule;
    std::vector<JobRecord> records;
    std::vector<std::string> kept;
  };
  JobSpec otherCluster = running;
  otherCluster.cluster = "south";
  JobSpec step = running;
  step.step = "batch";
  JobSpec rerun = pending;
  rerun.submit = kT0 + 100;
  const std::vector<Row> rows = {
      {"a later version further on replaces an earlier", {version(pending, "a"), version(running, "b")}, {"21/b"}},
      {"an ended record is not replaced by a running one", {version(ended, "a"), version(running, "b")}, {"21/a"}},
      {"a running record is not replaced by a pending one", {version(running, "a"), version(pending, "b")}, {"21/a"}},
      {"of versions equally far on, the last wins", {version(ended, "a"), version(ended, "b")}, {"21/b"}},
      {"the furthest on wins wherever it comes",
       {version(pending, "a"), version(ended, "b"), version(running, "c"), version(pending, "d")},
       {"21/b"}},
      {"another cluster, step or submit time is another record",
       {version(running, "a"), version(otherCluster, "b"), version(step, "c"), version(rerun, "d")},
       {"21/a", "21/b", "21/c", "21/d"}},
      {"records are kept in the order of each key's first record",
       {version(step, "a"), version(running, "b"), version(step, "c")},
       {"21/c", "21/b"}},
  };
  for (const auto& row : rows) {
    SECTION(row.rule) {
      std::vector<std::string> kept;
      for (const JobRecord* record : collapseJobs(pointers(row.records))) kept.push_back(record->name);
      CHECK(kept == row.kept);
    }
  }
}

TEST_CASE("collapsing node events of one transaction keeps what the upsert would") {
  struct Row {
    const char* rule;
    std::vector<NodeEvent> events;
    std::vector<std::string> kept;
  };
  const int64_t closed = kT0 + 90;
  const std::vector<Row> rows = {
      {"closing replaces the open event", {eventVersion("north", 0, "a"), eventVersion("north", closed, "b")}, {"b"}},
      {"a closed event is not reopened", {eventVersion("north", closed, "a"), eventVersion("north", 0, "b")}, {"a"}},
      {"a later open version replaces an open one", {eventVersion("north", 0, "a"), eventVersion("north", 0, "b")},
       {"b"}},
      {"a later closed version replaces a closed one",
       {eventVersion("north", closed, "a"), eventVersion("north", closed + 5, "b")},
       {"b"}},
      {"another cluster is another event", {eventVersion("north", 0, "a"), eventVersion("south", closed, "b")},
       {"a", "b"}},
  };
  for (const auto& row : rows) {
    SECTION(row.rule) {
      std::vector<std::string> kept;
      for (const NodeEvent* event : collapseEvents(pointers(row.events))) kept.push_back(event->reason);
      CHECK(kept == row.kept);
    }
  }
}
