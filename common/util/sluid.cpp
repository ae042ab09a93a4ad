#include "common/util/sluid.h"

namespace gantry {

namespace {

std::string sluidOf(const std::string& key) {
  constexpr uint64_t kFnvOffset = 14695981039346656037ULL;
  constexpr uint64_t kFnvPrime = 1099511628211ULL;
  constexpr char kCrockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
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

}  // namespace

std::string jobSluid(const std::string& cluster, uint64_t job_id) {
  return sluidOf(cluster + ":" + std::to_string(job_id));
}

std::string runSluid(const std::string& cluster, uint64_t job_id, int restarts) {
  if (restarts <= 0) return jobSluid(cluster, job_id);
  return sluidOf(cluster + ":" + std::to_string(job_id) + "." + std::to_string(restarts));
}

}  // namespace gantry
