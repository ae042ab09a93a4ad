// Small builders so GRES test cases read in a line or two.
#pragma once

#include <string>
#include <vector>

#include "common/gres/device.h"

namespace gantry::gres::testing {

inline std::vector<DeviceInfo> gpus(int count, const std::string& type = "") {
  std::vector<DeviceInfo> out(count);
  for (int i = 0; i < count; ++i) {
    out[i].type = type;
    out[i].files = {"/dev/nvidia" + std::to_string(i)};
  }
  return out;
}

// The spec's four-GPU node: 0 linked with 1, 2 linked with 3.
inline std::vector<DeviceInfo> twoLinkedPairs() {
  auto devices = gpus(4);
  devices[0].links = {-1, 1, 0, 0};
  devices[1].links = {1, -1, 0, 0};
  devices[2].links = {0, 0, -1, 1};
  devices[3].links = {0, 0, 1, -1};
  return devices;
}

}  // namespace gantry::gres::testing
