// GPU core affinity must cover whole sockets: the scheduler binds GRES to
// sockets, so a Cores= that splits a socket cannot be honoured.
#pragma once

#include <string>
#include <vector>

#include "common/util/result.h"
#include "nodeagent/detect/hardware.h"

namespace gantry::nodegres {

struct CoreCheckSubject {
  std::string gresName;  // "gpu"
  std::string nodeName;
  bool autodetected = false;  // wording: "autodetected core affinity" vs "core specification"
  std::string where;          // "gres.conf:12: " prefix for configured cores, or ""
};

// Ok when every socket holds either all or none of `cores`, and every core
// exists. Otherwise the error names the GRES, node, cores and the first
// socket split, e.g. "_check_core_range_matches_sock: gres/gpu GRES
// autodetected core affinity 0-7 on node node0 doesn't match socket
// boundaries. (Socket 0 is cores 0-1)" (the spec's line; the agent logs it
// at error level).
Status checkCoresAlignWithSockets(const std::vector<int>& cores, const detect::CpuTopology& topology,
                                  const CoreCheckSubject& subject);

}  // namespace gantry::nodegres
