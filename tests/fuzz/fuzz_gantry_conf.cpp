// gantry.conf text must never crash the parser; Include is off so the
// fuzzer cannot reach the filesystem.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/config/gantry_conf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto loaded = gantry::config::parseGantryConf(text, "fuzz.conf", {.followIncludes = false});
  if (loaded.ok()) {
    for (const auto& node : loaded->conf.nodes) (void)gantry::config::expandPathPattern(loaded->conf.slurmdSpoolDir, node.name, node.hostname);
    (void)loaded->conf.defaultPartition();
  }
  return 0;
}
