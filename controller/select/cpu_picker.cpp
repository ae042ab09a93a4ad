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

// --ntasks-per-socket: sockets in order (those that must be touched, then
// the preferred, then the rest), each taking as many whole tasks as its
// free units hold, up to the limit.
std::optional<std::vector<int>> pickCpusPerSocket(const NodeState& node, const CpuSet& free,
                                                  const CpuPickOptions& options) {
  UnitScan scan{node, free, options.byCpu};
  int unitSize = scan.unitSize();
  int unitsPerTask = (std::max(options.cpusPerTask, 1) + unitSize - 1) / unitSize;
  int sockets = node.info.sockets;
  int perSocket = scan.unitsPerSocket();
  std::vector<char> taken(static_cast<size_t>(sockets) * perSocket, 0);
  std::vector<int> cpus;
  auto takeUnits = [&](int socket, int count) {
    for (int u = 0; u < perSocket && count > 0; ++u) {
      if (taken[socket * perSocket + u] || !scan.unitFree(socket, u)) continue;
      taken[socket * perSocket + u] = 1;
      int first = scan.firstCpu(socket, u);
      for (int c = first; c < first + unitSize; ++c) cpus.push_back(c);
      --count;
    }
  };
  auto freeUnits = [&](int socket) {
    int count = 0;
    for (int u = 0; u < perSocket; ++u) count += !taken[socket * perSocket + u] && scan.unitFree(socket, u);
    return count;
  };
  auto allowed = [&](int socket) { return options.only == 0 || inMask(options.only, socket); };
  std::vector<int> order;
  for (int pass = 0; pass < 3; ++pass)
    for (int s = 0; s < sockets; ++s) {
      int rank = inMask(options.mustTouch, s) ? 0 : inMask(options.preferred, s) ? 1 : 2;
      if (rank == pass && allowed(s)) order.push_back(s);
    }
  int tasksLeft = options.tasks;
  for (int s : order) {
    int fit = std::min({options.tasksPerSocket, tasksLeft, freeUnits(s) / unitsPerTask});
    takeUnits(s, fit * unitsPerTask);
    tasksLeft -= fit;
  }
  if (tasksLeft > 0) return std::nullopt;
  // What the tasks do not cover (--cpus-per-gpu asking more), anywhere allowed.
  int unitsLeft = (options.cpusNeeded - static_cast<int>(cpus.size()) + unitSize - 1) / unitSize;
  for (int s : order) {
    if (unitsLeft <= 0) break;
    int count = std::min(unitsLeft, freeUnits(s));
    takeUnits(s, count);
    unitsLeft -= count;
  }
  if (unitsLeft > 0) return std::nullopt;
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

std::optional<std::vector<int>> pickCpus(const NodeState& node, const CpuSet& free,
                                         const CpuPickOptions& options) {
  if (options.tasksPerSocket > 0) return pickCpusPerSocket(node, free, options);
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
