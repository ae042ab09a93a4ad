// Small text helpers shared by the merge steps. Internal to gantry_node_gres.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace gantry::nodegres {

inline std::string lowerCase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

inline bool isGpuName(const std::string& name) { return lowerCase(name) == "gpu"; }

// GRES that share a GPU rather than own one.
inline bool isSharedName(const std::string& name) {
  std::string n = lowerCase(name);
  return n == "shard" || n == "mps";
}

inline std::string joinStrings(const std::vector<std::string>& items, const char* separator = ",") {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

inline std::string joinInts(const std::vector<int>& items) {
  std::string out;
  for (int item : items) out += (out.empty() ? "" : ",") + std::to_string(item);
  return out;
}

}  // namespace gantry::nodegres
