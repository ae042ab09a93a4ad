// Exclusivity that is not plain --exclusive: partitions that force sharing
// (OverSubscribe=FORCE:N) and --exclusive=user. The rules decide whether a
// job owns its nodes (and so, on the node, whether its steps join a
// resctrl group) and which jobs may share a node.
#include <catch2/catch.hpp>

#include "controller/select/job_shape.h"
#include "controller/select/rules.h"
#include "controller/select/user_sharing.h"
#include "select_builders.h"

using namespace gantry::select;
using namespace gantry::select::testing;

namespace {

constexpr uint32_t kAda = 2001;
constexpr uint32_t kBo = 2002;

Request jobOf(uint32_t uid, int tasks, bool exclusiveUser = false) {
  Request r;
  r.ntasks = tasks;
  r.uid = uid;
  r.exclusiveUser = exclusiveUser;
  return r;
}

}  // namespace

TEST_CASE("who owns the whole node, by exclusivity and partition", "[select][exclusive]") {
  struct Case {
    const char* rule;
    bool exclusive;
    bool partitionExclusive;
    bool partitionForcesSharing;
    bool wholeNode;
  };
  const std::vector<Case> cases = {
      {"a shared job owns nothing", false, false, false, false},
      {"--exclusive owns its nodes", true, false, false, true},
      {"an OverSubscribe=EXCLUSIVE partition gives whole nodes", false, true, false, true},
      {"--exclusive in a FORCE:N>1 partition is placed like the others", true, false, true, false},
      {"a shared job in a FORCE:N>1 partition stays shared", false, false, true, false},
  };
  for (const auto& c : cases) {
    SECTION(c.rule) {
      Request r;
      r.exclusive = c.exclusive;
      auto shape = shapeJob(r, ShapeOptions{.partitionExclusive = c.partitionExclusive,
                                            .partitionForcesSharing = c.partitionForcesSharing});
      REQUIRE(shape.ok());
      CHECK(shape->wholeNode == c.wholeNode);
    }
  }
}

TEST_CASE("--exclusive in a partition that forces sharing gets only what it asks", "[select][exclusive]") {
  Cluster cluster;
  cluster.addNode(gpuNode("f0", 3, "", NodeShape{.sockets = 1, .coresPerSocket = 6}));
  PartitionView forced = allNodes(cluster);
  forced.forcesSharing = true;
  Request exclusive = gres("", 1);
  exclusive.ntasks = 2;
  exclusive.exclusive = true;
  auto placed = cluster.select(exclusive, forced);
  REQUIRE(placed.verdict == Verdict::Placed);
  const NodeGrant& grant = placed.allocation.nodes[0];
  CHECK_FALSE(grant.wholeNode);
  CHECK(grant.devices.size() == 1);
  CHECK(grant.cpus.size() == 2);
  cluster.commit(placed.allocation);
  // The node stays open to the partition's other jobs.
  CHECK(cluster.select(jobOf(kBo, 1), forced).verdict == Verdict::Placed);
}

TEST_CASE("--exclusive=user sharing rules", "[select][exclusive][user]") {
  struct Case {
    const char* rule;
    std::map<uint32_t, UserGrants> onNode;
    bool exclusiveUser;
    const char* refusal;  // null: may join
  };
  const std::vector<Case> cases = {
      {"an empty node takes anyone", {}, true, nullptr},
      {"a user-exclusive job joins its own user's jobs", {{kAda, {2, 0}}}, true, nullptr},
      {"a user-exclusive job stays off other users' jobs", {{kBo, {1, 0}}}, true, rules::kOtherUsersJobs},
      {"a shared job stays off another user's user-exclusive job", {{kBo, {1, 1}}}, false,
       rules::kHeldByOtherUser},
      {"a shared job joins the same user's user-exclusive job", {{kAda, {1, 1}}}, false, nullptr},
      {"shared jobs of different users share as before", {{kBo, {3, 0}}}, false, nullptr},
      {"a user with nothing left on the node does not count", {{kBo, {0, 0}}}, true, nullptr},
  };
  for (const auto& c : cases) {
    SECTION(c.rule) {
      const char* refusal = userSharingRule(c.onNode, kAda, c.exclusiveUser);
      if (c.refusal == nullptr) CHECK(refusal == nullptr);
      else CHECK(refusal == std::string(c.refusal));
    }
  }
}

TEST_CASE("--exclusive=user keeps other users off the node, not the same user", "[select][exclusive][user]") {
  Cluster cluster;
  cluster.addNode(gpuNode("u0", 0, "", NodeShape{.sockets = 1, .coresPerSocket = 6}));
  cluster.addNode(gpuNode("u1", 0, "", NodeShape{.sockets = 1, .coresPerSocket = 6}));
  PartitionView all = allNodes(cluster);

  auto first = cluster.select(jobOf(kAda, 2, true), all);
  REQUIRE(first.verdict == Verdict::Placed);
  CHECK_FALSE(first.allocation.nodes[0].wholeNode);
  CHECK(first.allocation.nodes[0].cpus.size() == 2);  // only what it asked
  CHECK(first.allocation.owner.uid == kAda);
  CHECK(first.allocation.owner.userExclusive);
  cluster.commit(first.allocation);
  const int adaNode = first.allocation.nodes[0].node;

  // The same user's jobs, exclusive or not, may share the node.
  auto again = cluster.select(jobOf(kAda, 2), PartitionView{.nodes = {adaNode}});
  REQUIRE(again.verdict == Verdict::Placed);
  cluster.commit(again.allocation);

  // Another user's job goes to the other node though this one has free cpus,
  // and waits when it may only use this one.
  SelectTrace trace;
  auto other = cluster.select(jobOf(kBo, 1), all, &trace);
  REQUIRE(other.verdict == Verdict::Placed);
  CHECK(other.allocation.nodes[0].node != adaNode);
  CHECK(traceHas(trace, adaNode, rules::kHeldByOtherUser));
  CHECK(cluster.select(jobOf(kBo, 1), PartitionView{.nodes = {adaNode}}).verdict == Verdict::NotNow);
  cluster.commit(other.allocation);

  // A user-exclusive job of Ada cannot join Bo's node either.
  SelectTrace second;
  CHECK(cluster.select(jobOf(kAda, 1, true), PartitionView{.nodes = {other.allocation.nodes[0].node}}, &second)
            .verdict == Verdict::NotNow);
  CHECK(traceHas(second, other.allocation.nodes[0].node, rules::kOtherUsersJobs));

  // Once Ada's user-exclusive job ends, her other job no longer keeps Bo away.
  cluster.release(first.allocation);
  CHECK(cluster.select(jobOf(kBo, 1), PartitionView{.nodes = {adaNode}}).verdict == Verdict::Placed);
}

TEST_CASE("a user-exclusive job never counts as waiting forever", "[select][exclusive][user]") {
  Cluster cluster;
  cluster.addNode(gpuNode("u0", 0, "", NodeShape{.sockets = 1, .coresPerSocket = 4}));
  auto bo = cluster.select(jobOf(kBo, 1), allNodes(cluster));
  cluster.commit(bo.allocation);
  // Busy with another user's job now, but the hardware could serve it.
  CHECK(cluster.select(jobOf(kAda, 1, true), allNodes(cluster)).verdict == Verdict::NotNow);
  CHECK(cluster.canEverRun(jobOf(kAda, 1, true), allNodes(cluster)).verdict == Verdict::Placed);
}
