#include "stepd/core/sluid.h"

namespace gantry::stepd {

std::string jobSluid(const std::string& cluster, uint64_t job_id) {
  constexpr uint64_t kFnvOffset = 14695981039346656037ULL;
  constexpr uint64_t kFnvPrime = 1099511628211ULL;
  constexpr char kCrockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  const std::string key = cluster + ":" + std::to_string(job_id);
  uint64_t hash = kFnvOffset;
  for (unsigned char c : key) {
    hash ^= c;
    hash *= kFnvPrime;
  }
  // 13 digits of 5 bits cover 65 bits; the top digit holds the top 4 bits.
  std::string digits(13, '0');
  for (int i = 12; i >= 0; --i) {
    digits[i] = kCrockford[hash & 31U];
    hash >>= 5;
  }
  return "s" + digits;
}

}  // namespace gantry::stepd
