// AutoDetect=amd: AMD GPUs from the amdgpu kernel driver through sysfs, no
// ROCm SMI needed. Model from the board FRU product name (or the PCI device
// id), device files from the card's DRM nodes, cores from the PCI device's
// CPU affinity, links from the XGMI io_links of the KFD topology.
#include <map>

#include "nodeagent/detect/backends.h"
#include "nodeagent/detect/host_files.h"

namespace gantry::detect {
namespace {

// The kernel's CRAT io_link type for XGMI, as /sys/class/kfd shows it.
constexpr int kKfdIoLinkTypeXgmi = 11;

bool isPrimaryCardName(const std::string& name) {
  if (!name.starts_with("card") || name.size() == 4) return false;
  return name.find_first_not_of("0123456789", 4) == std::string::npos;
}

std::optional<long long> propertyValue(const std::string& properties, const std::string& key) {
  auto value = findKeyedValue(properties, key + " ");
  if (!value) return std::nullopt;
  try {
    return std::stoll(*value);
  } catch (...) {
    return std::nullopt;
  }
}

// XGMI peers by render minor: for each GPU's render minor, the render minors
// at the far end of its XGMI links. nullopt when there is no KFD topology.
std::optional<std::map<int, std::vector<int>>> xgmiPeersByRenderMinor(const std::string& hostRoot) {
  std::string nodesDir = hostPath(hostRoot, "/sys/class/kfd/kfd/topology/nodes");
  if (!pathExists(nodesDir)) return std::nullopt;
  std::map<std::string, int> renderOfNode;
  for (const auto& node : listDir(nodesDir)) {
    auto gpuId = readLine(nodesDir + "/" + node + "/gpu_id");
    auto properties = readText(nodesDir + "/" + node + "/properties");
    if (!gpuId || *gpuId == "0" || !properties) continue;  // CPU node
    if (auto minor = propertyValue(*properties, "drm_render_minor")) renderOfNode[node] = static_cast<int>(*minor);
  }
  std::map<int, std::vector<int>> peers;
  for (const auto& [node, render] : renderOfNode) {
    std::string linksDir = nodesDir + "/" + node + "/io_links";
    peers[render];
    for (const auto& link : listDir(linksDir)) {
      auto properties = readText(linksDir + "/" + link + "/properties");
      if (!properties) continue;
      auto type = propertyValue(*properties, "type");
      auto to = propertyValue(*properties, "node_to");
      if (!type || *type != kKfdIoLinkTypeXgmi || !to) continue;
      auto peer = renderOfNode.find(std::to_string(*to));
      if (peer != renderOfNode.end()) peers[render].push_back(peer->second);
    }
  }
  return peers;
}

int renderMinorOf(const std::vector<std::string>& files) {
  for (const auto& file : files) {
    auto pos = file.find("renderD");
    if (pos != std::string::npos) return std::stoi(file.substr(pos + 7));
  }
  return -1;
}

}  // namespace

Result<BackendResult> detectAmdSysfs(const DetectOptions& options, const CpuTopology& topology) {
  BackendResult result;
  std::string drmDir = hostPath(options.hostRoot, "/sys/class/drm");
  std::map<int, std::string> busOfRender;
  for (const auto& card : listDir(drmDir)) {
    if (!isPrimaryCardName(card)) continue;
    std::string deviceDir = drmDir + "/" + card + "/device";
    auto uevent = readText(deviceDir + "/uevent");
    if (!uevent || findKeyedValue(*uevent, "DRIVER=") != "amdgpu") continue;
    auto slot = findKeyedValue(*uevent, "PCI_SLOT_NAME=");
    if (!slot) return Error{"AutoDetect=amd: " + deviceDir + "/uevent has no PCI_SLOT_NAME"};

    FoundGpu found;
    DetectedGpu& gpu = found.gpu;
    gpu.pciBusId = normalizeBusId(*slot);
    if (auto partition = checkAmdComputePartition(options.hostRoot, gpu.pciBusId, "amd"); !partition) {
      return Error{partition.error()};
    }
    auto product = readLine(deviceDir + "/product_name");
    auto deviceId = readLine(deviceDir + "/device");
    if (product && !product->empty()) {
      gpu.type = typeFromName(*product);
    } else if (deviceId) {
      gpu.type = typeFromName(*deviceId);
    } else {
      return Error{"AutoDetect=amd: " + deviceDir + " has neither product_name nor device"};
    }
    if (auto unique = readLine(deviceDir + "/unique_id"); unique && !unique->empty()) gpu.uuid = "GPU-" + *unique;
    gpu.files = driNodesOfPciDevice(options.hostRoot, gpu.pciBusId);
    if (gpu.files.empty()) gpu.files = {"/dev/dri/" + card};
    gpu.minor = std::stoi(card.substr(4));
    gpu.vendor = "amd";
    gpu.mechanism = "amd";
    auto cores = pciDeviceCores(options.hostRoot, gpu.pciBusId, topology);
    if (!cores) return Error{"AutoDetect=amd: " + cores.error()};
    gpu.cores = *cores;
    busOfRender[renderMinorOf(gpu.files)] = gpu.pciBusId;
    result.gpus.push_back(std::move(found));
  }
  if (auto peers = xgmiPeersByRenderMinor(options.hostRoot)) {
    for (auto& found : result.gpus) {
      found.linksKnown = true;
      for (int peerRender : (*peers)[renderMinorOf(found.gpu.files)]) {
        if (auto bus = busOfRender.find(peerRender); bus != busOfRender.end()) found.linkPeers.push_back(bus->second);
      }
    }
  }
  return result;
}

}  // namespace gantry::detect
