// The Gres= value of a NodeName line: "gpu:tesla:2,gpu:kepler:2,mps:400,
// bandwidth:lustre:no_consume:4G". Each item is name[:type][:no_consume][:count].
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/result.h"

namespace gantry::config {

struct GresCount {
  std::string name;
  std::string type;  // "" when untyped
  bool noConsume = false;
  uint64_t count = 0;
};

// Parses a whole Gres= value. The count defaults to 1 and takes K/M/G/T/P
// suffixes (factors of 1024). Fails on an empty name, too many fields, or a
// count that does not parse; the error names the item.
Result<std::vector<GresCount>> parseGresList(std::string_view text);

// "gpu:tesla:2" form of one item, as scontrol prints it.
std::string formatGresCount(const GresCount& gres);

// One MaxDrainedTres limit: "gres/gpu:2" -> {"gres/gpu", 2}, "mem:8192"
// -> {"mem", 8192}, "gres/gpu:a100:1" -> {"gres/gpu:a100", 1}.
struct TresLimit {
  std::string tres;
  uint64_t count = 0;
};
Result<std::vector<TresLimit>> parseTresLimits(std::string_view text);

}  // namespace gantry::config
