#include "cli/group_name.h"

#include <grp.h>

namespace gantry::cli {

std::string groupName(uint32_t gid) {
  struct group entry {};
  struct group* found = nullptr;
  char buffer[4096];
  if (getgrgid_r(gid, &entry, buffer, sizeof buffer, &found) == 0 && found != nullptr) {
    return found->gr_name;
  }
  return std::to_string(gid);
}

}  // namespace gantry::cli
