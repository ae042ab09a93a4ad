// The query rules of queries.h, one table row each, over one small cluster
// history. Times are offsets from kT0; the window of most rows is
// [kT0+1000, kT0+2000].
#include <catch2/catch.hpp>

#include "tests/unit/controller/accounting/backend_fixtures.h"
#include "tests/unit/controller/accounting/accounting_fixtures.h"

using namespace gantry::accounting;
using namespace gantry::accounting::testing;

namespace {

constexpr int64_t T = kT0;
const TimeWindow kWindow{.start = T + 1000, .end = T + 2000};

std::vector<JobRecord> history() {
  std::vector<JobRecord> records;
  auto add = [&](JobSpec spec, std::vector<std::string> steps = {}) {
    records.push_back(jobRecord(spec));
    for (const auto& step : steps) {
      JobSpec stepSpec = spec;
      stepSpec.step = step;
      records.push_back(jobRecord(stepSpec));
    }
  };
  // Ended before the window.
  add({.id = 401, .uid = 3001, .account = "physics", .eligible = T + 100, .start = T + 200, .end = T + 500,
       .state = "COMPLETED"},
      {"1", "batch", "0", "extern"});
  // Pending at the window's start, running through its end.
  add({.id = 402, .uid = 3001, .account = "physics", .eligible = T + 900, .start = T + 1500, .end = T + 2500,
       .state = "COMPLETED"},
      {"0", "batch"});
  // Pending since inside the window.
  add({.id = 403, .uid = 3002, .account = "chem", .eligible = T + 1200, .state = "PENDING"});
  // Running since before the window, not ended.
  add({.id = 404, .uid = 3002, .account = "chem", .eligible = T + 500, .start = T + 600, .state = "RUNNING"},
      {"10", "2", "extern", "0"});
  // Eligible only after the window.
  add({.id = 405, .uid = 3003, .account = "bio", .eligible = T + 2500, .start = T + 2600, .end = T + 2700,
       .state = "COMPLETED"});
  // Cancelled while pending, inside the window.
  add({.id = 406, .uid = 3001, .account = "chem", .eligible = T + 800, .end = T + 1300, .state = "CANCELLED"});
  // Held: never eligible.
  add({.id = 407, .uid = 3003, .account = "bio", .eligible = 0, .state = "PENDING"});
  // Failed inside the window.
  add({.id = 408, .uid = 3002, .account = "physics", .eligible = T + 100, .start = T + 150, .end = T + 1800,
       .state = "FAILED"});
  // Another cluster.
  add({.cluster = "south", .id = 409, .uid = 3001, .account = "physics", .eligible = T + 1050, .start = T + 1100,
       .end = T + 1900, .state = "COMPLETED"});
  // Suspended now, running in the window.
  add({.id = 410, .uid = 3003, .account = "bio", .eligible = T + 1000, .start = T + 1100, .state = "SUSPENDED"});
  // Array 420, long over: tasks 0 to 2 ran as jobs 421 to 423, tasks 3-9
  // were cancelled before they started (the array's own record).
  JobSpec array{.id = 420, .uid = 3009, .account = "astro", .eligible = T + 10, .start = 0, .end = T + 30,
                .state = "CANCELLED", .arrayJob = 420, .arrayTasks = "3-9"};
  add(array);
  for (uint32_t task = 0; task < 3; ++task) {
    JobSpec ran = array;
    ran.id = 421 + task;
    ran.start = T + 20;
    ran.state = "COMPLETED";
    ran.arrayTask = task;
    ran.arrayTasks = "";
    add(ran, task == 0 ? std::vector<std::string>{"batch"} : std::vector<std::string>{});
  }
  return records;
}

std::vector<NodeEvent> eventHistory() {
  auto event = [](std::string cluster, std::string node, std::string state, int64_t start, int64_t end) {
    return NodeEvent{.cluster = std::move(cluster), .node = std::move(node), .startTime = start, .endTime = end,
                     .state = std::move(state), .reason = "hw", .user = "root", .tres = "cpu=64,mem=512000M",
                     .tresReference = ""};
  };
  return {
      event("north", "gpn17", "DOWN", T + 100, T + 400),
      event("north", "gpn17", "DRAIN", T + 1200, 0),
      event("north", "gpn18", "DEGRADED", T + 900, T + 1500),
      event("north", "gpn19", "FAIL", T + 2100, T + 2200),
      event("south", "gpn17", "DOWN", T + 1000, 0),
  };
}

struct Loaded {
  std::unique_ptr<AccountingStore> store;
  Loaded(Backend backend, const std::string& name) : store(openFresh(backend, name)) {
    REQUIRE(store->appendJobs(history()).ok());
    REQUIRE(store->appendEvents(eventHistory()).ok());
    store->flush();
  }
};

}  // namespace

ACCOUNTING_BACKEND_TEST("job queries select as sacct does") {
  struct Row {
    const char* rule;
    JobQuery query;
    std::vector<std::string> expected;
  };
  const std::vector<Row> rows = {
      {"a job id selects the job and its steps, in sacct's order",
       {.ids = {{.jobId = 404}}},
       {"404", "404.extern", "404.0", "404.2", "404.10"}},
      {"a job.step id selects only that step", {.ids = {{.jobId = 401, .stepId = "1"}}}, {"401.1"}},
      {"job ids and job.step ids together",
       {.ids = {{.jobId = 401, .stepId = "batch"}, {.jobId = 402}}},
       {"401.batch", "402", "402.batch", "402.0"}},
      {"-X leaves the steps out", {.ids = {{.jobId = 401}}, .allocationsOnly = true}, {"401"}},
      {"-X with a job.step id gives its job",
       {.ids = {{.jobId = 402, .stepId = "0"}}, .allocationsOnly = true},
       {"402"}},
      {"an array's id selects each of its tasks and its record of tasks not yet started",
       {.ids = {{.jobId = 420}}},
       {"420", "421", "421.batch", "422", "423"}},
      {"ID_TASK selects that task of the array", {.ids = {{.jobId = 420, .arrayTask = 1}}}, {"422"}},
      {"ID_TASK.STEP selects that step of the task",
       {.ids = {{.jobId = 420, .arrayTask = 0, .stepId = "batch"}}},
       {"421.batch"}},
      {"a task the array did not run selects nothing", {.ids = {{.jobId = 420, .arrayTask = 5}}}, {}},
      {"a task's own job id selects it alone", {.ids = {{.jobId = 422}}}, {"422"}},
      {"ID_TASK of a job that is no array selects nothing", {.ids = {{.jobId = 404, .arrayTask = 0}}}, {}},
      {"users: any of the listed uids",
       {.uids = {3002, 3003}, .allocationsOnly = true},
       {"403", "404", "405", "407", "408", "410"}},
      {"accounts: any of the listed accounts",
       {.accounts = {"chem"}, .allocationsOnly = true},
       {"403", "404", "406"}},
      {"users and accounts must both hold",
       {.uids = {3001}, .accounts = {"physics"}, .allocationsOnly = true},
       {"401", "402", "409@south"}},
      {"clusters: only the listed clusters", {.clusters = {"south"}}, {"409@south"}},
      {"window: eligible before its end and not ended before its start",
       {.window = kWindow, .allocationsOnly = true},
       {"402", "403", "404", "406", "408", "409@south", "410"}},
      {"window: a job not yet ended is in every window after it became eligible",
       {.window = TimeWindow{.start = T + 5000, .end = T + 6000}, .allocationsOnly = true},
       {"403", "404", "410"}},
      {"window: a job that ended at the window's start is in it",
       {.window = TimeWindow{.start = T + 500, .end = T + 550}, .allocationsOnly = true},
       {"401", "404", "408"}},
      {"window: a job eligible only at the window's end is not in it",
       {.window = TimeWindow{.start = T + 850, .end = T + 900}, .allocationsOnly = true},
       {"404", "406", "408"}},
      {"window: the steps of the selected jobs come with them",
       {.uids = {3001}, .window = kWindow},
       {"402", "402.batch", "402.0", "406", "409@south"}},
      {"states without a window: the present state",
       {.states = {"PENDING"}, .allocationsOnly = true},
       {"403", "407"}},
      {"window and PENDING: pending at some time in the window",
       {.states = {"PENDING"}, .window = kWindow, .allocationsOnly = true},
       {"402", "403", "406", "409@south", "410"}},
      {"window and RUNNING: running at some time in the window",
       {.states = {"RUNNING"}, .window = kWindow, .allocationsOnly = true},
       {"402", "404", "408", "409@south", "410"}},
      {"window and SUSPENDED: suspended now and running in the window",
       {.states = {"SUSPENDED"}, .window = kWindow, .allocationsOnly = true},
       {"410"}},
      {"window and an ended state: that state, ended inside the window; any listed state",
       {.states = {"CANCELLED", "FAILED", "COMPLETED"}, .window = kWindow, .allocationsOnly = true},
       {"406", "408", "409@south"}},
      {"window and user must both hold",
       {.uids = {3001}, .window = kWindow, .allocationsOnly = true},
       {"402", "406", "409@south"}},
  };
  Loaded loaded(backend, "queries.db");
  for (const auto& row : rows) {
    SECTION(row.rule) {
      auto found = loaded.store->jobs(row.query);
      REQUIRE(found.ok());
      CHECK(labels(*found) == row.expected);
    }
  }
}

ACCOUNTING_BACKEND_TEST("an array task's record keeps its array, index and the list of tasks not started") {
  Loaded loaded(backend, "array-fields.db");
  auto found = loaded.store->jobs({.ids = {{.jobId = 420}}, .allocationsOnly = true});
  REQUIRE(found.ok());
  REQUIRE(found->size() == 4);
  CHECK((*found)[0].arrayJobId == 420);
  CHECK_FALSE((*found)[0].arrayTaskId.has_value());
  CHECK((*found)[0].arrayTasks == "3-9");
  CHECK((*found)[2].jobId == 422);
  CHECK((*found)[2].arrayTaskId == 1u);
  CHECK((*found)[2].arrayTasks.empty());
  auto plain = loaded.store->jobs({.ids = {{.jobId = 401}}, .allocationsOnly = true});
  REQUIRE(plain.ok());
  CHECK(plain->at(0).arrayJobId == 0);
  CHECK_FALSE(plain->at(0).arrayTaskId.has_value());
}

ACCOUNTING_BACKEND_TEST("event queries select as sacctmgr show event does") {
  struct Row {
    const char* rule;
    EventQuery query;
    std::vector<std::string> expected;
  };
  const std::vector<Row> rows = {
      {"nodes: any of the listed nodes",
       {.nodes = {"gpn18", "gpn19"}},
       {"north/gpn18/DEGRADED", "north/gpn19/FAIL"}},
      {"states: any of the listed states", {.states = {"DOWN"}}, {"north/gpn17/DOWN", "south/gpn17/DOWN"}},
      {"window: started before its end and not closed before its start",
       {.window = kWindow},
       {"north/gpn17/DRAIN", "north/gpn18/DEGRADED", "south/gpn17/DOWN"}},
      {"open events only", {.openOnly = true}, {"north/gpn17/DRAIN", "south/gpn17/DOWN"}},
      {"clusters: only the listed clusters", {.clusters = {"south"}}, {"south/gpn17/DOWN"}},
      {"nodes and window must both hold",
       {.nodes = {"gpn17"}, .window = kWindow},
       {"north/gpn17/DRAIN", "south/gpn17/DOWN"}},
  };
  Loaded loaded(backend, "event-queries.db");
  for (const auto& row : rows) {
    SECTION(row.rule) {
      auto found = loaded.store->events(row.query);
      REQUIRE(found.ok());
      CHECK(labels(*found) == row.expected);
    }
  }
}

ACCOUNTING_BACKEND_TEST("a query whose window starts after it ends is refused, naming the window") {
  Loaded loaded(backend, "bad-window.db");
  auto jobs = loaded.store->jobs({.window = TimeWindow{.start = T + 10, .end = T + 5}});
  REQUIRE_FALSE(jobs.ok());
  CHECK(jobs.errorCode() == gantry::ErrorCode::Invalid);
  CHECK_THAT(jobs.error(), Catch::Contains("time window") && Catch::Contains("after its end"));
  auto events = loaded.store->events({.window = TimeWindow{.start = T + 10, .end = T + 5}});
  REQUIRE_FALSE(events.ok());
  CHECK_THAT(events.error(), Catch::Contains("time window"));
}
