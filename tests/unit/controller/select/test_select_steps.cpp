// Steps inside an allocation: the spec's gres_test.bash example and the
// typed/untyped consistency rule.
#include <catch2/catch.hpp>

#include "select_builders.h"

using namespace gantry::select;
using namespace gantry::select::testing;

namespace {

Request stepWith(int gpus, int ntasks, bool exclusive) {
  Request r = gres("", gpus);
  r.ntasks = ntasks;
  r.exclusive = exclusive;
  return r;
}

struct GresTestJob {
  Cluster cluster;
  Request jobRequest;
  Allocation job;
  GresTestJob() {
    cluster.addNode(gpuNode("node0", 4));
    cluster.addNode(gpuNode("node1", 4));
    // sbatch --gres=gpu:4 -n4 -N1-1 gres_test.bash
    jobRequest = gres("", 4);
    jobRequest.ntasks = 4;
    jobRequest.minNodes = jobRequest.maxNodes = 1;
    auto outcome = cluster.select(jobRequest, allNodes(cluster));
    REQUIRE(outcome.verdict == Verdict::Placed);
    job = outcome.allocation;
    cluster.commit(job);
  }
};

}  // namespace

TEST_CASE("gres_test.bash: three exclusive steps get distinct GPUs", "[select][steps]") {
  GresTestJob t;
  std::vector<Allocation> running;
  auto first = t.cluster.selectStep(t.jobRequest, t.job, running, stepWith(2, 2, true));
  REQUIRE(first.verdict == Verdict::Placed);
  running.push_back(first.allocation);
  auto second = t.cluster.selectStep(t.jobRequest, t.job, running, stepWith(1, 1, true));
  REQUIRE(second.verdict == Verdict::Placed);
  running.push_back(second.allocation);
  auto third = t.cluster.selectStep(t.jobRequest, t.job, running, stepWith(1, 1, true));
  REQUIRE(third.verdict == Verdict::Placed);
  CHECK(devicesOf(first) == std::vector<int>{0, 1});
  CHECK(devicesOf(second) == std::vector<int>{2});
  CHECK(devicesOf(third) == std::vector<int>{3});
  // Distinct cpus as well.
  for (int cpu : first.allocation.nodes[0].cpus)
    for (int other : third.allocation.nodes[0].cpus) CHECK(cpu != other);
  running.push_back(third.allocation);
  // A fourth exclusive step waits for a GPU; the job could serve it later.
  auto fourth = t.cluster.selectStep(t.jobRequest, t.job, running, stepWith(1, 1, true));
  CHECK(fourth.verdict == Verdict::NotNow);
  running.erase(running.begin() + 1);
  CHECK(devicesOf(t.cluster.selectStep(t.jobRequest, t.job, running, stepWith(1, 1, true))) ==
        std::vector<int>{2});
}

TEST_CASE("a step gets all of the job's GRES by default", "[select][steps]") {
  GresTestJob t;
  Request plain;
  plain.ntasks = 1;
  auto step = t.cluster.selectStep(t.jobRequest, t.job, {}, plain);
  REQUIRE(step.verdict == Verdict::Placed);
  CHECK(devicesOf(step) == t.job.nodes[0].devices);
  CHECK(step.allocation.nodes[0].node == t.job.nodes[0].node);
}

TEST_CASE("steps ask for no more than the job holds, in the same typed form", "[select][steps]") {
  GresTestJob t;
  CHECK(t.cluster.selectStep(t.jobRequest, t.job, {}, stepWith(5, 1, false)).verdict == Verdict::Never);
  auto typed = t.cluster.selectStep(t.jobRequest, t.job, {}, gres("tesla", 2));
  CHECK(typed.verdict == Verdict::Never);
  CHECK_THAT(typed.reason, Catch::Contains("typed and untyped"));
  Request typedJob = gres("tesla", 2);
  CHECK(t.cluster.selectStep(typedJob, t.job, {}, gres("", 2)).verdict == Verdict::Never);
  CHECK(t.cluster.selectStep(typedJob, t.job, {}, gres("k80", 2)).verdict == Verdict::Never);
  Cluster teslas;
  teslas.addNode(gpuNode("node0", 4, "tesla"));
  auto job = teslas.select(typedJob, allNodes(teslas));
  REQUIRE(job.verdict == Verdict::Placed);
  CHECK(teslas.selectStep(typedJob, job.allocation, {}, gres("tesla", 1)).verdict == Verdict::Placed);
  CHECK(teslas.selectStep(typedJob, job.allocation, {}, gres("tesla", 3)).verdict == Verdict::Never);
}

TEST_CASE("steps inside a chunked allocation are not chunk-constrained", "[select][steps][chunks]") {
  Cluster cluster;
  NodeInfo node = gpuNode("node0", 8);
  node.chunks.push_back({"", {4, 8}, {}});
  cluster.addNode(node);
  Request jobRequest = gres("", 8);
  auto job = cluster.select(jobRequest, allNodes(cluster));
  REQUIRE(job.verdict == Verdict::Placed);
  auto step = cluster.selectStep(jobRequest, job.allocation, {}, stepWith(3, 1, true));
  REQUIRE(step.verdict == Verdict::Placed);
  CHECK(devicesOf(step).size() == 3);
}
