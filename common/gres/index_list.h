// Compact index lists as the views print them: {0,1,2,5} -> "0-2,5".
#pragma once

#include <string>
#include <vector>

#include "common/gres/device.h"

namespace gantry::gres {

// Indexes are sorted first; duplicates are printed once.
std::string formatIndexList(std::vector<int> indexes);

// The devices of a mask in ascending order.
std::vector<int> maskToIndexes(DeviceMask mask);
DeviceMask indexesToMask(const std::vector<int>& indexes);

}  // namespace gantry::gres
