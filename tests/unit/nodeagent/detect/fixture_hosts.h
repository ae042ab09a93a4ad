// Options pointing detection at a fixture host tree and at the fake vendor
// libraries. Tests run from the repository root.
#pragma once

#include <cstdlib>
#include <string>

#include "nodeagent/detect/hardware.h"

namespace gantry::testing {

inline std::string fixtureHost(const std::string& name) { return "tests/fixtures/hosts/" + name; }

inline detect::DetectOptions fixtureOptions(const std::string& host, const std::string& autoDetect) {
  setenv("GANTRY_FAKE_NVML_FILE", (fixtureHost(host) + "/fake-nvml.txt").c_str(), 1);
  setenv("GANTRY_FAKE_RSMI_FILE", (fixtureHost(host) + "/fake-rsmi.txt").c_str(), 1);
  detect::DetectOptions options;
  options.hostRoot = fixtureHost(host);
  options.autoDetect = autoDetect;
  options.nvmlLibrary = GANTRY_FAKE_NVML_PATH;
  options.rsmiLibrary = GANTRY_FAKE_RSMI_PATH;
  return options;
}

}  // namespace gantry::testing
