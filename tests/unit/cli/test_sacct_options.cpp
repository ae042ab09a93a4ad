// sacct's options and the query they make: Slurm's defaults for users and
// the window, job ids, states, clusters, units; bad values refused by name.
#include <catch2/catch.hpp>

#include <ctime>

#include "cli/arg_parsing.h"
#include "cli/sacct_options.h"
#include "cli/sacct_time.h"
#include "cli_fixtures.h"

using namespace gantry;
using namespace gantry::cli;

namespace {

constexpr uint32_t kPlainUid = 3107;
const int64_t kNow = 1805000000;  // 2027-03-14T04:53:20 UTC

std::optional<uint32_t> resolve(const std::string& user) {
  if (user == "oskar") return 4020;
  if (user == "mira") return 2345;
  if (!user.empty() && user.find_first_not_of("0123456789") == std::string::npos) return std::stoul(user);
  return std::nullopt;
}

Result<SacctPlan> plan(const std::vector<std::string>& words, uint32_t caller = kPlainUid) {
  SacctOptions options;
  CLI::App app{"sacct", "sacct"};
  addSacctOptions(app, options);
  auto parsed = parseWords(app, words);
  if (!parsed) return Error{parsed.error()};
  if (!parsed->usageError.empty()) return Error{parsed->usageError};
  return planSacct(options, kNow, caller, resolve);
}

std::vector<uint32_t> uids(const SacctPlan& p) { return {p.request.uids().begin(), p.request.uids().end()}; }

}  // namespace

TEST_CASE("sacct users", "[cli][sacct][options]") {
  cli_fixtures::useUtc();
  struct Row {
    const char* rule;
    std::vector<std::string> words;
    uint32_t caller;
    std::vector<uint32_t> expected;
  };
  const Row rows[] = {
      {"a plain user sees their own jobs by default", {}, kPlainUid, {kPlainUid}},
      {"root sees every user's by default", {}, 0, {}},
      {"-a asks for every user", {"-a"}, kPlainUid, {}},
      {"-u takes names", {"-u", "oskar,mira"}, kPlainUid, {4020, 2345}},
      {"-u takes uids", {"--user=4020"}, kPlainUid, {4020}},
      {"-j without -u is every user's", {"-j", "77"}, kPlainUid, {}},
      {"-N without -u is every user's", {"-N", "gn07"}, kPlainUid, {}},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    auto p = plan(row.words, row.caller);
    REQUIRE(p.ok());
    CHECK(uids(*p) == row.expected);
  }
  auto unknown = plan({"-u", "nobody-here"});
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.error(), Catch::Contains("-u/--user") && Catch::Contains("nobody-here"));
}

TEST_CASE("sacct window defaults", "[cli][sacct][options]") {
  cli_fixtures::useUtc();
  const int64_t midnight = startOfDay(kNow);
  struct Row {
    const char* rule;
    std::vector<std::string> words;
    bool windowed;
    int64_t start;
    int64_t end;
  };
  const Row rows[] = {
      {"neither -j nor -s: from 00:00 today to now", {}, true, midnight, kNow},
      {"-S alone runs to now", {"-S", "uts1804000000"}, true, 1804000000, kNow},
      {"-E alone starts at 00:00 today", {"-E", "now"}, true, midnight, kNow},
      {"-s alone is the instant now", {"-s", "R"}, true, kNow, kNow},
      {"-s with -S ends at -S", {"-s", "CD", "-S", "uts1804000000"}, true, 1804000000, 1804000000},
      {"-s with -S and -E", {"-s", "CD", "-S", "uts1804000000", "-E", "uts1804500000"}, true, 1804000000,
       1804500000},
      {"-j alone has no window", {"-j", "77"}, false, 0, 0},
      {"-j with -s runs from the epoch to now", {"-j", "77", "-s", "F"}, true, 0, kNow},
      {"-j with -S runs to now", {"-j", "77", "-S", "uts1804000000"}, true, 1804000000, kNow},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    auto p = plan(row.words);
    REQUIRE(p.ok());
    REQUIRE(p->request.has_window() == row.windowed);
    if (!row.windowed) continue;
    CHECK(p->request.window().start() == row.start);
    CHECK(p->request.window().end() == row.end);
  }
  auto backwards = plan({"-S", "uts1804500000", "-E", "uts1804000000"});
  REQUIRE_FALSE(backwards.ok());
  CHECK_THAT(backwards.error(), Catch::Contains("start") && Catch::Contains("after"));
  auto badTime = plan({"-S", "last-tuesday"});
  REQUIRE_FALSE(badTime.ok());
  CHECK_THAT(badTime.error(), Catch::Contains("-S/--starttime") && Catch::Contains("last-tuesday"));
}

TEST_CASE("sacct job ids, states and flags", "[cli][sacct][options]") {
  cli_fixtures::useUtc();
  SECTION("-j takes jobs and job.steps, in lists and repeated") {
    auto p = plan({"-j", "77,78.batch", "-j", "79.extern,80.4,81.interactive"});
    REQUIRE(p.ok());
    const auto& ids = p->request.ids();
    REQUIRE(ids.size() == 5);
    CHECK(ids[0].job_id() == 77);
    CHECK_FALSE(ids[0].has_step());
    CHECK(ids[1].step_id() == "batch");
    CHECK(ids[2].step_id() == "extern");
    CHECK(ids[3].step_id() == "4");
    CHECK(ids[4].step_id() == "interactive");
  }
  SECTION("-j takes array tasks, with or without a step") {
    auto p = plan({"-j", "90_3,90_12.batch,91"});
    REQUIRE(p.ok());
    const auto& ids = p->request.ids();
    REQUIRE(ids.size() == 3);
    CHECK(ids[0].job_id() == 90);
    CHECK(ids[0].has_array_task());
    CHECK(ids[0].array_task_id() == 3);
    CHECK_FALSE(ids[0].has_step());
    CHECK(ids[1].array_task_id() == 12);
    CHECK(ids[1].step_id() == "batch");
    CHECK_FALSE(ids[2].has_array_task());
  }
  SECTION("a bad job id is refused by name") {
    for (const char* bad : {"x7", "0", "77.prolog", "77.", "-3", "77_", "77_x", "_4", "77_4000001", "0_3"}) {
      INFO(bad);
      auto p = plan({std::string("--jobs=") + bad});
      REQUIRE_FALSE(p.ok());
      CHECK_THAT(p.error(), Catch::Contains(bad));
    }
  }
  SECTION("states take short and long names in any case") {
    auto p = plan({"-s", "pd,R,completed,CA,to,oom,nf"});
    REQUIRE(p.ok());
    std::vector<std::string> states(p->request.states().begin(), p->request.states().end());
    CHECK(states == std::vector<std::string>{"PENDING", "RUNNING", "COMPLETED", "CANCELLED", "TIMEOUT",
                                             "OUT_OF_MEMORY", "NODE_FAIL"});
  }
  SECTION("an unknown state is refused") {
    auto p = plan({"-s", "R,sleepy"});
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(p.error(), Catch::Contains("-s/--state") && Catch::Contains("sleepy"));
  }
  SECTION("-X, -N, -A") {
    auto p = plan({"-X", "-N", "gn[01-03]", "-A", "qcd,astro"});
    REQUIRE(p.ok());
    CHECK(p->request.allocations_only());
    CHECK(p->request.node_list() == "gn[01-03]");
    CHECK(p->request.accounts_size() == 2);
  }
  SECTION("clusters: -M list, -M all, -L") {
    auto some = plan({"-M", "orion,vega"});
    REQUIRE(some.ok());
    CHECK(some->request.clusters_size() == 2);
    CHECK_FALSE(some->request.all_clusters());
    auto all = plan({"-M", "all"});
    REQUIRE(all.ok());
    CHECK(all->request.all_clusters());
    auto everywhere = plan({"-L"});
    REQUIRE(everywhere.ok());
    CHECK(everywhere->request.all_clusters());
  }
  SECTION("--units takes K, M, G, T, P") {
    auto p = plan({"--units=g"});
    REQUIRE(p.ok());
    CHECK(p->units == 'G');
    auto bad = plan({"--units=Q"});
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error(), Catch::Contains("--units") && Catch::Contains("Q"));
  }
  SECTION("-p, -P, -n, --json") {
    auto p = plan({"-p", "-n"});
    REQUIRE(p.ok());
    CHECK(p->style.parsable == Parsable::Trailing);
    CHECK_FALSE(p->style.header);
    auto p2 = plan({"-P", "--json"});
    REQUIRE(p2.ok());
    CHECK(p2->style.parsable == Parsable::NoTrailing);
    CHECK(p2->json);
  }
  SECTION("--format twice and -o") {
    auto p = plan({"--format=JobID", "-o", "User%20"});
    REQUIRE(p.ok());
    REQUIRE(p->fields.size() == 2);
    CHECK(p->fields[1].column.width == 20);
  }
  SECTION("an unknown option is refused by name") {
    auto p = plan({"--colour"});
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(p.error(), Catch::Contains("--colour"));
  }
}
