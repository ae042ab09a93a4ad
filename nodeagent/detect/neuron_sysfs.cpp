// AutoDetect=nrt: AWS Neuron devices (Trainium, Inferentia) from the neuron
// kernel driver's sysfs class, no library needed. Each
// /sys/devices/virtual/neuron_device/neuron<N> is one GPU record with the
// device file /dev/neuron<N>; its Type is the driver's device name and its
// Links come from the driver's list of directly connected devices. The
// driver exposes no CPU locality, so Cores stay empty (any socket).
#include <algorithm>
#include <map>
#include <sstream>

#include "nodeagent/detect/backends.h"
#include "nodeagent/detect/host_files.h"

namespace gantry::detect {
namespace {

constexpr const char* kNeuronClass = "/sys/devices/virtual/neuron_device";

// "neuron12" -> 12; -1 for any other entry.
int neuronIndex(const std::string& entry) {
  if (!entry.starts_with("neuron") || entry.size() == 6) return -1;
  if (entry.find_first_not_of("0123456789", 6) != std::string::npos) return -1;
  try {
    return std::stoi(entry.substr(6));
  } catch (...) {
    return -1;
  }
}

// "1, 3, 4" (the driver's connected_devices) -> {1, 3, 4}; fails naming the file.
Result<std::vector<int>> connectedIndexes(const std::string& file) {
  std::vector<int> peers;
  auto text = readLine(file);
  if (!text) return peers;  // an older driver without the file: links unknown to it
  std::string item;
  std::stringstream in(*text);
  while (std::getline(in, item, ',')) {
    item = trim(item);
    if (item.empty()) continue;
    if (item.find_first_not_of("0123456789") != std::string::npos) {
      return Error{"AutoDetect=nrt: " + file + ": '" + item + "' is not a device number"};
    }
    peers.push_back(std::stoi(item));
  }
  return peers;
}

}  // namespace

Result<BackendResult> detectNeuronSysfs(const DetectOptions& options, const CpuTopology& topology) {
  (void)topology;
  BackendResult result;
  std::string classDir = hostPath(options.hostRoot, kNeuronClass);
  if (!pathExists(classDir)) {
    result.unavailable = true;
    result.note = "no neuron driver (" + std::string(kNeuronClass) + " is absent)";
    return result;
  }
  std::vector<int> indexes;
  for (const auto& entry : listDir(classDir)) {
    if (int index = neuronIndex(entry); index >= 0) indexes.push_back(index);
  }
  std::sort(indexes.begin(), indexes.end());
  std::map<int, size_t> positionOf;
  for (size_t i = 0; i < indexes.size(); ++i) positionOf[indexes[i]] = i;

  for (int index : indexes) {
    std::string device = classDir + "/neuron" + std::to_string(index);
    FoundGpu found;
    DetectedGpu& gpu = found.gpu;
    // A driver too old to name its device gets the generic Type "neuron".
    auto name = readLine(device + "/info/architecture/device_name");
    gpu.type = typeFromName(name && !name->empty() ? *name : "neuron");
    gpu.files = {"/dev/neuron" + std::to_string(index)};
    gpu.minor = index;
    gpu.vendor = "aws";
    gpu.mechanism = "nrt";
    auto peers = connectedIndexes(device + "/connected_devices");
    if (!peers) return Error{peers.error()};
    // Links are set here, by position in index order; there are no PCI bus
    // ids for resolveLinks() to match.
    gpu.links.assign(indexes.size(), 0);
    gpu.links[positionOf[index]] = -1;
    for (int peer : *peers) {
      auto at = positionOf.find(peer);
      if (at != positionOf.end() && peer != index) gpu.links[at->second] = 1;
    }
    result.gpus.push_back(std::move(found));
  }
  return result;
}

}  // namespace gantry::detect
