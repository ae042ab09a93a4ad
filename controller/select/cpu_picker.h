// Chooses cpus on one node: whole cores (CR_Core) or single cpus (CR_CPU),
// first on the preferred sockets, touching every required socket once.
#pragma once

#include <optional>
#include <vector>

#include "controller/select/node_state.h"

namespace gantry::select {

struct CpuPickOptions {
  int cpusNeeded = 1;
  bool byCpu = false;       // CR_CPU
  SocketMask preferred = 0; // tried first
  SocketMask only = 0;      // when non-zero, no other socket may be used
  SocketMask mustTouch = 0; // each of these gets at least one unit
  // --ntasks-per-socket: when non-zero, the cpus go task by task, each
  // task whole on one socket and at most this many tasks per socket;
  // `tasks` tasks of `cpusPerTask` each (cpusNeeded above their sum is
  // taken after them, anywhere allowed).
  int tasksPerSocket = 0;
  int tasks = 0;
  int cpusPerTask = 1;
};

// The cpu ids, or nothing when the free cpus cannot satisfy the options.
std::optional<std::vector<int>> pickCpus(const NodeState& node, const CpuSet& free,
                                         const CpuPickOptions& options);

}  // namespace gantry::select
