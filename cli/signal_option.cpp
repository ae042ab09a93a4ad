#include "cli/signal_option.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "cli/signal_names.h"

namespace gantry::cli {
namespace {

constexpr const char* kExpected = "expected [{R|B}:]<signal>[@<seconds>] (seconds from 0 to 65535)";
constexpr long kLongestWarning = 0xffff;  // Slurm keeps the time in 16 bits

bool takeFlag(const std::string& text, size_t& at, char letter) {
  if (at < text.size() && std::toupper(static_cast<unsigned char>(text[at])) == letter) {
    ++at;
    return true;
  }
  return false;
}

}  // namespace

Result<WarnSignal> parseWarnSignal(const std::string& text) {
  WarnSignal warn;
  size_t at = 0;
  // Slurm's order: R, then B, then R again (so both RB and BR read).
  bool resv = takeFlag(text, at, 'R');
  bool batch = takeFlag(text, at, 'B');
  resv = takeFlag(text, at, 'R') || resv;
  if (resv) warn.flags += "R";
  if (batch) warn.flags += "B";
  if (at < text.size() && text[at] == ':') ++at;
  size_t atSign = text.find('@', at);
  std::string name = text.substr(at, atSign == std::string::npos ? std::string::npos : atSign - at);
  auto signal = parseSignal(name);
  if (!signal) return Error{"invalid signal specification '" + text + "': " + signal.error() + "; " + kExpected};
  warn.signal = *signal;
  if (atSign == std::string::npos) return warn;
  const char* start = text.c_str() + atSign + 1;
  char* end = nullptr;
  errno = 0;
  long seconds = std::strtol(start, &end, 10);
  if (*end != '\0' || errno == ERANGE || seconds < 0 || seconds > kLongestWarning) {
    return Error{"invalid signal specification '" + text + "': bad time '" + std::string(start) + "'; " + kExpected};
  }
  warn.seconds = static_cast<int>(seconds);
  return warn;
}

}  // namespace gantry::cli
