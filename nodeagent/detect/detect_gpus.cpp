// detectGpus(): runs the AutoDetect mechanism(s), puts the GPUs in PCI bus
// order and turns link endpoints into per-device link counts.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "nodeagent/detect/backends.h"

namespace gantry::detect {

std::string typeFromName(const std::string& name) {
  std::string type;
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    type += std::isspace(u) ? '_' : static_cast<char>(std::tolower(u));
  }
  return type;
}

bool typeMatches(const std::string& configuredType, const std::string& detectedType) {
  if (configuredType.empty()) return true;
  std::string wanted = typeFromName(configuredType);
  return typeFromName(detectedType).find(wanted) != std::string::npos;
}

namespace {

using Backend = Result<BackendResult> (*)(const DetectOptions&, const CpuTopology&);

std::optional<Backend> backendFor(const std::string& mechanism) {
  if (mechanism == "nvidia") return detectNvidiaProcfs;
  if (mechanism == "nvml") return detectNvml;
  if (mechanism == "amd") return detectAmdSysfs;
  if (mechanism == "rsmi") return detectRsmi;
  if (mechanism == "nrt") return detectNeuronSysfs;
  return std::nullopt;
}

// MIG instances keep their parent's bus id; the stable sort keeps them in
// NVML's order behind one another.
void sortByBusId(std::vector<FoundGpu>& gpus) {
  std::stable_sort(gpus.begin(), gpus.end(),
                   [](const FoundGpu& a, const FoundGpu& b) { return a.gpu.pciBusId < b.gpu.pciBusId; });
}

// Links count physical links between two GPUs. Through an NVSwitch fabric
// every GPU reaches every other one over all its switch links, so a pair on
// the fabric gets the smaller of their switch link counts.
void resolveLinks(std::vector<FoundGpu>& gpus) {
  std::map<std::string, size_t> indexOfBus;
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (!gpus[i].gpu.isMig) indexOfBus.emplace(gpus[i].gpu.pciBusId, i);
  }
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (!gpus[i].linksKnown) continue;
    std::vector<int> links(gpus.size(), 0);
    links[i] = -1;
    for (const auto& peer : gpus[i].linkPeers) {
      auto j = indexOfBus.find(peer);
      if (j != indexOfBus.end() && j->second != i) ++links[j->second];
    }
    for (size_t j = 0; j < gpus.size(); ++j) {
      if (j != i && gpus[i].switchLinks > 0 && gpus[j].switchLinks > 0) {
        links[j] += std::min(gpus[i].switchLinks, gpus[j].switchLinks);
      }
    }
    gpus[i].gpu.links = std::move(links);
  }
}

void logFound(const std::vector<DetectedGpu>& gpus, std::vector<std::string>* log) {
  if (!log) return;
  std::vector<std::pair<std::string, int>> counts;  // per type, in device order
  std::map<std::string, std::string> mechanismOf;
  for (const auto& gpu : gpus) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == gpu.type; });
    if (it == counts.end()) {
      counts.emplace_back(gpu.type, 1);
      mechanismOf[gpu.type] = gpu.mechanism;
    } else {
      ++it->second;
    }
  }
  for (const auto& [type, count] : counts) {
    log->push_back("Found gpu:" + type + ":" + std::to_string(count) + " with Autodetect=" + mechanismOf[type] +
                   " (Substring of gpu name may be used instead)");
  }
}

Result<std::vector<FoundGpu>> runMechanisms(const DetectOptions& options, const CpuTopology& topology,
                                            std::vector<std::string>* log) {
  const std::string& mechanism = options.autoDetect;
  if (mechanism.empty() || mechanism == "off") return std::vector<FoundGpu>{};
  if (mechanism == "oneapi") {
    return Error{"AutoDetect=oneapi: not available in this build (supported: nvml, nvidia, rsmi, amd, nrt, full, off)"};
  }
  if (mechanism == "full") {
    // Library mechanisms first (they see MIG and links), then the driver-only
    // ones; the first that finds a device wins. A mechanism that cannot run
    // here (no library, or a library that fails to start, like ROCm SMI on
    // a node without amdgpu) is logged and skipped, so it never hides the
    // devices another one can see.
    for (const char* name : {"nvml", "rsmi", "nvidia", "amd", "nrt"}) {
      auto found = (*backendFor(name))(options, topology);
      if (!found) {
        if (log) log->push_back("AutoDetect=full: skipping " + std::string(name) + ": " + found.error());
        continue;
      }
      if (found->unavailable) {
        if (log) log->push_back("AutoDetect=full: skipping " + std::string(name) + ": " + found->note);
        continue;
      }
      if (!found->gpus.empty()) return std::move(found->gpus);
    }
    return std::vector<FoundGpu>{};
  }
  auto backend = backendFor(mechanism);
  if (!backend) {
    return Error{"AutoDetect=" + mechanism + ": unknown mechanism (expected off, nvml, nvidia, rsmi, amd, oneapi, nrt or full)"};
  }
  auto found = (*backend)(options, topology);
  if (!found) return Error{found.error()};
  if (found->unavailable) {
    if (mechanism == "nvml" || mechanism == "rsmi") return Error{"AutoDetect=" + mechanism + ": " + found->note};
    if (log) log->push_back("AutoDetect=" + mechanism + ": " + found->note + "; no GPUs detected");
  }
  return std::move(found->gpus);
}

}  // namespace

Result<std::vector<DetectedGpu>> detectGpus(const DetectOptions& options, const CpuTopology& topology,
                                            std::vector<std::string>* log) {
  auto found = runMechanisms(options, topology, log);
  if (!found) return Error{found.error()};
  sortByBusId(*found);
  resolveLinks(*found);
  std::vector<DetectedGpu> gpus;
  for (auto& f : *found) gpus.push_back(std::move(f.gpu));
  logFound(gpus, log);
  return gpus;
}

Result<std::vector<DetectedGpu>> detectGpus(const DetectOptions& options, std::vector<std::string>* log) {
  auto topology = detectCpus(options);
  if (!topology) return Error{topology.error()};
  return detectGpus(options, *topology, log);
}

}  // namespace gantry::detect
