#include "common/config/gres_format.h"

#include <map>

#include "common/config/value_parse.h"

namespace gantry::config {
namespace {

std::string joinNumbers(const std::vector<uint32_t>& values) {
  std::vector<std::string> parts;
  for (auto v : values) parts.push_back(std::to_string(v));
  return join(parts, ",");
}

std::string joinLinks(const std::vector<int>& values) {
  std::vector<std::string> parts;
  for (auto v : values) parts.push_back(std::to_string(v));
  return join(parts, ",");
}

bool isShared(const std::string& name) { return iequals(name, "mps") || iequals(name, "shard"); }

std::string properties(const GresRecord& r) {
  std::string out;
  if (!r.cores.empty()) out += " Cores=" + formatIntRanges(r.cores);
  if (!r.links.empty()) out += " Links=" + joinLinks(r.links);
  if (!r.flagNames.empty()) out += " Flags=" + join(r.flagNames, ",");
  if (!r.chunkSizes.empty()) out += " ChunkSizes=" + joinNumbers(r.chunkSizes);
  if (!r.chunkOrder.empty()) out += " ChunkOrder=" + joinNumbers(r.chunkOrder);
  if (!r.dmemRegion.empty()) out += " DmemRegion=" + r.dmemRegion;
  return out;
}

}  // namespace

std::string formatGresRecords(const GresConf& conf) {
  std::string out;
  std::map<std::string, int> nextIndex;
  for (const auto& r : conf.records) {
    std::string head = "Gres Name=" + r.name + (r.type.empty() ? "" : " Type=" + r.type);
    int& index = nextIndex[toLower(r.name)];
    if (!r.files.empty() && !isShared(r.name)) {
      for (const auto& file : r.files) {
        out += head + " Count=1 Index=" + std::to_string(index++) + " File=" + file + properties(r) + "\n";
      }
    } else if (!r.multipleFiles.empty()) {
      out += head + " Count=1 Index=" + std::to_string(index++) + " MultipleFiles=" + join(r.multipleFiles, ",") +
             properties(r) + "\n";
    } else {
      std::string files = r.files.empty() ? "" : " File=" + join(r.files, ",");
      out += head + " Count=" + std::to_string(r.effectiveCount()) + files + properties(r) + "\n";
    }
  }
  return out;
}

}  // namespace gantry::config
