#include "cli/node_state.h"

#include <cctype>
#include <sstream>
#include <vector>

namespace gantry::cli {
namespace {

struct StateParts {
  std::string base;
  bool drain = false;
  bool notResponding = false;
};

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

StateParts splitState(const std::string& state) {
  StateParts parts;
  std::stringstream in(upper(state));
  std::string word;
  bool first = true;
  while (std::getline(in, word, '+')) {
    if (first) {
      parts.base = word;
      first = false;
    } else if (word == "DRAIN") {
      parts.drain = true;
    } else if (word == "NOT_RESPONDING" || word == "NO_RESPOND") {
      parts.notResponding = true;
    }
  }
  if (parts.base.empty()) parts.base = "UNKNOWN";
  return parts;
}

// The state sinfo shows for a draining node: still busy -> draining.
std::string drainWord(const std::string& base, bool compact) {
  bool busy = base == "ALLOCATED" || base == "MIXED" || base == "COMPLETING" || base == "DRAINING";
  if (busy) return compact ? "drng" : "draining";
  if (base == "DOWN") return "down";
  return compact ? "drain" : "drained";
}

struct BaseName {
  const char* state;
  const char* longName;
  const char* compact;
};

constexpr BaseName kBases[] = {
    {"IDLE", "idle", "idle"},          {"MIXED", "mixed", "mix"},
    {"ALLOCATED", "allocated", "alloc"}, {"DOWN", "down", "down"},
    {"COMPLETING", "completing", "comp"}, {"FUTURE", "future", "futr"},
    {"UNKNOWN", "unknown", "unk"},     {"DRAINED", "drained", "drain"},
    {"DRAINING", "draining", "drng"},  {"DRAIN", "drained", "drain"},
};

std::string render(const std::string& controllerState, bool compact) {
  StateParts parts = splitState(controllerState);
  std::string word;
  if (parts.drain || parts.base == "DRAIN") {
    word = drainWord(parts.base, compact);
  } else {
    word = compact ? "unk" : "unknown";
    for (const BaseName& entry : kBases) {
      if (parts.base == entry.state) word = compact ? entry.compact : entry.longName;
    }
  }
  if (parts.notResponding) word += "*";
  return word;
}

}  // namespace

std::string nodeStateLong(const std::string& controllerState) {
  return render(controllerState, false);
}

std::string nodeStateCompact(const std::string& controllerState) {
  return render(controllerState, true);
}

}  // namespace gantry::cli
