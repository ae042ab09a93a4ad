#include "common/util/sluid.h"

#include <cctype>

namespace gantry {

namespace {

constexpr char kCrockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

std::string sluidOf(const std::string& key) {
  constexpr uint64_t kFnvOffset = 14695981039346656037ULL;
  constexpr uint64_t kFnvPrime = 1099511628211ULL;
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

std::optional<std::string> canonicalSluid(std::string_view text) {
  if (text.size() != 14 || (text[0] != 's' && text[0] != 'S')) return std::nullopt;
  std::string canonical = "s";
  for (char c : text.substr(1)) {
    char digit = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (digit == 'O') digit = '0';
    if (digit == 'I' || digit == 'L') digit = '1';
    if (std::string_view(kCrockford).find(digit) == std::string_view::npos) return std::nullopt;
    canonical += digit;
  }
  return canonical;
}

}  // namespace gantry
