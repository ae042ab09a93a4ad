// Facts about a PCI device read from sysfs, shared by the GPU backends.
#include <algorithm>

#include "nodeagent/detect/backends.h"
#include "nodeagent/detect/host_files.h"

namespace gantry::detect {

std::vector<int> coresOfCpus(const CpuTopology& topology, const std::vector<int>& cpus) {
  std::vector<int> cores;
  for (int cpu : cpus) {
    if (cpu >= 0 && cpu < static_cast<int>(topology.coreOfCpu.size()) && topology.coreOfCpu[cpu] >= 0) {
      cores.push_back(topology.coreOfCpu[cpu]);
    }
  }
  std::sort(cores.begin(), cores.end());
  cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
  return cores;
}

static std::string pciDir(const std::string& hostRoot, const std::string& busId) {
  return hostPath(hostRoot, "/sys/bus/pci/devices/" + busId);
}

Result<std::vector<int>> pciDeviceCores(const std::string& hostRoot, const std::string& busId,
                                        const CpuTopology& topology) {
  std::string file = pciDir(hostRoot, busId) + "/local_cpulist";
  auto text = readLine(file);
  if (!text) return std::vector<int>{};
  auto cpus = parseCpuList(*text, file);
  if (!cpus) return Error{cpus.error()};
  return coresOfCpus(topology, *cpus);
}

Status checkAmdComputePartition(const std::string& hostRoot, const std::string& busId,
                                const std::string& mechanism) {
  auto mode = readLine(pciDir(hostRoot, busId) + "/current_compute_partition");
  if (!mode || mode->empty() || *mode == "SPX") return okStatus();
  return Error{"AutoDetect=" + mechanism + ": GPU " + busId + " is in compute partition mode " + *mode +
               "; only SPX is supported (set it with amd-smi set --compute-partition SPX)"};
}

std::vector<std::string> driNodesOfPciDevice(const std::string& hostRoot, const std::string& busId) {
  std::vector<std::string> render, primary;
  for (const auto& name : listDir(pciDir(hostRoot, busId) + "/drm")) {
    if (name.starts_with("renderD")) render.push_back("/dev/dri/" + name);
    if (name.starts_with("card") && name.find('-') == std::string::npos) primary.push_back("/dev/dri/" + name);
  }
  render.insert(render.end(), primary.begin(), primary.end());
  return render;
}

}  // namespace gantry::detect
