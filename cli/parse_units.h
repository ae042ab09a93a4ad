// Values users type on the command line and in #SBATCH lines: time limits,
// memory sizes, node ranges, GRES lists, GPU counts. Pure functions; the
// error text names the rule broken, the caller adds which option it was.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::cli {

// A time limit in whole minutes; kUnlimitedMinutes for UNLIMITED/INFINITE.
// Accepted forms: "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S".
// Seconds round up to the next minute, so "0:30" is one minute.
inline constexpr int64_t kUnlimitedMinutes = -1;
inline constexpr int64_t kUnlimitedSeconds = -1;

// The same limit in seconds, so MM:SS limits are kept exactly (the
// controller enforces limits to the second).
Result<int64_t> parseTimeLimitSeconds(const std::string& text);
Result<int64_t> parseTimeLimitMinutes(const std::string& text);

// A size in megabytes: a number with an optional K, M, G or T suffix
// (binary units; no suffix means megabytes). "512K" rounds up to 1 MB.
Result<uint64_t> parseMemoryMb(const std::string& text);

// "N" or "MIN-MAX" node counts; max is 0 when only one number is given.
struct NodeRange {
  int32_t min = 0;
  int32_t max = 0;
};
Result<NodeRange> parseNodeRange(const std::string& text);

// A positive (or, with allowZero, non-negative) integer that fits in int32.
Result<int32_t> parseCount(const std::string& text, bool allowZero = false);

// --nice / Nice=: an integer within Slurm's bound (+/-2147483645).
Result<int32_t> parseNice(const std::string& text);

// One GRES request item: name[:type][:count]; count defaults to 1 and may
// end in K, M, G, T or P (factors of 1024, as in gres.conf: 4G = 4 x 1024^3).
struct GresItem {
  std::string name;
  std::string type;
  uint64_t count = 1;
};
// A comma-separated list of GRES items ("gpu:a100:2,mps:100").
Result<std::vector<GresItem>> parseGresList(const std::string& text);

// A GPU count with an optional type: "4" or "a100:4".
struct GpuCount {
  std::string type;
  int32_t count = 0;
};
Result<GpuCount> parseGpuCount(const std::string& text);

}  // namespace gantry::cli
