// The accounting RPCs apart from gRPC: request checks (one row per rule),
// who sees which records, -N, and the answer without accounting.
#include <catch2/catch.hpp>

#include <functional>
#include <random>

#include <google/protobuf/stubs/logging.h>

#include "controller/accounting/accounting_open.h"
#include "controller/rpc/accounting_queries.h"
#include "tests/unit/controller/accounting/accounting_fixtures.h"

using namespace gantry;
using namespace gantry::accounting::testing;
using gantry::ctlrpc::AccountingAccess;

namespace {

constexpr int64_t T = kT0;
const auth::Identity kRoot{.uid = 0, .gid = 0, .user = "root"};
const auth::Identity kOwner{.uid = 5101, .gid = 5101, .user = "u5101"};
const auth::Identity kOther{.uid = 5202, .gid = 5202, .user = "u5202"};

accounting::JobRecord on(accounting::JobRecord record, std::string nodes) {
  record.nodeList = std::move(nodes);
  return record;
}

// Two users' jobs on the cluster "north" and one on "south".
struct StoreFixture {
  StoreFixture() {
    accounting::AccountingConnection connection{};
    connection.backend = accounting::AccountingConnection::Backend::Sqlite;
    connection.path = freshDatabase("rpc-queries.db");
    auto opened = accounting::openAccountingStore(connection);
    REQUIRE(opened.ok());
    store = std::move(*opened);
    std::vector<accounting::JobRecord> records = {
        on(jobRecord({.id = 61, .uid = 5101, .eligible = T, .start = T + 10, .end = T + 90, .state = "COMPLETED"}),
           "cn[03-04]"),
        on(jobRecord({.id = 61, .step = "batch", .uid = 5101, .eligible = T, .start = T + 10, .end = T + 90,
                      .state = "COMPLETED"}),
           "cn03"),
        on(jobRecord({.id = 62, .uid = 5202, .eligible = T, .start = T + 20, .end = T + 80, .state = "FAILED"}),
           "cn07"),
        on(jobRecord({.cluster = "south", .id = 63, .uid = 5202, .eligible = T, .start = T + 5, .state = "RUNNING"}),
           "sn1"),
    };
    REQUIRE(store->appendJobs(records).ok());
    REQUIRE(store->appendEvents({accounting::NodeEvent{.cluster = "north", .node = "cn07", .startTime = T + 30,
                                                      .state = "DRAIN", .reason = "fan", .user = "root",
                                                      .tres = "cpu=32,mem=128000M",
                                                      .tresReference = "cpu=32"}})
                .ok());
    store->flush();
  }
  std::unique_ptr<accounting::AccountingStore> store;
};

std::vector<std::string> ids(const v1::ListAccountingJobsResponse& response) {
  std::vector<std::string> out;
  for (const auto& job : response.jobs()) {
    out.push_back(std::to_string(job.job_id()) + (job.step_id().empty() ? "" : "." + job.step_id()));
  }
  return out;
}

}  // namespace

TEST_CASE("accounting requests are checked, naming the field", "[rpc][accounting]") {
  struct Row {
    const char* rule;
    std::function<void(v1::ListAccountingJobsRequest&)> make;
    const char* field;
  };
  const Row rows[] = {
      {"a step id must be a number, batch, extern or interactive",
       [](auto& r) {
         auto* id = r.add_ids();
         id->set_job_id(61);
         id->set_has_step(true);
         id->set_step_id("prolog");
       },
       "ids"},
      {"an empty step id is no step", [](auto& r) {
         auto* id = r.add_ids();
         id->set_job_id(61);
         id->set_has_step(true);
       },
       "ids"},
      {"job id 0 is no job", [](auto& r) { r.add_ids()->set_job_id(0); }, "ids"},
      {"a window may not end before it starts",
       [](auto& r) {
         r.mutable_window()->set_start(T + 50);
         r.mutable_window()->set_end(T + 10);
       },
       "window"},
      {"too many uids",
       [](auto& r) {
         for (size_t i = 0; i <= ctlrpc::kMaxAccountingFilterValues; ++i) r.add_uids(static_cast<uint32_t>(i));
       },
       "uids"},
      {"too many states",
       [](auto& r) {
         for (size_t i = 0; i <= ctlrpc::kMaxAccountingFilterValues; ++i) r.add_states("RUNNING");
       },
       "states"},
      {"a node list must be a hostlist", [](auto& r) { r.set_node_list("cn[07"); }, "node_list"},
  };
  StoreFixture fixture;
  AccountingAccess access{.store = fixture.store.get(), .cluster = "north"};
  for (const Row& row : rows) {
    INFO(row.rule);
    v1::ListAccountingJobsRequest request;
    row.make(request);
    auto answer = ctlrpc::listAccountingJobs(access, request, kRoot, true);
    REQUIRE_FALSE(answer.ok());
    CHECK(answer.errorCode() == ErrorCode::Invalid);
    CHECK_THAT(answer.error(), Catch::StartsWith(row.field));
  }
  v1::ListNodeEventsRequest events;
  events.mutable_window()->set_start(T + 9);
  events.mutable_window()->set_end(T + 1);
  auto refused = ctlrpc::listNodeEvents(access, events);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error(), Catch::StartsWith("window"));
}

TEST_CASE("who sees which accounting records", "[rpc][accounting]") {
  StoreFixture fixture;
  struct Row {
    const char* rule;
    bool privateJobs;
    auth::Identity caller;
    bool administrator;
    std::vector<std::string> expected;
  };
  const Row rows[] = {
      {"without PrivateData=jobs everyone sees every job", false, kOwner, false, {"61", "61.batch", "62"}},
      {"under PrivateData=jobs a plain user sees only their own", true, kOwner, false, {"61", "61.batch"}},
      {"under PrivateData=jobs another plain user sees only theirs", true, kOther, false, {"62"}},
      {"root sees every job under PrivateData=jobs", true, kRoot, true, {"61", "61.batch", "62"}},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    AccountingAccess access{.store = fixture.store.get(), .cluster = "north", .privateJobs = row.privateJobs};
    auto answer = ctlrpc::listAccountingJobs(access, {}, row.caller, row.administrator);
    REQUIRE(answer.ok());
    CHECK(ids(*answer) == row.expected);
  }
}

TEST_CASE("accounting queries: clusters, steps and nodes", "[rpc][accounting]") {
  StoreFixture fixture;
  AccountingAccess access{.store = fixture.store.get(), .cluster = "north"};
  auto ask = [&](auto make) {
    v1::ListAccountingJobsRequest request;
    make(request);
    auto answer = ctlrpc::listAccountingJobs(access, request, kRoot, true);
    REQUIRE(answer.ok());
    return ids(*answer);
  };
  CHECK(ask([](auto&) {}) == std::vector<std::string>{"61", "61.batch", "62"});
  CHECK(ask([](auto& r) { r.set_all_clusters(true); }) == std::vector<std::string>{"61", "61.batch", "62", "63"});
  CHECK(ask([](auto& r) { r.add_clusters("south"); }) == std::vector<std::string>{"63"});
  CHECK(ask([](auto& r) {
          auto* id = r.add_ids();
          id->set_job_id(61);
          id->set_has_step(true);
          id->set_step_id("batch");
        }) == std::vector<std::string>{"61.batch"});
  CHECK(ask([](auto& r) { r.set_node_list("cn04"); }) == std::vector<std::string>{"61", "61.batch"});
  CHECK(ask([](auto& r) { r.set_node_list("cn[05-09]"); }) == std::vector<std::string>{"62"});
}

TEST_CASE("node events are answered for everyone, with every field", "[rpc][accounting]") {
  StoreFixture fixture;
  AccountingAccess access{.store = fixture.store.get(), .cluster = "north", .privateJobs = true};
  v1::ListNodeEventsRequest request;
  request.set_nodes("cn[01-09]");
  auto answer = ctlrpc::listNodeEvents(access, request);
  REQUIRE(answer.ok());
  REQUIRE(answer->events_size() == 1);
  const auto& event = answer->events(0);
  CHECK(event.node() == "cn07");
  CHECK(event.end_time() == 0);
  CHECK(event.tres_reference() == "cpu=32");
  CHECK(event.tres() == "cpu=32,mem=128000M");
}

TEST_CASE("without accounting the calls say so plainly", "[rpc][accounting]") {
  AccountingAccess off{.cluster = "north"};
  auto jobs = ctlrpc::listAccountingJobs(off, {}, kOwner, false);
  REQUIRE_FALSE(jobs.ok());
  CHECK(jobs.errorCode() == ErrorCode::NotNow);
  CHECK_THAT(jobs.error(), Catch::Contains("AccountingStorageType"));
  auto events = ctlrpc::listNodeEvents(off, {});
  REQUIRE_FALSE(events.ok());
  CHECK(events.errorCode() == ErrorCode::NotNow);
}

// What fuzz_core_rpc does at length, in short: random requests (bytes, and
// valid requests with random values) never crash, and every refusal has a
// message. Seeded, so a failure replays.
TEST_CASE("random accounting requests are answered or refused with a reason", "[rpc][accounting]") {
  // Invalid UTF-8 in a string field is refused by the parser with a log line.
  google::protobuf::SetLogHandler([](google::protobuf::LogLevel, const char*, int, const std::string&) {});
  StoreFixture fixture;
  AccountingAccess access{.store = fixture.store.get(), .cluster = "north", .privateJobs = true};
  std::mt19937 random(20261202);
  auto word = [&] {
    static const char* const kWords[] = {"", "0", "7", "batch", "extern", "interactive", "x", "cn[01-99]",
                                         "cn[", "RUNNING", "north", "-1", "4294967296", "cn[1-100000]"};
    return std::string(kWords[random() % (sizeof kWords / sizeof *kWords)]);
  };
  for (int i = 0; i < 3000; ++i) {
    v1::ListAccountingJobsRequest jobs;
    v1::ListNodeEventsRequest events;
    if (i % 2 == 0) {
      std::string bytes(random() % 64, '\0');
      for (char& c : bytes) c = static_cast<char>(random());
      if (!jobs.ParseFromString(bytes)) continue;
      (void)events.ParseFromString(bytes);
    } else {
      for (unsigned n = random() % 3; n > 0; --n) {
        auto* id = jobs.add_ids();
        id->set_job_id(random() % 70);
        id->set_has_step(random() % 2 == 0);
        id->set_step_id(word());
      }
      if (random() % 2 == 0) {
        jobs.mutable_window()->set_start(T + static_cast<int64_t>(random() % 200) - 100);
        jobs.mutable_window()->set_end(T + static_cast<int64_t>(random() % 200) - 100);
        *events.mutable_window() = jobs.window();
      }
      jobs.set_node_list(word());
      events.set_nodes(word());
      jobs.add_states(word());
      events.add_states(word());
      jobs.add_clusters(word());
      jobs.set_all_clusters(random() % 2 == 0);
    }
    auto caller = i % 3 == 0 ? kRoot : kOther;
    auto answer = ctlrpc::listAccountingJobs(access, jobs, caller, caller.uid == 0);
    if (!answer) CHECK_FALSE(answer.error().empty());
    auto listed = ctlrpc::listNodeEvents(access, events);
    if (!listed) CHECK_FALSE(listed.error().empty());
  }
}
