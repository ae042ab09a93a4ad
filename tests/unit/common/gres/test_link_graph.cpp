#include <catch2/catch.hpp>

#include "common/gres/link_graph.h"
#include "gres_builders.h"

using namespace gantry::gres;
using namespace gantry::gres::testing;

namespace {
LinkPickOptions mode(LinkMode m) { return LinkPickOptions{.mode = m}; }
}  // namespace

TEST_CASE("link graph from the spec's two-pair node", "[gres][links]") {
  auto graph = LinkGraph::fromDevices(twoLinkedPairs());
  CHECK(graph.hasLinks());
  CHECK(graph.linkedTo(0) == 0b0010);
  CHECK(graph.linkedTo(3) == 0b0100);
  CHECK(graph.allPairwiseLinked(0b0011));
  CHECK_FALSE(graph.allPairwiseLinked(0b0110));
  CHECK_FALSE(graph.allPairwiseLinked(0b1111));
  CHECK(graph.allPairwiseLinked(0b0100));
}

TEST_CASE("enforce gives a linked pair or nothing", "[gres][links]") {
  auto graph = LinkGraph::fromDevices(twoLinkedPairs());
  CHECK(pickDevices(graph, 0b1111, 2, mode(LinkMode::Enforce)) == DeviceMask{0b0011});
  CHECK(pickDevices(graph, 0b1110, 2, mode(LinkMode::Enforce)) == DeviceMask{0b1100});
  CHECK_FALSE(pickDevices(graph, 0b0110, 2, mode(LinkMode::Enforce)));  // 1 and 2 unlinked
  CHECK_FALSE(pickDevices(graph, 0b1111, 4, mode(LinkMode::Enforce)));
  CHECK(pickDevices(graph, 0b0100, 1, mode(LinkMode::Enforce)) == DeviceMask{0b0100});
}

TEST_CASE("prefer finds the linked pair a greedy pick would miss", "[gres][links]") {
  auto graph = LinkGraph::fromDevices(twoLinkedPairs());
  // Free: 1, 2, 3. Lowest-first greedy would take 1 and 2 (unlinked).
  CHECK(pickDevices(graph, 0b1110, 2, mode(LinkMode::Prefer)) == DeviceMask{0b1100});
  // Nothing linked free: still runs.
  CHECK(pickDevices(graph, 0b0110, 2, mode(LinkMode::Prefer)) == DeviceMask{0b0110});
  CHECK(pickDevices(graph, 0b1110, 2, mode(LinkMode::Ignore)) == DeviceMask{0b0110});
}

TEST_CASE("prefer maximises link capacity", "[gres][links]") {
  auto devices = gpus(4);
  devices[0].links = {-1, 1, 1, 1};
  devices[1].links = {1, -1, 4, 1};
  devices[2].links = {1, 4, -1, 1};
  devices[3].links = {1, 1, 1, -1};
  auto graph = LinkGraph::fromDevices(devices);
  CHECK(pickDevices(graph, 0b1111, 2, mode(LinkMode::Prefer)) == DeviceMask{0b0110});
  CHECK(pickDevices(graph, 0b1111, 3, mode(LinkMode::Prefer)).value() & 0b0110);
  CHECK(graph.totalCapacity(0b0111) == 6);
}

TEST_CASE("no link information satisfies enforce for one device only", "[gres][links]") {
  auto graph = LinkGraph::fromDevices(gpus(8));
  CHECK_FALSE(graph.hasLinks());
  CHECK_FALSE(pickDevices(graph, 0xff, 2, mode(LinkMode::Enforce)));
  CHECK(pickDevices(graph, 0xff, 1, mode(LinkMode::Enforce)) == DeviceMask{1});
  CHECK(pickDevices(graph, 0xf0, 3, mode(LinkMode::Prefer)) == DeviceMask{0x70});
}

TEST_CASE("links index devices of the same name only", "[gres][links]") {
  std::vector<DeviceInfo> devices(3);
  devices[0].name = "nic";
  devices[1].links = {-1, 2};
  devices[2].links = {2, -1};
  auto graph = LinkGraph::fromDevices(devices);
  CHECK(graph.linkedTo(1) == 0b100);
  CHECK(graph.linkedTo(0) == 0);
}

TEST_CASE("exact search finds an 8-clique among 32 devices", "[gres][links]") {
  // Four islands of eight fully linked devices; islands not linked.
  auto devices = gpus(32);
  for (int a = 0; a < 32; ++a) {
    devices[a].links.assign(32, 0);
    for (int b = 0; b < 32; ++b)
      devices[a].links[b] = (a == b) ? -1 : (a / 8 == b / 8 ? 2 : 0);
  }
  auto graph = LinkGraph::fromDevices(devices);
  DeviceMask free = ~DeviceMask{0} & lowBits(32) & ~bitOf(0) & ~bitOf(9) & ~bitOf(17);
  auto picked = pickDevices(graph, free, 8, mode(LinkMode::Enforce));
  REQUIRE(picked);
  CHECK(*picked == (DeviceMask{0xff} << 24));
}

TEST_CASE("search on 64 sparsely linked devices ends within its budget", "[gres][links]") {
  auto devices = gpus(64);
  for (int a = 0; a < 64; ++a) {
    devices[a].links.assign(64, 0);
    devices[a].links[a] = -1;
  }
  // A ring: no three devices are pairwise linked.
  for (int a = 0; a < 64; ++a) {
    devices[a].links[(a + 1) % 64] = 1;
    devices[(a + 1) % 64].links[a] = 1;
  }
  auto graph = LinkGraph::fromDevices(devices);
  CHECK_FALSE(pickDevices(graph, ~DeviceMask{0}, 8, mode(LinkMode::Enforce)));
  auto prefer = pickDevices(graph, ~DeviceMask{0}, 8, mode(LinkMode::Prefer));
  REQUIRE(prefer);
  CHECK(graph.totalCapacity(*prefer) == 7);  // a run of eight along the ring
  // Every other device: none linked to another, the lowest eight are taken.
  DeviceMask alternate = 0x5555555555555555ull;
  CHECK(pickDevices(graph, alternate, 4, mode(LinkMode::Prefer)) == DeviceMask{0x55});
}
