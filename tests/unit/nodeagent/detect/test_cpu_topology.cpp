#include <catch2/catch.hpp>

#include "fixture_hosts.h"

using namespace gantry;
using gantry::testing::fixtureOptions;

TEST_CASE("two-socket node: sockets are packages", "[detect][cpu]") {
  auto topology = detect::detectCpus(fixtureOptions("nvlink8-2socket", ""));
  REQUIRE(topology.ok());
  CHECK(topology->cpus == 64);
  CHECK(topology->sockets == 2);
  CHECK(topology->coresPerSocket == 16);
  CHECK(topology->threadsPerCore == 2);
  CHECK(topology->realMemoryMb == 1024 * 1024);
  REQUIRE(topology->socketCores.size() == 2);
  CHECK(topology->socketCores[1].front() == 16);
  CHECK(topology->coreOfCpu[33] == 1);  // second thread of core 1
}

TEST_CASE("many-L3 CPU: l3cache_as_socket makes each L3 a socket", "[detect][cpu]") {
  auto options = fixtureOptions("many-l3-1socket", "");
  auto physical = detect::detectCpus(options);
  REQUIRE(physical.ok());
  CHECK(physical->sockets == 1);
  CHECK(physical->coresPerSocket == 16);

  options.parameters = {"l3cache_as_socket"};
  auto l3 = detect::detectCpus(options);
  REQUIRE(l3.ok());
  CHECK(l3->sockets == 8);
  CHECK(l3->coresPerSocket == 2);
  CHECK(l3->cpus == 32);
  CHECK(l3->socketCores[4] == std::vector<int>{8, 9});
  CHECK(l3->socketParameter == "l3cache_as_socket");

  options.parameters = {"numa_node_as_socket"};
  auto numa = detect::detectCpus(options);
  REQUIRE(numa.ok());
  CHECK(numa->sockets == 1);
}

TEST_CASE("both socket parameters at once are refused", "[detect][cpu]") {
  auto options = fixtureOptions("many-l3-1socket", "");
  options.parameters = {"l3cache_as_socket", "numa_node_as_socket"};
  auto topology = detect::detectCpus(options);
  REQUIRE_FALSE(topology.ok());
  CHECK(topology.error() == "parameters: l3cache_as_socket and numa_node_as_socket cannot both be set");
}

TEST_CASE("unrelated node parameters are ignored", "[detect][cpu]") {
  auto options = fixtureOptions("a100-mig", "");
  options.parameters = {"config_overrides"};
  auto topology = detect::detectCpus(options);
  REQUIRE(topology.ok());
  CHECK(topology->sockets == 2);
  CHECK(topology->coresPerSocket == 8);
}

TEST_CASE("the live host loads with host root /", "[detect][cpu]") {
  detect::DetectOptions options;  // hostRoot "/": hwloc reads this machine natively
  auto topology = detect::detectCpus(options);
  REQUIRE(topology.ok());
  CHECK(topology->cpus >= 1);
  CHECK(topology->sockets >= 1);
  CHECK(topology->realMemoryMb > 0);
  options.autoDetect = "nvidia";
  CHECK(detect::detectGpus(options, *topology, nullptr).ok());  // no driver here is not an error
}
