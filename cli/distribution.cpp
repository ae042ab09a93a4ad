#include "cli/distribution.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <vector>

namespace gantry::cli {
namespace {

constexpr const char* kExpected =
    "expected block|cyclic|arbitrary|plane=<N>, optionally :block|cyclic|fcyclic for sockets "
    "(and cores), and ,Pack or ,NoPack";

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

Error invalid(const std::string& text, const std::string& why) {
  return Error{"invalid distribution '" + text + "': " + why + "; " + kExpected};
}

// plane=<N>: N from 1 to INT_MAX, nothing after it.
Result<Distribution> parsePlane(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq + 1 == text.size()) return invalid(text, "plane needs a size (plane=<N>)");
  const char* start = text.c_str() + eq + 1;
  char* end = nullptr;
  errno = 0;
  long size = std::strtol(start, &end, 10);
  if (end == start || *end != '\0' || errno == ERANGE || size <= 0 || size > INT_MAX) {
    return invalid(text, "the plane size must be a whole number from 1 to " + std::to_string(INT_MAX));
  }
  return Distribution{.name = "plane", .planeSize = static_cast<int>(size)};
}

std::vector<std::string> levels(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(':', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool isPackFlag(const std::string& word) { return word == "pack" || word == "nopack"; }

}  // namespace

Result<Distribution> parseDistribution(const std::string& text) {
  if (lower(text).rfind("plane", 0) == 0) return parsePlane(text);
  if (text.empty() || text.front() == ',') return invalid(text, "no layout given");
  size_t comma = text.find(',');
  std::string base = lower(text.substr(0, comma));
  std::string flag = comma == std::string::npos ? "" : lower(text.substr(comma + 1));

  std::vector<std::string> words = levels(base);
  if (words.size() > 3) return invalid(text, "at most node, socket and core layouts");
  if (words.empty()) return invalid(text, "no layout given");
  if (words.size() == 1 && isPackFlag(words[0])) {
    // Pack or NoPack alone: Slurm's default layout with that flag.
    if (comma != std::string::npos) return invalid(text, "'" + words[0] + "' is already the flag");
    return Distribution{.name = words[0]};
  }
  std::string name;
  std::string socket;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string word = words[i];
    // '*' is Slurm's default at each level: block nodes, cyclic sockets,
    // cores as their sockets.
    if (word == "*") word = i == 0 ? "block" : i == 1 ? "cyclic" : socket;
    if (i == 0 && word == "hostfile") word = "arbitrary";
    bool known = i == 0 ? (word == "block" || word == "cyclic" || word == "arbitrary")
                        : (word == "block" || word == "cyclic" || word == "fcyclic");
    if (!known) return invalid(text, "'" + words[i] + "' is not a layout there");
    if (i == 1) socket = word;
    name += (i == 0 ? "" : ":") + word;
  }
  if (name.rfind("arbitrary", 0) == 0 && words.size() > 1) {
    return invalid(text, "arbitrary takes no socket or core layout");
  }
  if (comma != std::string::npos) {
    if (!isPackFlag(flag)) return invalid(text, "'" + text.substr(comma + 1) + "' is neither Pack nor NoPack");
    name += "," + flag;
  }
  return Distribution{.name = name};
}

}  // namespace gantry::cli
