// cgroup.conf text against a gantry.conf with and without task/cgroup.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/config/cgroup_conf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gantry::config::GantryConf gantry;
  if (size % 2 == 0) gantry.taskPlugins = {"task/cgroup"};
  (void)gantry::config::parseCgroupConf(text, "fuzz.conf", gantry, {.followIncludes = false});
  return 0;
}
