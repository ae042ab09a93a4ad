// detectCpus(): sockets, cores, threads and memory through hwloc.
//
// For a host root other than "/", hwloc's Linux backend is pointed at it with
// HWLOC_FSROOT, so it reads <root>/sys/devices/system/{cpu,node} and
// <root>/proc exactly as on a live node. The variable is process-wide, which
// is why detection is documented as start-up only.
#include <hwloc.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>

#include "nodeagent/detect/hardware.h"
#include "nodeagent/detect/host_files.h"

namespace gantry::detect {
namespace {

// MemTotal of <root>/proc/meminfo in kB, 0 when absent or unreadable.
uint64_t memTotalFromProc(const std::string& hostRoot) {
  std::ifstream in(hostPath(hostRoot, "/proc/meminfo"));
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "MemTotal:") return value;
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}


// Sets HWLOC_FSROOT for the lifetime of the object and restores it after.
class ScopedFsRoot {
 public:
  explicit ScopedFsRoot(const std::string& root) {
    if (root.empty() || root == "/") return;
    if (const char* old = std::getenv("HWLOC_FSROOT")) previous_ = old;
    std::error_code ec;
    std::string absolute = std::filesystem::absolute(root, ec).string();
    setenv("HWLOC_FSROOT", absolute.c_str(), 1);
    active_ = true;
  }
  ~ScopedFsRoot() {
    if (!active_) return;
    if (previous_) {
      setenv("HWLOC_FSROOT", previous_->c_str(), 1);
    } else {
      unsetenv("HWLOC_FSROOT");
    }
  }
  ScopedFsRoot(const ScopedFsRoot&) = delete;
  ScopedFsRoot& operator=(const ScopedFsRoot&) = delete;

 private:
  bool active_ = false;
  std::optional<std::string> previous_;
};

class Topology {
 public:
  Topology() { hwloc_topology_init(&topology_); }
  ~Topology() { hwloc_topology_destroy(topology_); }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  hwloc_topology_t get() const { return topology_; }

 private:
  hwloc_topology_t topology_;
};

Result<std::string> socketParameter(const std::vector<std::string>& parameters) {
  std::string chosen;
  for (const auto& p : parameters) {
    if (p != "l3cache_as_socket" && p != "numa_node_as_socket") continue;  // other SlurmdParameters
    if (!chosen.empty() && chosen != p) {
      return Error{"parameters: l3cache_as_socket and numa_node_as_socket cannot both be set"};
    }
    chosen = p;
  }
  return chosen;
}

// Core ids whose CPUs fall in `set`.
std::vector<int> coresIn(hwloc_topology_t topology, hwloc_const_cpuset_t set) {
  std::vector<int> cores;
  int count = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
  for (int i = 0; i < count; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topology, HWLOC_OBJ_CORE, i);
    if (hwloc_bitmap_intersects(core->cpuset, set)) cores.push_back(i);
  }
  return cores;
}

std::vector<std::vector<int>> groupCores(hwloc_topology_t topology, hwloc_obj_type_t type) {
  std::vector<std::vector<int>> groups;
  int count = hwloc_get_nbobjs_by_type(topology, type);
  for (int i = 0; i < count; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(topology, type, i);
    auto cores = coresIn(topology, obj->cpuset);
    if (!cores.empty()) groups.push_back(std::move(cores));
  }
  return groups;
}

}  // namespace

Result<CpuTopology> detectCpus(const DetectOptions& options) {
  auto parameter = socketParameter(options.parameters);
  if (!parameter) return Error{parameter.error()};

  Topology topology;
  hwloc_topology_set_flags(topology.get(), HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  hwloc_topology_set_io_types_filter(topology.get(), HWLOC_TYPE_FILTER_KEEP_NONE);
  {
    ScopedFsRoot fsRoot(options.hostRoot);
    if (hwloc_topology_load(topology.get()) != 0) {
      return Error{"hwloc could not load the CPU topology under host root '" + options.hostRoot + "'"};
    }
  }
  hwloc_topology_t t = topology.get();

  CpuTopology result;
  result.socketParameter = *parameter;
  int cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  int pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  if (cores <= 0 || pus <= 0) {
    return Error{"hwloc found no cores under host root '" + options.hostRoot + "'"};
  }
  result.cpus = pus;
  result.threadsPerCore = std::max(1, pus / cores);
  for (int i = 0; i < cores; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, i);
    unsigned cpu;
    hwloc_bitmap_foreach_begin(cpu, core->cpuset) {
      if (result.coreOfCpu.size() <= cpu) result.coreOfCpu.resize(cpu + 1, -1);
      result.coreOfCpu[cpu] = i;
    }
    hwloc_bitmap_foreach_end();
  }

  hwloc_obj_type_t socketType = HWLOC_OBJ_PACKAGE;
  if (*parameter == "l3cache_as_socket") socketType = HWLOC_OBJ_L3CACHE;
  if (*parameter == "numa_node_as_socket") socketType = HWLOC_OBJ_NUMANODE;
  result.socketCores = groupCores(t, socketType);
  if (result.socketCores.empty()) {
    std::vector<int> all(cores);
    for (int i = 0; i < cores; ++i) all[i] = i;
    result.socketCores.push_back(all);
  }
  result.sockets = static_cast<int>(result.socketCores.size());
  result.coresPerSocket = std::max(1, cores / result.sockets);
  // MemTotal from /proc/meminfo, as the kernel counts the machine's memory.
  // hwloc sums the NUMA nodes' own counters, which some virtual machines
  // report as a fraction of the memory the guest really has.
  uint64_t memTotalKb = memTotalFromProc(options.hostRoot);
  result.realMemoryMb = memTotalKb > 0 ? memTotalKb / 1024 : hwloc_get_root_obj(t)->total_memory / (1024 * 1024);
  return result;
}

}  // namespace gantry::detect
