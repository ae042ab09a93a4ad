#include "cli/step_token.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

namespace gantry::cli {

Result<std::string> newStepToken() {
  unsigned char bytes[kStepTokenBytes];
  size_t filled = 0;
  while (filled < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + filled, sizeof bytes - filled, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error{ErrorCode::Internal, std::string("cannot get random bytes: ") + std::strerror(errno)};
    filled += static_cast<size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  token.reserve(2 * sizeof bytes);
  for (unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 0xf];
  }
  return token;
}

bool sameToken(std::string_view given, std::string_view expected) {
  // Every byte of `expected` is looked at, whatever `given` holds.
  unsigned char difference = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i) {
    const unsigned char g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    difference |= static_cast<unsigned char>(g ^ static_cast<unsigned char>(expected[i]));
  }
  // Through a volatile so the compiler cannot stop the loop early.
  volatile unsigned char result = difference;
  return result == 0 && !expected.empty();
}

}  // namespace gantry::cli
