// How gres.conf spreads a shared GRES (mps, shard) over the node's GPUs.
// Four forms exist; this file recognises which one a node uses and turns it
// into one count per GPU, so the GRES model does not re-read gres.conf.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/config/gres_conf.h"
#include "common/util/result.h"

namespace gantry::config {

enum class SharedGresForm {
  NoLine,     // no gres.conf line: the gantry.conf total is split evenly over the GPUs
  NodeTotal,  // Name+Count: that total is split evenly
  PerFile,    // Name+File+Count: Count for the GPU with that device file; others get 0
  PerType,    // Name+Type+Count: Count for every GPU whose type contains Type (case-insensitive); others 0
};

struct SharedGresPlan {
  std::string name;  // "mps" or "shard"
  SharedGresForm form = SharedGresForm::NoLine;
  uint64_t nodeTotal = 0;  // NodeTotal
  std::map<std::string, uint64_t> perFile;  // PerFile: device file -> count
  std::vector<std::pair<std::string, uint64_t>> perType;  // PerType: type -> count, file order
};

// Recognises the form of `name` on this node. Fails, naming the line, when
// lines of different forms are mixed.
Result<SharedGresPlan> planSharedGres(const GresConf& conf, std::string_view name);

struct GpuRef {
  std::string file;  // device file, "" when unknown
  std::string type;  // detected or configured GPU type
};

// One count per GPU of `gpus`, in their order. `configuredTotal` is the
// gantry.conf Gres count of this shared GRES on the node (used by NoLine).
// An even split gives the remainder to the first GPUs. For PerType the line
// with the longest Type contained in the GPU type wins.
std::vector<uint64_t> resolveSharedCounts(const SharedGresPlan& plan, const std::vector<GpuRef>& gpus,
                                          uint64_t configuredTotal);

}  // namespace gantry::config
