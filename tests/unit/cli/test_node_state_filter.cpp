// sinfo -t/--states, -r, -d and StateComplete: one row per rule.
#include <catch2/catch.hpp>

#include "cli/node_state_filter.h"
#include "cli_fixtures.h"

using namespace gantry::cli;
using namespace gantry::v1;

namespace {

constexpr uint32_t kDrain = NODE_FLAG_DRAIN;
constexpr uint32_t kNoRespond = NODE_FLAG_NOT_RESPONDING;
constexpr uint32_t kCompleting = NODE_FLAG_COMPLETING;
constexpr uint32_t kFail = NODE_FLAG_FAIL;

struct MatchCase {
  const char* rule;
  const char* list;
  NodeBaseState base;
  uint32_t flags;
  bool matches;
};

}  // namespace

TEST_CASE("sinfo -t matches nodes as Slurm does", "[cli][sinfo][node_state_filter]") {
  const MatchCase cases[] = {
      {"idle matches an idle node", "idle", NODE_IDLE, 0, true},
      {"idle matches a drained idle node", "idle", NODE_IDLE, kDrain, true},
      {"idle skips a node finishing a job", "idle", NODE_IDLE, kCompleting, false},
      {"idle skips a mixed node", "idle", NODE_MIXED, 0, false},
      {"names are case-insensitive", "IdLe", NODE_IDLE, 0, true},
      {"alloc matches an allocated node", "alloc", NODE_ALLOCATED, 0, true},
      {"allocated matches a mixed node (CPUs in use)", "allocated", NODE_MIXED, 0, true},
      {"alloc skips an idle node", "alloc", NODE_IDLE, 0, false},
      {"mix matches only mixed", "mix", NODE_ALLOCATED, 0, false},
      {"mixed matches mixed", "mixed", NODE_MIXED, 0, true},
      {"drain matches a drained node", "drain", NODE_IDLE, kDrain, true},
      {"drain matches a draining node", "drain", NODE_MIXED, kDrain, true},
      {"drain skips an undrained node", "drain", NODE_IDLE, 0, false},
      {"drained skips a draining node", "drained", NODE_ALLOCATED, kDrain, false},
      {"drained matches a drained node", "drained", NODE_UNKNOWN, kDrain, true},
      {"draining matches a node finishing work", "draining", NODE_IDLE, kDrain | kCompleting, true},
      {"drng is draining", "drng", NODE_MIXED, kDrain, true},
      {"draining skips a drained node", "draining", NODE_IDLE, kDrain, false},
      {"down matches down", "down", NODE_DOWN, kNoRespond, true},
      {"comp matches the completing flag", "comp", NODE_MIXED, kCompleting, true},
      {"completing matches the completing base", "completing", NODE_COMPLETING, 0, true},
      {"fail matches the fail flag", "fail", NODE_ALLOCATED, kFail, true},
      {"no_respond matches a silent node", "no_respond", NODE_IDLE, kNoRespond, true},
      {"no_respond skips a responding node", "no_respond", NODE_IDLE, 0, false},
      {"unk matches unknown", "unk", NODE_UNKNOWN, 0, true},
      {"a prefix picks Slurm's first state: d is down", "d", NODE_DOWN, 0, true},
      {"a prefix picks Slurm's first state: dr is drain", "dr", NODE_MIXED, kDrain, true},
      {"maint is accepted and matches nothing", "maint", NODE_IDLE, 0, false},
      {"resv is accepted and matches nothing", "resv", NODE_IDLE, 0, false},
      {"planned is accepted and matches nothing", "planned", NODE_IDLE, 0, false},
      {"future is accepted and matches nothing", "future", NODE_IDLE, 0, false},
      {"a comma list matches any", "down,mix,drain", NODE_IDLE, kDrain, true},
      {"a comma list skips what none names", "down,mix", NODE_IDLE, 0, false},
      {"an & list needs all: both", "drain&no_respond", NODE_IDLE, kDrain | kNoRespond, true},
      {"an & list needs all: one missing", "drain&no_respond", NODE_IDLE, kDrain, false},
      {"a + list needs all, as &", "idle+drain", NODE_IDLE, 0, false},
      {"~ negates a name", "~drain", NODE_ALLOCATED, 0, true},
      {"! negates a name", "!drain", NODE_IDLE, kDrain, false},
      {"a negation in an & list", "down&~drain", NODE_DOWN, 0, true},
      {"a negation in a + list drops the drained", "alloc+!drain", NODE_ALLOCATED, kDrain, false},
      {"all matches everything", "ALL", NODE_DOWN, kFail, true},
  };
  for (const MatchCase& c : cases) {
    SECTION(c.rule) {
      auto filter = parseNodeStateFilter(c.list);
      REQUIRE(filter);
      CHECK(nodeMatchesStates(*filter, c.base, c.flags) == c.matches);
    }
  }
}

TEST_CASE("sinfo -t refuses names Slurm refuses", "[cli][sinfo][node_state_filter]") {
  const std::pair<const char*, const char*> cases[] = {
      {"idle,sleepy", "Bad state string: \"sleepy\""},
      {"drainage", "Bad state string: \"drainage\""},
      {",", "Bad state string: \",\""},
  };
  for (const auto& [list, message] : cases) {
    SECTION(list) {
      auto filter = parseNodeStateFilter(list);
      REQUIRE_FALSE(filter);
      CHECK(filter.error() == message);
    }
  }
  CHECK_THAT(validNodeStateNames(), Catch::StartsWith("unknown,down,idle,allocated,"));
}

TEST_CASE("sinfo -r and -d select by responding", "[cli][sinfo][node_state_filter]") {
  struct Case {
    const char* rule;
    bool responding;
    bool dead;
    uint32_t flags;
    bool selected;
  };
  const Case cases[] = {
      {"-r keeps a responding node", true, false, 0, true},
      {"-r drops a silent node", true, false, kNoRespond, false},
      {"-d keeps a silent node", false, true, kNoRespond, true},
      {"-d drops a responding node", false, true, 0, false},
      {"neither keeps both", false, false, kNoRespond, true},
  };
  for (const Case& c : cases) {
    SECTION(c.rule) {
      NodeSelection selection;
      selection.respondingOnly = c.responding;
      selection.deadOnly = c.dead;
      Node node = cli_fixtures::node("gx3", "ignored", NODE_IDLE, c.flags, 0);
      CHECK(nodeSelected(selection, node) == c.selected);
    }
  }
}

TEST_CASE("StateComplete names the base and every flag", "[cli][sinfo][node_state_filter]") {
  struct Case {
    const char* rule;
    NodeBaseState base;
    uint32_t flags;
    const char* text;
  };
  const Case cases[] = {
      {"a base alone", NODE_ALLOCATED, 0, "allocated"},
      {"drain after the base", NODE_IDLE, kDrain, "idle+drain"},
      {"flags in Slurm's order", NODE_MIXED, kFail | kNoRespond | kDrain | kCompleting,
       "mixed+drain+completing+not_responding+fail"},
      {"completing base is idle completing", NODE_COMPLETING, 0, "idle+completing"},
      {"unknown base", NODE_UNKNOWN, 0, "unknown"},
  };
  for (const Case& c : cases) {
    SECTION(c.rule) { CHECK(nodeStateComplete(c.base, c.flags) == c.text); }
  }
}
