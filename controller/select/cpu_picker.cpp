#include "controller/select/cpu_picker.h"

#include <algorithm>

namespace gantry::select {

namespace {

// A unit is one cpu (CR_CPU) or every thread of one core (CR_Core).
struct UnitScan {
  const NodeState& node;
  const CpuSet& free;
  bool byCpu;
  int threads() const { return node.info.threadsPerCore; }
  int unitsPerSocket() const { return byCpu ? node.cpusPerSocket : node.info.coresPerSocket; }
  int unitSize() const { return byCpu ? 1 : threads(); }
  int firstCpu(int socket, int unit) const {
    return socket * node.cpusPerSocket + unit * unitSize();
  }
  bool unitFree(int socket, int unit) const {
    int first = firstCpu(socket, unit);
    for (int c = first; c < first + unitSize(); ++c)
      if (!free.test(c)) return false;
    return true;
  }
};

bool inMask(SocketMask mask, int socket) { return (mask >> (socket < 63 ? socket : 63)) & 1; }

}  // namespace

std::optional<std::vector<int>> pickCpus(const NodeState& node, const CpuSet& free,
                                         const CpuPickOptions& options) {
  UnitScan scan{node, free, options.byCpu};
  int unitSize = scan.unitSize();
  int unitsNeeded = (std::max(options.cpusNeeded, 1) + unitSize - 1) / unitSize;
  int sockets = node.info.sockets;
  std::vector<char> taken(static_cast<size_t>(sockets) * scan.unitsPerSocket(), 0);
  std::vector<int> cpus;
  auto take = [&](int socket, int unit) {
    taken[socket * scan.unitsPerSocket() + unit] = 1;
    int first = scan.firstCpu(socket, unit);
    for (int c = first; c < first + unitSize; ++c) cpus.push_back(c);
    --unitsNeeded;
  };
  auto allowed = [&](int socket) { return options.only == 0 || inMask(options.only, socket); };

  for (int s = 0; s < sockets; ++s) {
    if (!inMask(options.mustTouch, s) || !allowed(s)) continue;
    bool found = false;
    for (int u = 0; u < scan.unitsPerSocket() && !found; ++u)
      if (scan.unitFree(s, u)) {
        take(s, u);
        found = true;
      }
    if (!found) return std::nullopt;
  }
  for (int pass = 0; pass < 2 && unitsNeeded > 0; ++pass)
    for (int s = 0; s < sockets && unitsNeeded > 0; ++s) {
      bool preferred = inMask(options.preferred, s);
      if ((pass == 0) != preferred || !allowed(s)) continue;
      for (int u = 0; u < scan.unitsPerSocket() && unitsNeeded > 0; ++u)
        if (!taken[s * scan.unitsPerSocket() + u] && scan.unitFree(s, u)) take(s, u);
    }
  if (unitsNeeded > 0) return std::nullopt;
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

}  // namespace gantry::select
