// AutoDetect=nvidia: NVIDIA GPUs from the kernel driver's procfs entries,
// without NVML. The driver writes one information file per GPU; it carries
// no MIG or NVLink data, so those stay unknown with this mechanism.
#include "nodeagent/detect/backends.h"
#include "nodeagent/detect/host_files.h"

namespace gantry::detect {

Result<BackendResult> detectNvidiaProcfs(const DetectOptions& options, const CpuTopology& topology) {
  BackendResult result;
  std::string gpusDir = hostPath(options.hostRoot, "/proc/driver/nvidia/gpus");
  if (!pathExists(gpusDir)) {
    result.unavailable = true;
    result.note = "NVIDIA kernel driver not loaded (" + gpusDir + " absent)";
    return result;
  }
  for (const auto& entry : listDir(gpusDir)) {
    std::string file = gpusDir + "/" + entry + "/information";
    auto text = readText(file);
    if (!text) return Error{"AutoDetect=nvidia: cannot read " + file};
    auto model = findKeyedValue(*text, "Model:");
    auto uuid = findKeyedValue(*text, "GPU UUID:");
    auto bus = findKeyedValue(*text, "Bus Location:");
    auto minor = findKeyedValue(*text, "Device Minor:");
    if (!model || !bus || !minor) {
      return Error{"AutoDetect=nvidia: " + file + " lacks Model, Bus Location or Device Minor"};
    }
    FoundGpu found;
    DetectedGpu& gpu = found.gpu;
    gpu.type = typeFromName(*model);
    gpu.uuid = uuid.value_or("");
    gpu.pciBusId = normalizeBusId(*bus);
    try {
      gpu.minor = std::stoi(*minor);
    } catch (...) {
      return Error{"AutoDetect=nvidia: " + file + ": Device Minor '" + *minor + "' is not a number"};
    }
    gpu.files = {"/dev/nvidia" + std::to_string(gpu.minor)};
    gpu.vendor = "nvidia";
    gpu.mechanism = "nvidia";
    auto cores = pciDeviceCores(options.hostRoot, gpu.pciBusId, topology);
    if (!cores) return Error{"AutoDetect=nvidia: " + cores.error()};
    gpu.cores = *cores;
    result.gpus.push_back(std::move(found));
  }
  return result;
}

}  // namespace gantry::detect
