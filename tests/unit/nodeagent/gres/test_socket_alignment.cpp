#include <catch2/catch.hpp>

#include "../detect/fixture_hosts.h"
#include "nodeagent/gres/socket_alignment.h"

using namespace gantry;
using gantry::testing::fixtureOptions;

namespace {
detect::CpuTopology manyL3(std::vector<std::string> parameters) {
  auto options = fixtureOptions("many-l3-1socket", "");
  options.parameters = std::move(parameters);
  auto topology = detect::detectCpus(options);
  REQUIRE(topology.ok());
  return *topology;
}
}  // namespace

TEST_CASE("autodetected affinity that splits a socket is refused", "[gres][sockets]") {
  auto status = nodegres::checkCoresAlignWithSockets({0, 1}, manyL3({}), {"gpu", "node0", true, ""});
  REQUIRE_FALSE(status.ok());
  CHECK(status.error() ==
        "_check_core_range_matches_sock: gres/gpu GRES autodetected core affinity 0-1 on node node0 doesn't match socket boundaries. "
        "(Socket 0 is cores 0-15)");
}

TEST_CASE("the same affinity aligns once each L3 is a socket", "[gres][sockets]") {
  CHECK(nodegres::checkCoresAlignWithSockets({0, 1}, manyL3({"l3cache_as_socket"}), {"gpu", "node0", true, ""}).ok());
  CHECK(nodegres::checkCoresAlignWithSockets({0, 1, 2, 3, 4, 5, 6, 7}, manyL3({"l3cache_as_socket"}),
                                             {"gpu", "node0", true, ""}).ok());
}

TEST_CASE("configured cores name the gres.conf line and the socket split", "[gres][sockets]") {
  auto status = nodegres::checkCoresAlignWithSockets({0, 1, 2}, manyL3({"l3cache_as_socket"}),
                                                     {"gpu", "node0", false, "gres.conf:3: "});
  REQUIRE_FALSE(status.ok());
  CHECK(status.error() ==
        "gres.conf:3: gres/gpu GRES core specification 0-2 for node node0 doesn't match socket boundaries. "
        "(Socket 1 is cores 2-3)");
}

TEST_CASE("cores beyond the node are refused", "[gres][sockets]") {
  auto status = nodegres::checkCoresAlignWithSockets({16, 17}, manyL3({}), {"gpu", "node0", false, "gres.conf:2: "});
  REQUIRE_FALSE(status.ok());
  CHECK(status.error() ==
        "gres.conf:2: gres/gpu GRES core specification 16-17 for node node0 names cores beyond the node's 16 cores (0-15)");
}
