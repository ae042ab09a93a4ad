// priority/multifactor's rules, one row each, and Fair Tree's ranks on the
// flat user tree, in simulated time.
#include "controller/core/fair_share.h"
#include "controller/core/priority.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace gantry::core;

namespace {

PriorityWeights weights() {
  PriorityWeights w;
  w.multifactor = true;
  w.age = 1000;
  w.fairshare = 5000;
  w.jobSize = 200;
  w.partition = 400;
  w.maxAgeSeconds = 4 * 3600;
  return w;
}

PriorityInputs job() {
  PriorityInputs in;
  in.clusterCpus = 96;
  in.clusterNodes = 6;
  in.cpus = 24;
  in.nodes = 3;
  return in;
}

}  // namespace

TEST_CASE("priority: each factor follows its rule", "[priority]") {
  struct Row {
    const char* rule;
    std::function<void(PriorityInputs&, PriorityWeights&)> set;
    uint32_t expected;
  };
  const Row rows[] = {
      {"age grows with the wait up to PriorityMaxAge", [](PriorityInputs& in, PriorityWeights&) { in.waitedSeconds = 3600; },
       250 + 75},
      {"age stops at PriorityMaxAge", [](PriorityInputs& in, PriorityWeights&) { in.waitedSeconds = 40 * 3600; },
       1000 + 75},
      {"job size is the mean of the node and CPU parts", [](PriorityInputs&, PriorityWeights&) {}, 75},
      {"PriorityFavorSmall counts what the job leaves free",
       [](PriorityInputs&, PriorityWeights& w) { w.favorSmall = true; }, 125},
      {"fair share is weighted", [](PriorityInputs& in, PriorityWeights&) { in.fairshare = 0.5; }, 2500 + 75},
      {"the partition factor is weighted", [](PriorityInputs& in, PriorityWeights&) { in.partition = 0.25; }, 100 + 75},
      {"nice is taken off", [](PriorityInputs& in, PriorityWeights&) { in.nice = 50; }, 25},
      {"a negative nice adds", [](PriorityInputs& in, PriorityWeights&) { in.nice = -1000; }, 1075},
      {"the result is at least 1", [](PriorityInputs& in, PriorityWeights&) { in.nice = 100000; }, 1},
      {"a job larger than the cluster counts as the cluster",
       [](PriorityInputs& in, PriorityWeights&) {
         in.cpus = 500;
         in.nodes = 60;
       },
       200},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    PriorityInputs in = job();
    PriorityWeights w = weights();
    row.set(in, w);
    CHECK(priorityOf(priorityParts(in, w), w) == row.expected);
  }
}

TEST_CASE("priority: a sum past 32 bits stops at 2^32-1", "[priority]") {
  PriorityWeights w = weights();
  w.age = 4294967295u;
  w.fairshare = 4294967295u;
  PriorityInputs in = job();
  in.waitedSeconds = w.maxAgeSeconds;
  in.fairshare = 1;
  CHECK(priorityOf(priorityParts(in, w), w) == 4294967295u);
}

TEST_CASE("fair share: usage halves every half-life", "[fair_share]") {
  UsageLedger ledger(600, UsageReset::None, 10'000);
  ledger.charge("ana", 4000);
  ledger.charge("ben", 1000);
  ledger.advanceTo(10'600);
  CHECK(ledger.rawUsage("ana") == Approx(2000));
  ledger.advanceTo(11'800);
  CHECK(ledger.rawUsage("ben") == Approx(125));
  CHECK(ledger.totalUsage() == Approx(625));
  ledger.advanceTo(11'000);  // time never runs back
  CHECK(ledger.totalUsage() == Approx(625));
}

TEST_CASE("fair share: no half-life keeps usage until a reset boundary", "[fair_share]") {
  // A Monday at noon, local time.
  std::tm noon{};
  noon.tm_year = 126;
  noon.tm_mon = 10;
  noon.tm_mday = 16;
  noon.tm_hour = 12;
  noon.tm_isdst = -1;
  const int64_t t = static_cast<int64_t>(std::mktime(&noon));
  UsageLedger daily(0, UsageReset::Daily, t);
  daily.charge("ana", 300);
  daily.advanceTo(t + 6 * 3600);
  CHECK(daily.rawUsage("ana") == Approx(300));
  daily.advanceTo(t + 13 * 3600);  // past midnight
  CHECK(daily.rawUsage("ana") == 0);
  UsageLedger weekly(0, UsageReset::Weekly, t);
  weekly.charge("ana", 300);
  weekly.advanceTo(t + 3 * 86400);
  CHECK(weekly.rawUsage("ana") == Approx(300));
  weekly.advanceTo(t + 7 * 86400);  // past Sunday midnight
  CHECK(weekly.rawUsage("ana") == 0);
}

TEST_CASE("fair share: Fair Tree ranks users by shares over usage, ties alike, no usage first", "[fair_share]") {
  UsageLedger ledger(0, UsageReset::None, 0);
  ledger.charge("ana", 900);
  ledger.charge("ben", 100);
  ledger.charge("cai", 100);
  auto shares = ledger.shares({"ana", "ben", "cai", "dov"});
  CHECK(shares.at("dov").factor == Approx(1.0));
  CHECK(shares.at("ben").factor == Approx(0.75));
  CHECK(shares.at("cai").factor == Approx(0.75));
  CHECK(shares.at("ana").factor == Approx(0.25));
  CHECK(shares.at("ana").normShares == Approx(0.25));
  CHECK(shares.at("ana").effectiveUsage == Approx(0.82).epsilon(0.01));
  CHECK(ledger.shares({}).empty());
}

TEST_CASE("fair share: the stored form reads back; a damaged one is refused", "[fair_share]") {
  UsageLedger ledger(3600, UsageReset::None, 5000);
  ledger.charge("ana", 1234.5);
  ledger.charge("ben", 0.25);
  auto back = UsageLedger::fromText(ledger.toText(), 3600, UsageReset::None);
  REQUIRE(back);
  CHECK(back->rawUsage("ana") == Approx(1234.5));
  CHECK(back->totalUsage() == Approx(1234.75));
  CHECK_FALSE(UsageLedger::fromText("nonsense", 3600, UsageReset::None));
  CHECK_FALSE(UsageLedger::fromText("ledger 5\nana -3\n", 3600, UsageReset::None));
  CHECK_FALSE(UsageLedger::fromText("ledger 5\nana x\n", 3600, UsageReset::None));
}
