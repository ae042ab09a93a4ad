// gres.conf text for node "node1": parse, print the records and resolve the
// shared GRES forms, as the node agent would.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/config/gres_conf.h"
#include "common/config/gres_format.h"
#include "common/config/shared_gres.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto conf = gantry::config::parseGresConf(text, "fuzz.conf", "node1", {.followIncludes = false});
  if (!conf.ok()) return 0;
  (void)gantry::config::formatGresRecords(conf.value());
  std::vector<gantry::config::GpuRef> gpus;
  for (const auto* record : conf->recordsNamed("gpu")) {
    for (const auto& file : record->files) gpus.push_back({file, record->type});
  }
  for (const char* shared : {"mps", "shard"}) {
    auto plan = gantry::config::planSharedGres(conf.value(), shared);
    if (plan.ok()) (void)gantry::config::resolveSharedCounts(plan.value(), gpus, 64);
  }
  return 0;
}
