// Builds MergeInput from a fixture host and gres.conf text, so each merge
// case reads in a few lines.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "../detect/fixture_hosts.h"
#include "common/config/gres_conf.h"
#include "nodeagent/gres/merge.h"

namespace gantry::testing {

struct MergeCase {
  std::string host = {};
  std::string autoDetect = {};  // mechanism used to detect on the fixture
  std::string gresConfText = {};
  std::string nodeGres = {};  // gantry.conf Gres= value
  std::vector<std::string> parameters = {};
  bool constrainDeviceMemory = false;
};

struct MergeRun {
  config::GresConf conf;
  nodegres::MergeInput input;
  Result<nodegres::MergeResult> result = Error{"not run"};
};

inline MergeRun runMerge(const MergeCase& c) {
  MergeRun run;
  auto conf = config::parseGresConf(c.gresConfText, "gres.conf", "node0");
  REQUIRE(conf.ok());
  run.conf = conf.value();
  auto options = fixtureOptions(c.host, c.autoDetect);
  options.parameters = c.parameters;
  auto topology = detect::detectCpus(options);
  REQUIRE(topology.ok());
  auto gpus = detect::detectGpus(options, *topology, nullptr);
  REQUIRE(gpus.ok());
  run.input.nodeName = "node0";
  run.input.gresConf = &run.conf;
  run.input.detected = *gpus;
  run.input.topology = *topology;
  if (!c.nodeGres.empty()) {
    auto gres = config::parseGresList(c.nodeGres);
    REQUIRE(gres.ok());
    run.input.nodeGres = *gres;
  }
  run.input.dmem.hostRoot = fixtureHost(c.host);
  run.input.dmem.constrainDeviceMemory = c.constrainDeviceMemory;
  if (c.constrainDeviceMemory) {
    auto regions = detect::readDmemRegions(fixtureHost(c.host));
    REQUIRE(regions.ok());
    run.input.dmem.regions = *regions;
  }
  run.result = nodegres::mergeGres(run.input);
  return run;
}

}  // namespace gantry::testing
