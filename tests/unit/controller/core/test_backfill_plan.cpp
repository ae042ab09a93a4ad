// Backfill's planned starts (controller/core/backfill_plan.h): which nodes a
// job behind a planned one may take; one row per rule.
#include <catch2/catch.hpp>

#include "controller/core/backfill_plan.h"

using namespace gantry;
using namespace gantry::core;

namespace {

select::PartitionView partitionOf(std::vector<int> nodes) {
  select::PartitionView view;
  view.nodes = std::move(nodes);
  return view;
}

}  // namespace

TEST_CASE("backfill plan: the nodes a later job may take", "[core][backfill]") {
  struct Reserve {
    std::vector<int> nodes;
    int64_t start;
  };
  struct Case {
    const char* rule;
    std::vector<Reserve> plans;
    std::vector<int> partition;
    int64_t jobEnd;
    std::vector<int> allowed;
  };
  const Case cases[] = {
      {"without plans every node is open", {}, {0, 1, 2}, kNeverEnds, {0, 1, 2}},
      {"a job that runs past a planned start keeps off its nodes", {{{1}, 500}}, {0, 1, 2}, 900, {0, 2}},
      {"a job without a time limit keeps off planned nodes", {{{1}, 500}}, {0, 1, 2}, kNeverEnds, {0, 2}},
      {"a job gone before the planned start may use its nodes", {{{1}, 500}}, {0, 1, 2}, 500, {0, 1, 2}},
      {"the earliest planned start on the partition counts", {{{1}, 500}, {{2}, 300}}, {0, 1, 2}, 400, {0}},
      {"plans on other partitions' nodes change nothing", {{{7, 8}, 100}}, {0, 1, 2}, kNeverEnds, {0, 1, 2}},
      {"a later plan on the same node keeps the earlier start", {{{1}, 200}, {{1}, 800}}, {0, 1}, 500, {0}},
      {"every node planned leaves none", {{{0, 1}, 500}}, {0, 1}, 600, {}},
  };
  for (const Case& c : cases) {
    SECTION(c.rule) {
      BackfillPlan plan(10, 0);
      for (const auto& reserve : c.plans) plan.reserve(reserve.nodes, reserve.start);
      select::PartitionView partition = partitionOf(c.partition);
      CHECK(plan.viewFor(partition, c.jobEnd).nodes == c.allowed);
    }
  }
}

TEST_CASE("backfill plan: a view is worked out again once a plan is added", "[core][backfill]") {
  BackfillPlan plan(10, 0);
  select::PartitionView partition = partitionOf({0, 1, 2});
  plan.reserve({0}, 100);
  CHECK(plan.viewFor(partition, 200).nodes == std::vector<int>{1, 2});
  plan.reserve({2}, 100);
  CHECK(plan.viewFor(partition, 200).nodes == std::vector<int>{1});
}

TEST_CASE("backfill plan: at most bf_max_job_test jobs are estimated, a shape once", "[core][backfill]") {
  BackfillPlan plan(3, 0);
  select::PartitionView partition = partitionOf({0, 1, 2});
  select::PartitionView other = partitionOf({0, 1, 2});
  select::Request oneGpu;
  oneGpu.gpus = 1;
  select::Request twoGpus;
  twoGpus.gpus = 2;
  CHECK(plan.canPlan(0));
  CHECK(plan.plannedAlike(oneGpu, partition) == nullptr);
  plan.plan(oneGpu, partition, {.start = 70, .nodes = {1}});
  // The same shape again gets the same plan without an estimate.
  const BackfillPlan::Planned* alike = plan.plannedAlike(oneGpu, partition);
  REQUIRE(alike != nullptr);
  CHECK(alike->start == 70);
  CHECK(alike->nodes == std::vector<int>{1});
  CHECK(plan.plannedAlike(twoGpus, partition) == nullptr);  // another shape
  CHECK(plan.plannedAlike(oneGpu, other) == nullptr);       // another partition
  CHECK(plan.canPlan(0));
  // An estimate that found no place reserves nothing, but counts.
  plan.plan(twoGpus, partition, {});
  CHECK_FALSE(plan.canPlan(0));  // two estimates and one alike: three
  CHECK(plan.viewFor(partition, kNeverEnds).nodes == std::vector<int>{0, 2});
}

TEST_CASE("backfill plan: at most bf_max_job_user of one user's jobs are estimated", "[core][backfill]") {
  BackfillPlan plan(10, 2);
  select::PartitionView partition = partitionOf({0, 1, 2});
  select::Request mine;
  mine.uid = 1001;
  mine.gpus = 1;
  select::Request theirs = mine;
  theirs.uid = 1002;
  plan.plan(mine, partition, {.start = 70, .nodes = {1}});
  CHECK(plan.canPlan(1001));
  REQUIRE(plan.plannedAlike(mine, partition) != nullptr);  // a shape planned alike counts too
  CHECK_FALSE(plan.canPlan(1001));
  CHECK(plan.canPlan(1002));
  CHECK(plan.plannedAlike(theirs, partition) == nullptr);  // another user's request is another shape
  BackfillPlan unlimited(10, 0);
  for (int i = 0; i < 5; ++i) unlimited.plan(mine, partition, {});
  CHECK(unlimited.canPlan(1001));
}

TEST_CASE("backfill plan: whether an allocation takes planned nodes", "[core][backfill]") {
  BackfillPlan plan(10, 0);
  plan.reserve({2, 5}, 100);
  auto on = [](std::vector<int> nodes) {
    select::Allocation allocation;
    for (int node : nodes) {
      select::NodeGrant grant;
      grant.node = node;
      allocation.nodes.push_back(grant);
    }
    return allocation;
  };
  CHECK(plan.anyPlanned(on({1, 5})));
  CHECK_FALSE(plan.anyPlanned(on({0, 1, 9})));
}
