#include "nodeagent/gres/shared_gres.h"

#include "nodeagent/detect/hardware.h"
#include "nodeagent/gres/gres_names.h"

namespace gantry::nodegres {
namespace {

bool sharesAnyFile(const std::vector<std::string>& files, const std::vector<std::string>& wanted) {
  return std::any_of(wanted.begin(), wanted.end(),
                     [&](const std::string& f) { return std::find(files.begin(), files.end(), f) != files.end(); });
}

void spreadOne(std::vector<GresRecord>& records, size_t gpuCount, const config::GresRecord& c,
               const std::string& nodeName, std::vector<std::string>& fatal) {
  std::vector<std::string> files = c.files;
  files.insert(files.end(), c.multipleFiles.begin(), c.multipleFiles.end());
  std::vector<size_t> targets;
  for (size_t i = 0; i < gpuCount; ++i) {
    const GresRecord& gpu = records[i];
    bool wanted = files.empty() ? detect::typeMatches(c.type, gpu.type) : sharesAnyFile(gpu.files, files);
    if (wanted && !gpu.files.empty()) targets.push_back(i);
  }
  if (targets.empty()) {
    std::string at = c.sourceFile + (c.sourceLine > 0 ? ":" + std::to_string(c.sourceLine) : "") + ": ";
    fatal.push_back(at + "Name=" + c.name + (c.type.empty() ? "" : " Type=" + c.type) +
                    ": no gpu with device files on node " + nodeName + " to share" +
                    (files.empty() ? "" : " (File=" + joinStrings(files) + ")"));
    return;
  }
  uint64_t total = c.effectiveCount();
  uint64_t each = total / targets.size(), extra = total % targets.size();
  for (size_t k = 0; k < targets.size(); ++k) {
    uint64_t count = each + (k < extra ? 1 : 0);
    // Copy what is needed: appending below may move the GPU record.
    GresRecord gpu = records[targets[k]];
    auto existing = std::find_if(records.begin() + gpuCount, records.end(), [&](const GresRecord& r) {
      return lowerCase(r.name) == lowerCase(c.name) && r.files == gpu.files;
    });
    if (existing != records.end()) {
      existing->count += count;
      continue;
    }
    GresRecord r;
    r.name = c.name;
    r.type = c.type.empty() ? gpu.type : c.type;
    r.files = gpu.files;
    r.cores = gpu.cores;
    r.count = count;
    r.pciBusId = gpu.pciBusId;
    r.isMig = gpu.isMig;
    r.flags = c.flagNames;
    r.sourceFile = c.sourceFile;
    r.sourceLine = c.sourceLine;
    records.push_back(std::move(r));
  }
}

}  // namespace

void spreadSharedGres(std::vector<GresRecord>& records, size_t gpuCount,
                      const std::vector<const config::GresRecord*>& sharedLines, const std::string& nodeName,
                      std::vector<std::string>& fatal) {
  for (const auto* line : sharedLines) spreadOne(records, gpuCount, *line, nodeName, fatal);
}

}  // namespace gantry::nodegres
