#include "nodeagent/gres/socket_alignment.h"

#include <algorithm>

#include "nodeagent/detect/host_files.h"

namespace gantry::nodegres {

Status checkCoresAlignWithSockets(const std::vector<int>& cores, const detect::CpuTopology& topology,
                                  const CoreCheckSubject& subject) {
  if (cores.empty()) return okStatus();
  std::string coreText = detect::formatIdList(cores);
  std::string what = subject.autodetected ? "autodetected core affinity " + coreText + " on node "
                                          : "core specification " + coreText + " for node ";
  int totalCores = 0;
  for (const auto& socket : topology.socketCores) totalCores += static_cast<int>(socket.size());
  if (cores.back() >= totalCores) {
    return Error{subject.where + "gres/" + subject.gresName + " GRES " + what + subject.nodeName +
                 " names cores beyond the node's " + std::to_string(totalCores) + " cores (0-" +
                 std::to_string(totalCores - 1) + ")"};
  }
  for (size_t s = 0; s < topology.socketCores.size(); ++s) {
    const auto& socket = topology.socketCores[s];
    size_t inside = std::count_if(socket.begin(), socket.end(), [&](int core) {
      return std::binary_search(cores.begin(), cores.end(), core);
    });
    if (inside != 0 && inside != socket.size()) {
      // The autodetected case keeps the spec's wording to the letter,
      // including the name of the check it gives, so an administrator can
      // look the line up as the spec prints it.
      std::string check = subject.autodetected ? "_check_core_range_matches_sock: " : "";
      return Error{subject.where + check + "gres/" + subject.gresName + " GRES " + what + subject.nodeName +
                   " doesn't match socket boundaries. (Socket " + std::to_string(s) + " is cores " +
                   detect::formatIdList(socket) + ")"};
    }
  }
  return okStatus();
}

}  // namespace gantry::nodegres
