// sinfo's state words come from base_state and state_flags; the display
// text the controller also sends is never read.
#include <catch2/catch.hpp>

#include "cli/format_sinfo.h"
#include "cli/node_state.h"
#include "cli_fixtures.h"

using namespace gantry::cli;
using namespace gantry::v1;

namespace {

constexpr uint32_t kDrain = NODE_FLAG_DRAIN;
constexpr uint32_t kNoRespond = NODE_FLAG_NOT_RESPONDING;
constexpr uint32_t kCompleting = NODE_FLAG_COMPLETING;
constexpr uint32_t kDegraded = NODE_FLAG_DEGRADED;
constexpr uint32_t kFail = NODE_FLAG_FAIL;

struct StateCase {
  const char* name;
  NodeBaseState base;
  uint32_t flags;
  const char* longWord;
  const char* compactWord;
  bool unusable;
};

}  // namespace

TEST_CASE("node states as sinfo shows them", "[cli][sinfo][node_state]") {
  const StateCase cases[] = {
      {"idle", NODE_IDLE, 0, "idle", "idle", false},
      {"mixed", NODE_MIXED, 0, "mixed", "mix", false},
      {"allocated", NODE_ALLOCATED, 0, "allocated", "alloc", false},
      {"completing", NODE_COMPLETING, 0, "completing", "comp", false},
      {"down", NODE_DOWN, 0, "down", "down", true},
      {"unknown", NODE_UNKNOWN, 0, "unknown", "unk", false},
      {"idle drained", NODE_IDLE, kDrain, "drained", "drain", true},
      {"unknown drained", NODE_UNKNOWN, kDrain, "drained", "drain", true},
      {"mixed draining", NODE_MIXED, kDrain, "draining", "drng", false},
      {"allocated draining", NODE_ALLOCATED, kDrain, "draining", "drng", false},
      {"completing draining", NODE_COMPLETING, kDrain, "draining", "drng", false},
      {"idle draining while jobs finish", NODE_IDLE, kDrain | kCompleting, "draining", "drng", false},
      {"down drained", NODE_DOWN, kDrain, "down", "down", true},
      {"down not responding", NODE_DOWN, kNoRespond, "down*", "down*", true},
      {"idle not responding", NODE_IDLE, kNoRespond, "idle*", "idle*", false},
      {"drained not responding", NODE_IDLE, kDrain | kNoRespond, "drained*", "drain*", true},
      {"degraded is not shown", NODE_MIXED, kDegraded, "mixed", "mix", false},
      {"idle failing is fail", NODE_IDLE, kFail, "fail", "fail", false},
      {"allocated failing is failing", NODE_ALLOCATED, kFail, "failing", "failg", false},
      {"mixed failing is failing", NODE_MIXED, kFail, "failing", "failg", false},
      {"failing while jobs finish", NODE_IDLE, kFail | kCompleting, "failing", "failg", false},
      {"failing and not responding", NODE_DOWN, kFail | kNoRespond, "fail*", "fail*", true},
      {"a drain is named before a failure", NODE_MIXED, kFail | kDrain, "draining", "drng", false},
  };
  for (const StateCase& c : cases) {
    SECTION(c.name) {
      Node node = cli_fixtures::node("n1", "ignored", c.base, c.flags, 0);
      CHECK(nodeStateLong(node) == c.longWord);
      CHECK(nodeStateCompact(node) == c.compactWord);
      CHECK(nodeUnusable(node) == c.unusable);
    }
  }
}

TEST_CASE("sinfo reads the enum, not the display text", "[cli][sinfo][node_state]") {
  // The text says one thing, the fields another: the fields win.
  Node drained = cli_fixtures::node("n1", "IDLE", NODE_IDLE, kDrain, 0);
  CHECK(nodeStateLong(drained) == "drained");
  Node idle = cli_fixtures::node("n2", "MIXED+DRAIN+NOT_RESPONDING", NODE_IDLE, 0, 0);
  CHECK(nodeStateCompact(idle) == "idle");

  Partition all;
  all.set_name("all");
  all.set_nodes("n[1-3]");
  all.set_state("UP");
  Node draining = cli_fixtures::node("n3", "IDLE", NODE_MIXED, kDrain, 4);
  for (Node* member : {&drained, &idle, &draining}) member->add_partitions("all");
  auto format = parseSinfoFormat("%R %t %C");
  REQUIRE(format.ok());
  std::string out = renderSinfo(*format, {all}, {drained, idle, draining},
                                SinfoRenderOptions{.view = SinfoView::kNodes, .header = false});
  // A drained node's CPUs are "other"; a draining one's still count as
  // allocated and idle.
  CHECK(out == "all drain 0/0/8/8\nall idle 0/8/0/8\nall drng 4/4/0/8\n");
}
