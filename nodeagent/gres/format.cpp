#include "nodeagent/gres/format.h"

#include <algorithm>
#include <map>
#include <type_traits>

#include "nodeagent/detect/host_files.h"

namespace gantry::nodegres {
namespace {

template <typename T>
std::string joinList(const std::vector<T>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ',';
    if constexpr (std::is_same_v<T, std::string>) {
      out += item;
    } else {
      out += std::to_string(item);
    }
  }
  return out;
}

}  // namespace

std::string formatDetectedGres(const std::vector<detect::DetectedGpu>& gpus) {
  std::vector<std::pair<std::string, int>> counts;
  for (const auto& gpu : gpus) {
    std::string key = gpu.name + ":" + gpu.type;
    if (!counts.empty() && counts.back().first == key) {
      ++counts.back().second;
      continue;
    }
    bool found = false;
    for (auto& c : counts) {
      if (c.first == key) {
        ++c.second;
        found = true;
      }
    }
    if (!found) counts.emplace_back(key, 1);
  }
  std::string out;
  for (const auto& [key, count] : counts) out += (out.empty() ? "" : ",") + key + ":" + std::to_string(count);
  return out;
}

std::string formatNodeLine(const std::string& nodeName, const detect::CpuTopology& topology,
                           const std::vector<detect::DetectedGpu>& gpus) {
  std::string line = "NodeName=" + nodeName + " CPUs=" + std::to_string(topology.cpus) +
                     " Boards=" + std::to_string(topology.boards) +
                     " SocketsPerBoard=" + std::to_string(topology.sockets / std::max(1, topology.boards)) +
                     " CoresPerSocket=" + std::to_string(topology.coresPerSocket) +
                     " ThreadsPerCore=" + std::to_string(topology.threadsPerCore) +
                     " RealMemory=" + std::to_string(topology.realMemoryMb);
  if (!topology.socketParameter.empty()) line += " Parameters=" + topology.socketParameter;
  if (!gpus.empty()) line += " Gres=" + formatDetectedGres(gpus);
  return line;
}

std::string formatRecords(const std::vector<GresRecord>& records) {
  std::string out;
  std::map<std::string, int> nextIndex;
  for (const auto& r : records) {
    std::string line = "Name=" + r.name;
    if (!r.type.empty()) line += " Type=" + r.type;
    line += " Count=" + std::to_string(r.count);
    if (!r.files.empty()) {
      line += " Index=" + std::to_string(nextIndex[r.name]++);
      line += (r.files.size() == 1 ? " File=" : " MultipleFiles=") + joinList(r.files);
    }
    if (!r.cores.empty()) line += " Cores=" + detect::formatIdList(r.cores);
    if (!r.links.empty()) line += " Links=" + joinList(r.links);
    if (!r.uuid.empty()) line += " UUID=" + r.uuid;
    if (!r.flags.empty()) line += " Flags=" + joinList(r.flags);
    if (!r.chunkSizes.empty()) line += " ChunkSizes=" + joinList(r.chunkSizes);
    if (!r.chunkOrder.empty()) line += " ChunkOrder=" + joinList(r.chunkOrder);
    if (r.dmemSliceBytes > 0) {
      line += " DmemRegion=" + r.dmemRegion + " DmemSlice=" + std::to_string(r.dmemSliceBytes / (1024 * 1024)) + "MiB";
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace gantry::nodegres
