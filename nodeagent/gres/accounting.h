// Every GPU AutoDetect found must be accounted for by the node's Gres= in
// gantry.conf; otherwise the node is drained at registration.
#pragma once

#include <string>
#include <vector>

#include "common/config/gres_spec.h"
#include "nodeagent/gres/records.h"

namespace gantry::nodegres {

// `gpus` are the node's GPU records in device order. Gres= entries take
// devices of exactly their Type first, then of a Type they are a substring
// of, then untyped entries take any. Returns "" when every autodetected GPU
// is taken, else the drain reason listing the ones left over.
std::string unaccountedGpusReason(const std::vector<GresRecord>& gpus, const std::vector<config::GresCount>& nodeGres,
                                  const std::string& nodeName);

}  // namespace gantry::nodegres
