#include "nodeagent/hardware_report.h"

#include <filesystem>

#include "common/config/gres_conf.h"
#include "nodeagent/detect/hardware.h"

namespace gantry::agent {

std::string formatNodeLine(const std::string& nodeName, const v1::NodeHardware& hw) {
  std::string line = "NodeName=" + nodeName + " CPUs=" + std::to_string(hw.cpus()) +
                     " Boards=" + std::to_string(hw.boards()) +
                     " SocketsPerBoard=" + std::to_string(hw.boards() > 0 ? hw.sockets() / hw.boards() : hw.sockets()) +
                     " CoresPerSocket=" + std::to_string(hw.cores_per_socket()) +
                     " ThreadsPerCore=" + std::to_string(hw.threads_per_core()) +
                     " RealMemory=" + std::to_string(hw.real_memory_mb());
  // Gres=name:type:count per (name, type), in device order.
  std::vector<std::pair<std::string, uint64_t>> totals;
  for (const auto& device : hw.gres()) {
    std::string key = device.name() + (device.type().empty() ? "" : ":" + device.type());
    auto found = std::find_if(totals.begin(), totals.end(), [&](const auto& t) { return t.first == key; });
    if (found == totals.end()) totals.emplace_back(key, device.count());
    else found->second += device.count();
  }
  if (!totals.empty()) {
    line += " Gres=";
    for (size_t i = 0; i < totals.size(); ++i) {
      if (i > 0) line += ",";
      line += totals[i].first + ":" + std::to_string(totals[i].second);
    }
  }
  return line;
}

}  // namespace gantry::agent

namespace gantry::agent {
namespace {

void addCpuTopology(const detect::CpuTopology& topology, v1::NodeHardware* hw) {
  hw->set_cpus(topology.cpus);
  hw->set_boards(topology.boards);
  hw->set_sockets(topology.sockets);
  hw->set_cores_per_socket(topology.coresPerSocket);
  hw->set_threads_per_core(topology.threadsPerCore);
  hw->set_real_memory_mb(topology.realMemoryMb);
}

}  // namespace

Result<HardwareReport> collectHardware(const config::GantryConf& conf, const config::NodeConf& node,
                                       const ReportOptions& options) {
  HardwareReport report;
  detect::DetectOptions detectOptions;
  detectOptions.hostRoot = options.hostRoot;
  detectOptions.parameters = options.parameters;
  for (const auto& p : node.parameters) detectOptions.parameters.push_back(p);
  if (conf.l3cacheAsSocket) detectOptions.parameters.push_back("l3cache_as_socket");
  if (conf.numaNodeAsSocket) detectOptions.parameters.push_back("numa_node_as_socket");
  auto topology = detect::detectCpus(detectOptions);
  if (!topology) return Error{"CPU detection failed: " + topology.error()};
  addCpuTopology(*topology, &report.hardware);

  auto gresConf = config::loadGresConf(std::filesystem::path(options.confDir) / "gres.conf", node.name);
  if (!gresConf) return Error{gresConf.error()};
  detectOptions.autoDetect = std::string(config::toString(gresConf->autoDetect));
  std::vector<detect::DetectedGpu> detected;
  if (gresConf->autoDetect != config::AutoDetect::Off) {
    auto gpus = detect::detectGpus(detectOptions, *topology, &report.log);
    if (!gpus) return Error{gpus.error()};
    detected = std::move(*gpus);
  }
  int index = 0;
  auto addDevice = [&](const std::string& name, const std::string& type, std::vector<std::string> files,
                       const std::vector<int>& cores, const std::vector<int>& links, const std::string& uuid,
                       const std::string& pci, uint64_t count) {
    v1::GresDevice* device = report.hardware.add_gres();
    device->set_index(name == "gpu" ? index++ : -1);
    device->set_name(name);
    device->set_type(type);
    for (auto& f : files) device->add_files(f);
    for (int c : cores) device->add_cores(c);
    for (int l : links) device->add_links(l);
    device->set_uuid(uuid);
    device->set_pci_bus_id(pci);
    device->set_count(count);
  };
  for (const auto& gpu : detected) {
    addDevice(gpu.name, gpu.type, gpu.files, gpu.cores, gpu.links, gpu.uuid, gpu.pciBusId, 1);
  }
  for (const auto& record : gresConf->records) {
    if (record.name == "gpu" && !detected.empty()) continue;  // detection wins
    if (!record.files.empty()) {
      for (const auto& file : record.files) {
        addDevice(record.name, record.type, {file}, record.cores, record.links, "", "", 1);
      }
    } else if (!record.multipleFiles.empty()) {
      addDevice(record.name, record.type, record.multipleFiles, record.cores, record.links, "", "", 1);
    } else {
      addDevice(record.name, record.type, {}, record.cores, {}, "", "", record.effectiveCount());
    }
  }
  return report;
}

}  // namespace gantry::agent
