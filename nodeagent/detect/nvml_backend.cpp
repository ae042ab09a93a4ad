// AutoDetect=nvml: NVIDIA GPUs through NVML, loaded with dlopen so one build
// serves nodes with and without the driver. Adds what procfs cannot give:
// NVLink counts between GPUs (direct links, or a shared NVSwitch fabric) and
// MIG instances with their device files.
#include <cmath>
#include <map>

#include "nodeagent/detect/backends.h"
#include "nodeagent/detect/host_files.h"
#include "nodeagent/detect/nvml_abi.h"
#include "nodeagent/detect/shared_library.h"

namespace gantry::detect {
namespace {

struct Nvml {
  nvmlInit_v2_fn init = nullptr;
  nvmlShutdown_fn shutdown = nullptr;
  nvmlDeviceGetCount_v2_fn count = nullptr;
  nvmlDeviceGetHandleByIndex_v2_fn handleByIndex = nullptr;
  nvmlDeviceGetName_fn name = nullptr;
  nvmlDeviceGetUUID_fn uuid = nullptr;
  nvmlDeviceGetMinorNumber_fn minor = nullptr;
  nvmlDeviceGetPciInfo_v3_fn pciInfo = nullptr;
  nvmlDeviceGetCpuAffinity_fn cpuAffinity = nullptr;
  nvmlDeviceGetNvLinkState_fn linkState = nullptr;
  nvmlDeviceGetNvLinkRemotePciInfo_v2_fn linkRemote = nullptr;
  nvmlDeviceGetNvLinkRemoteDeviceType_fn linkRemoteType = nullptr;
  nvmlDeviceGetMigMode_fn migMode = nullptr;
  nvmlDeviceGetMaxMigDeviceCount_fn maxMig = nullptr;
  nvmlDeviceGetMigDeviceHandleByIndex_fn migHandle = nullptr;
  nvmlDeviceGetGpuInstanceId_fn gpuInstanceId = nullptr;
  nvmlDeviceGetComputeInstanceId_fn computeInstanceId = nullptr;
  nvmlDeviceGetAttributes_v2_fn attributes = nullptr;

  bool bind(const SharedLibrary& lib) {
    init = lib.symbol<nvmlInit_v2_fn>("nvmlInit_v2");
    shutdown = lib.symbol<nvmlShutdown_fn>("nvmlShutdown");
    count = lib.symbol<nvmlDeviceGetCount_v2_fn>("nvmlDeviceGetCount_v2");
    handleByIndex = lib.symbol<nvmlDeviceGetHandleByIndex_v2_fn>("nvmlDeviceGetHandleByIndex_v2");
    name = lib.symbol<nvmlDeviceGetName_fn>("nvmlDeviceGetName");
    uuid = lib.symbol<nvmlDeviceGetUUID_fn>("nvmlDeviceGetUUID");
    minor = lib.symbol<nvmlDeviceGetMinorNumber_fn>("nvmlDeviceGetMinorNumber");
    pciInfo = lib.symbol<nvmlDeviceGetPciInfo_v3_fn>("nvmlDeviceGetPciInfo_v3");
    cpuAffinity = lib.symbol<nvmlDeviceGetCpuAffinity_fn>("nvmlDeviceGetCpuAffinity");
    linkState = lib.symbol<nvmlDeviceGetNvLinkState_fn>("nvmlDeviceGetNvLinkState");
    linkRemote = lib.symbol<nvmlDeviceGetNvLinkRemotePciInfo_v2_fn>("nvmlDeviceGetNvLinkRemotePciInfo_v2");
    linkRemoteType = lib.symbol<nvmlDeviceGetNvLinkRemoteDeviceType_fn>("nvmlDeviceGetNvLinkRemoteDeviceType");
    migMode = lib.symbol<nvmlDeviceGetMigMode_fn>("nvmlDeviceGetMigMode");
    maxMig = lib.symbol<nvmlDeviceGetMaxMigDeviceCount_fn>("nvmlDeviceGetMaxMigDeviceCount");
    migHandle = lib.symbol<nvmlDeviceGetMigDeviceHandleByIndex_fn>("nvmlDeviceGetMigDeviceHandleByIndex");
    gpuInstanceId = lib.symbol<nvmlDeviceGetGpuInstanceId_fn>("nvmlDeviceGetGpuInstanceId");
    computeInstanceId = lib.symbol<nvmlDeviceGetComputeInstanceId_fn>("nvmlDeviceGetComputeInstanceId");
    attributes = lib.symbol<nvmlDeviceGetAttributes_v2_fn>("nvmlDeviceGetAttributes_v2");
    // The entry points every NVML since the R450 driver has; the rest are optional.
    return init && shutdown && count && handleByIndex && name && uuid && minor && pciInfo;
  }
};

// Calls nvmlShutdown on every path out once nvmlInit succeeded.
struct NvmlSession {
  const Nvml& nvml;
  ~NvmlSession() { nvml.shutdown(); }
};

Error nvmlError(const std::string& call, nvmlReturn_t rc) {
  return Error{"AutoDetect=nvml: " + call + " failed (NVML error " + std::to_string(rc) + ")"};
}

std::vector<int> affinityCpus(const Nvml& nvml, nvmlDevice_t device) {
  constexpr unsigned kWords = 64;  // 4096 CPUs
  unsigned long mask[kWords] = {};
  std::vector<int> cpus;
  if (!nvml.cpuAffinity || nvml.cpuAffinity(device, kWords, mask) != kNvmlSuccess) return cpus;
  constexpr int kBits = sizeof(unsigned long) * 8;
  for (unsigned w = 0; w < kWords; ++w) {
    for (int b = 0; b < kBits; ++b) {
      if (mask[w] & (1UL << b)) cpus.push_back(static_cast<int>(w) * kBits + b);
    }
  }
  return cpus;
}

// Active NVLinks: the GPU peers at their far ends, and how many end at an
// NVSwitch (drivers without the remote type call report peers only).
void readLinks(const Nvml& nvml, nvmlDevice_t device, FoundGpu& found) {
  if (!nvml.linkState || !nvml.linkRemote) return;
  for (unsigned link = 0; link < kNvmlNvlinkMaxLinks; ++link) {
    int active = 0;
    if (nvml.linkState(device, link, &active) != kNvmlSuccess || !active) continue;
    int remoteType = kNvmlNvlinkDeviceTypeGpu;
    if (nvml.linkRemoteType && nvml.linkRemoteType(device, link, &remoteType) == kNvmlSuccess &&
        remoteType == kNvmlNvlinkDeviceTypeSwitch) {
      ++found.switchLinks;
      continue;
    }
    nvmlPciInfo_t remote{};
    if (nvml.linkRemote(device, link, &remote) != kNvmlSuccess) continue;
    found.linkPeers.push_back(normalizeBusId(remote.busId));
  }
}

// "gpu0/gi1/access 12" lines of the driver's MIG capability table.
std::map<std::string, int> readMigMinors(const std::string& hostRoot) {
  std::map<std::string, int> minors;
  auto text = readText(hostPath(hostRoot, "/proc/driver/nvidia-caps/mig-minors"));
  if (!text) return minors;
  size_t pos = 0;
  while (pos < text->size()) {
    size_t end = text->find('\n', pos);
    if (end == std::string::npos) end = text->size();
    std::string line = text->substr(pos, end - pos);
    pos = end + 1;
    auto space = line.find(' ');
    if (space == std::string::npos) continue;
    try {
      minors[line.substr(0, space)] = std::stoi(line.substr(space + 1));
    } catch (...) {
    }
  }
  return minors;
}

// "nvidia_a100-sxm4-40gb" + 3 slices + 19968 MB -> "nvidia_a100_3g.20gb".
std::string migProfileType(const std::string& parentType, const nvmlDeviceAttributes_t& attributes) {
  std::string base = parentType.substr(0, parentType.find('-'));
  auto gb = static_cast<unsigned long long>(std::ceil(attributes.memorySizeMB / 1024.0));
  return base + "_" + std::to_string(attributes.gpuInstanceSliceCount) + "g." + std::to_string(gb) + "gb";
}

Result<std::vector<FoundGpu>> migInstances(const Nvml& nvml, nvmlDevice_t parent, const DetectedGpu& parentGpu,
                                           const std::map<std::string, int>& capMinors) {
  std::vector<FoundGpu> instances;
  unsigned maxCount = 0;
  if (!nvml.maxMig || !nvml.migHandle || !nvml.gpuInstanceId || !nvml.computeInstanceId || !nvml.attributes) {
    return Error{"AutoDetect=nvml: GPU " + parentGpu.pciBusId + " has MIG enabled but this NVML lacks the MIG calls"};
  }
  if (auto rc = nvml.maxMig(parent, &maxCount); rc != kNvmlSuccess) return nvmlError("nvmlDeviceGetMaxMigDeviceCount", rc);
  std::string gpuKey = "gpu" + std::to_string(parentGpu.minor);
  for (unsigned i = 0; i < maxCount; ++i) {
    nvmlDevice_t mig = nullptr;
    if (nvml.migHandle(parent, i, &mig) != kNvmlSuccess) continue;  // unused slot
    unsigned gi = 0, ci = 0;
    nvmlDeviceAttributes_t attributes{};
    char uuid[kNvmlDeviceUuidBufferSize] = {};
    if (auto rc = nvml.gpuInstanceId(mig, &gi); rc != kNvmlSuccess) return nvmlError("nvmlDeviceGetGpuInstanceId", rc);
    if (auto rc = nvml.computeInstanceId(mig, &ci); rc != kNvmlSuccess) return nvmlError("nvmlDeviceGetComputeInstanceId", rc);
    if (auto rc = nvml.attributes(mig, &attributes); rc != kNvmlSuccess) return nvmlError("nvmlDeviceGetAttributes_v2", rc);
    nvml.uuid(mig, uuid, sizeof uuid);
    std::string giKey = gpuKey + "/gi" + std::to_string(gi);
    std::string ciKey = giKey + "/ci" + std::to_string(ci);
    auto giMinor = capMinors.find(giKey + "/access");
    auto ciMinor = capMinors.find(ciKey + "/access");
    if (giMinor == capMinors.end() || ciMinor == capMinors.end()) {
      return Error{"AutoDetect=nvml: no capability minor for MIG " + ciKey +
                   " in /proc/driver/nvidia-caps/mig-minors"};
    }
    FoundGpu found;
    found.gpu = parentGpu;
    found.gpu.isMig = true;
    found.gpu.uuid = uuid;
    found.gpu.type = migProfileType(parentGpu.type, attributes);
    found.gpu.files = {parentGpu.files.front(), "/dev/nvidia-caps/nvidia-cap" + std::to_string(giMinor->second),
                       "/dev/nvidia-caps/nvidia-cap" + std::to_string(ciMinor->second)};
    instances.push_back(std::move(found));
  }
  return instances;
}

}  // namespace

Result<BackendResult> detectNvml(const DetectOptions& options, const CpuTopology& topology) {
  BackendResult result;
  std::vector<std::string> names = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
  if (!options.nvmlLibrary.empty()) names = {options.nvmlLibrary};
  auto library = SharedLibrary::open(names);
  if (!library) {
    result.unavailable = true;
    result.note = "NVML not loadable: " + library.error();
    return result;
  }
  Nvml nvml;
  if (!nvml.bind(*library)) return Error{"AutoDetect=nvml: " + library->name() + " lacks required NVML functions"};
  if (auto rc = nvml.init(); rc != kNvmlSuccess) return nvmlError("nvmlInit_v2", rc);
  NvmlSession session{nvml};

  unsigned count = 0;
  if (auto rc = nvml.count(&count); rc != kNvmlSuccess) return nvmlError("nvmlDeviceGetCount_v2", rc);
  auto capMinors = readMigMinors(options.hostRoot);
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t device = nullptr;
    if (auto rc = nvml.handleByIndex(i, &device); rc != kNvmlSuccess) return nvmlError("nvmlDeviceGetHandleByIndex_v2", rc);
    char name[kNvmlDeviceNameBufferSize] = {};
    char uuid[kNvmlDeviceUuidBufferSize] = {};
    unsigned minor = 0;
    nvmlPciInfo_t pci{};
    if (auto rc = nvml.name(device, name, sizeof name); rc != kNvmlSuccess) return nvmlError("nvmlDeviceGetName", rc);
    if (auto rc = nvml.uuid(device, uuid, sizeof uuid); rc != kNvmlSuccess) return nvmlError("nvmlDeviceGetUUID", rc);
    if (auto rc = nvml.minor(device, &minor); rc != kNvmlSuccess) return nvmlError("nvmlDeviceGetMinorNumber", rc);
    if (auto rc = nvml.pciInfo(device, &pci); rc != kNvmlSuccess) return nvmlError("nvmlDeviceGetPciInfo_v3", rc);

    FoundGpu found;
    DetectedGpu& gpu = found.gpu;
    gpu.type = typeFromName(name);
    gpu.uuid = uuid;
    gpu.pciBusId = normalizeBusId(pci.busId);
    gpu.minor = static_cast<int>(minor);
    gpu.files = {"/dev/nvidia" + std::to_string(minor)};
    gpu.vendor = "nvidia";
    gpu.mechanism = "nvml";
    gpu.cores = coresOfCpus(topology, affinityCpus(nvml, device));

    unsigned current = 0, pending = 0;
    bool migEnabled = nvml.migMode && nvml.migMode(device, &current, &pending) == kNvmlSuccess &&
                      current == kNvmlMigEnabled;
    if (migEnabled) {
      auto instances = migInstances(nvml, device, gpu, capMinors);
      if (!instances) return Error{instances.error()};
      for (auto& instance : *instances) result.gpus.push_back(std::move(instance));
      continue;
    }
    found.linksKnown = true;
    readLinks(nvml, device, found);
    result.gpus.push_back(std::move(found));
  }
  return result;
}

}  // namespace gantry::detect
