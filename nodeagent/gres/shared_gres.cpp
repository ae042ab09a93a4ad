#include "nodeagent/gres/shared_gres.h"

#include <set>

#include "nodeagent/detect/hardware.h"
#include "nodeagent/gres/gres_names.h"

namespace gantry::nodegres {
namespace {

std::vector<std::string> deviceFilesOf(const config::GresRecord& c) {
  std::vector<std::string> files = c.files;
  files.insert(files.end(), c.multipleFiles.begin(), c.multipleFiles.end());
  return files;
}

bool sharesAnyFile(const std::vector<std::string>& files, const std::vector<std::string>& wanted) {
  return std::any_of(wanted.begin(), wanted.end(),
                     [&](const std::string& f) { return std::find(files.begin(), files.end(), f) != files.end(); });
}

// The per-type form: a Type and a Count but no device file.
bool isPerTypeLine(const config::GresRecord& c) { return !c.type.empty() && deviceFilesOf(c).empty(); }

bool lineReaches(const config::GresRecord& c, const GresRecord& gpu) {
  if (gpu.files.empty()) return false;  // shares need a device to point at
  std::vector<std::string> files = deviceFilesOf(c);
  if (!files.empty()) return sharesAnyFile(gpu.files, files);
  return detect::typeMatches(c.type, gpu.type) ||
         (!gpu.detectedType.empty() && detect::typeMatches(c.type, gpu.detectedType));
}

void reportUnreached(const config::GresRecord& c, const std::string& nodeName, std::vector<std::string>& fatal) {
  std::vector<std::string> files = deviceFilesOf(c);
  std::string at = c.sourceFile + (c.sourceLine > 0 ? ":" + std::to_string(c.sourceLine) : "") + ": ";
  fatal.push_back(at + "Name=" + c.name + (c.type.empty() ? "" : " Type=" + c.type) +
                  ": no gpu with device files on node " + nodeName + " to share" +
                  (files.empty() ? "" : " (File=" + joinStrings(files) + ")"));
}

// Adds `count` shares of `c` to GPU `gpuIndex`: on the GPU's record of that
// shared name when one exists, else on a new record. The shared record takes
// the GPU's type, files and cores (gres.conf's Type and Cores on shard/mps
// lines only select GPUs); ChunkSizes is carried so the controller can
// refuse it on shared GRES.
void addShares(std::vector<GresRecord>& records, size_t gpuCount, size_t gpuIndex, const config::GresRecord& c,
               uint64_t count) {
  // Copy what is needed: appending below may move the GPU record.
  GresRecord gpu = records[gpuIndex];
  auto existing = std::find_if(records.begin() + gpuCount, records.end(), [&](const GresRecord& r) {
    return lowerCase(r.name) == lowerCase(c.name) && r.files == gpu.files;
  });
  if (existing != records.end()) {
    existing->count += count;
    return;
  }
  GresRecord r;
  r.name = c.name;
  r.type = gpu.type;
  r.files = gpu.files;
  r.cores = gpu.cores;
  r.count = count;
  r.pciBusId = gpu.pciBusId;
  r.isMig = gpu.isMig;
  r.flags = c.flagNames;
  r.chunkSizes = {c.chunkSizes.begin(), c.chunkSizes.end()};
  r.chunkOrder = {c.chunkOrder.begin(), c.chunkOrder.end()};
  r.sourceFile = c.sourceFile;
  r.sourceLine = c.sourceLine;
  records.push_back(std::move(r));
}

// File lines and node totals: the Count is split evenly over the GPUs the
// line reaches (one GPU per File entry gets it whole).
void spreadOver(std::vector<GresRecord>& records, size_t gpuCount, const config::GresRecord& c,
                const std::string& nodeName, std::vector<std::string>& fatal) {
  std::vector<size_t> targets;
  for (size_t i = 0; i < gpuCount; ++i)
    if (lineReaches(c, records[i])) targets.push_back(i);
  if (targets.empty()) return reportUnreached(c, nodeName, fatal);
  uint64_t total = c.effectiveCount();
  uint64_t each = total / targets.size(), extra = total % targets.size();
  for (size_t k = 0; k < targets.size(); ++k) addShares(records, gpuCount, targets[k], c, each + (k < extra ? 1 : 0));
}

// The per-type lines of one shared name: each GPU gets the Count of the
// matching line with the longest Type (the first such line on a tie).
void giveCountPerType(std::vector<GresRecord>& records, size_t gpuCount,
                      const std::vector<const config::GresRecord*>& lines, const std::string& nodeName,
                      std::vector<std::string>& fatal) {
  std::set<const config::GresRecord*> matchedSomeGpu;
  for (size_t i = 0; i < gpuCount; ++i) {
    const config::GresRecord* best = nullptr;
    for (const auto* line : lines) {
      if (!lineReaches(*line, records[i])) continue;
      matchedSomeGpu.insert(line);
      if (!best || detect::typeFromName(line->type).size() > detect::typeFromName(best->type).size()) best = line;
    }
    if (best) addShares(records, gpuCount, i, *best, best->effectiveCount());
  }
  for (const auto* line : lines)
    if (!matchedSomeGpu.count(line)) reportUnreached(*line, nodeName, fatal);
}

}  // namespace

void spreadSharedGres(std::vector<GresRecord>& records, size_t gpuCount,
                      const std::vector<const config::GresRecord*>& confLines,
                      const std::vector<const config::GresRecord*>& nodeTotals, const std::string& nodeName,
                      std::vector<std::string>& fatal) {
  std::vector<std::string> perTypeNames;
  for (const auto* line : confLines) {
    if (!isPerTypeLine(*line)) {
      spreadOver(records, gpuCount, *line, nodeName, fatal);
    } else if (std::find(perTypeNames.begin(), perTypeNames.end(), lowerCase(line->name)) == perTypeNames.end()) {
      perTypeNames.push_back(lowerCase(line->name));
    }
  }
  for (const auto& name : perTypeNames) {
    std::vector<const config::GresRecord*> lines;
    for (const auto* line : confLines)
      if (isPerTypeLine(*line) && lowerCase(line->name) == name) lines.push_back(line);
    giveCountPerType(records, gpuCount, lines, nodeName, fatal);
  }
  for (const auto* total : nodeTotals) spreadOver(records, gpuCount, *total, nodeName, fatal);
}

}  // namespace gantry::nodegres
