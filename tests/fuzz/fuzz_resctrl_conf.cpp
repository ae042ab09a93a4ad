// resctrl.yaml text through yaml-cpp and the group checks.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/config/resctrl_conf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)gantry::config::parseResctrlConf(text, "fuzz.yaml");
  return 0;
}
