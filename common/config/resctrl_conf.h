// resctrl.yaml: the schemata of the three memory-bandwidth groups the node
// agent creates, in the order they are written to the kernel.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/result.h"

namespace gantry::config {

// The only group names accepted; each must be present exactly once.
inline constexpr std::array<std::string_view, 3> kResctrlGroupNames = {"cpu_only", "gpu_one_per_socket",
                                                                       "gpu_two_per_socket"};

struct ResctrlGroup {
  std::string name;
  std::string schemata;  // written to the kernel as is
  int line = 0;
};

struct ResctrlConf {
  bool present = false;  // false: no resctrl.yaml; the node agent manages no groups
  std::string file;
  std::vector<ResctrlGroup> groups;  // file order = write order
  std::string mountOptions;  // comma-separated, "" for none

  const ResctrlGroup* find(std::string_view name) const;
};

// Reads `path`; a missing file yields present == false. The error text
// lists every problem as "file:line: ...".
Result<ResctrlConf> loadResctrlConf(const std::filesystem::path& path);
Result<ResctrlConf> parseResctrlConf(std::string_view text, const std::string& fileName);

}  // namespace gantry::config
