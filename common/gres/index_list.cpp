#include "common/gres/index_list.h"

#include <algorithm>
#include <bit>

namespace gantry::gres {

std::string formatIndexList(std::vector<int> indexes) {
  std::sort(indexes.begin(), indexes.end());
  indexes.erase(std::unique(indexes.begin(), indexes.end()), indexes.end());
  std::string out;
  for (size_t i = 0; i < indexes.size();) {
    size_t j = i;
    while (j + 1 < indexes.size() && indexes[j + 1] == indexes[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(indexes[i]);
    if (j > i) out += '-' + std::to_string(indexes[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> maskToIndexes(DeviceMask mask) {
  std::vector<int> out;
  while (mask) {
    out.push_back(std::countr_zero(mask));
    mask &= mask - 1;
  }
  return out;
}

DeviceMask indexesToMask(const std::vector<int>& indexes) {
  DeviceMask mask = 0;
  for (int i : indexes)
    if (i >= 0 && i < kMaxDevicesPerNode) mask |= bitOf(i);
  return mask;
}

}  // namespace gantry::gres
