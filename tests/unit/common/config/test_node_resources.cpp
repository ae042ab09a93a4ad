#include <catch2/catch.hpp>

#include "common/config/node_resources.h"

using namespace gantry::config;

namespace {
GantryConf conf(const std::string& text) {
  auto loaded = parseGantryConf(text, "gantry.conf");
  if (!loaded.ok()) FAIL(loaded.error());
  return loaded->conf;
}
NodeResources smallMachine() {
  NodeResources detected;
  detected.cpus = 2;
  detected.sockets = 1;
  detected.coresPerSocket = 2;
  detected.realMemoryMb = 1000;
  return detected;
}
}  // namespace

TEST_CASE("config_overrides: configured resources stand", "[config][overrides]") {
  GantryConf c = conf("GresTypes=gpu\nSlurmdParameters=config_overrides\nNodeName=big CPUs=64 Sockets=2 "
                      "CoresPerSocket=32 RealMemory=512G Gres=gpu:a100:8\n");
  NodeResources reg = registeredResources(c, c.nodes[0], smallMachine());
  CHECK(reg.cpus == 64);
  CHECK(reg.sockets == 2);
  CHECK(reg.realMemoryMb == 512 * 1024);
  REQUIRE(reg.gres.size() == 1);
  CHECK(reg.gres[0].count == 8);
}

TEST_CASE("config_overrides per node through Parameters=", "[config][overrides]") {
  GantryConf c = conf("NodeName=a CPUs=64 Parameters=config_overrides\nNodeName=b CPUs=64\n");
  CHECK(registeredResources(c, c.nodes[0], smallMachine()).cpus == 64);
  CHECK(registeredResources(c, c.nodes[1], smallMachine()).cpus == 2);
}

TEST_CASE("without config_overrides the detected resources are registered", "[config][overrides]") {
  GantryConf c = conf("NodeName=big CPUs=64 RealMemory=4096\n");
  NodeResources reg = registeredResources(c, c.nodes[0], smallMachine());
  CHECK(reg.cpus == 2);
  CHECK(reg.realMemoryMb == 1000);
}
