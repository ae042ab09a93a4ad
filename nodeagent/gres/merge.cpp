#include "nodeagent/gres/merge.h"

#include <algorithm>
#include <optional>
#include <set>

#include "nodeagent/detect/host_files.h"
#include "nodeagent/gres/accounting.h"
#include "nodeagent/gres/gres_names.h"
#include "nodeagent/gres/shard_memory.h"
#include "nodeagent/gres/shared_gres.h"
#include "nodeagent/gres/socket_alignment.h"

namespace gantry::nodegres {
namespace {

std::string where(const config::GresRecord& c) {
  return c.sourceFile + ":" + std::to_string(c.sourceLine) + ": ";
}

std::vector<int> toInts(const std::vector<uint32_t>& values) { return {values.begin(), values.end()}; }

// A GPU on its way into the final list.
struct GpuDevice {
  GresRecord record;
  int detectedIndex = -1;           // position in MergeInput::detected, -1 if configured only
  bool linksFromDetection = false;
  const config::GresRecord* source = nullptr;
};

void applyConfigLine(GresRecord& record, const config::GresRecord& c) {
  record.flags = c.flagNames;
  record.chunkSizes = toInts(c.chunkSizes);
  record.chunkOrder = toInts(c.chunkOrder);
  record.sourceFile = c.sourceFile;
  record.sourceLine = c.sourceLine;
}

GpuDevice fromDetected(const detect::DetectedGpu& d, int index) {
  GpuDevice dev;
  dev.detectedIndex = index;
  dev.record.name = "gpu";
  dev.record.type = d.type;
  dev.record.detectedType = d.type;
  dev.record.files = d.files;
  dev.record.cores = d.cores;
  dev.record.uuid = d.uuid;
  dev.record.pciBusId = d.pciBusId;
  dev.record.autodetected = true;
  dev.record.isMig = d.isMig;
  dev.record.dmemRegion = d.dmemRegion;
  dev.record.dmemCapacityBytes = d.dmemCapacityBytes;
  dev.linksFromDetection = !d.links.empty();
  return dev;
}

// The gantry.conf Gres type an autodetected name stands for: the longest
// configured type that is a substring of it, so slurm.conf-style short names
// (rtx_5090) match the detected ones (nvidia_geforce_rtx_5090).
std::string configuredTypeFor(const std::string& detectedType, const std::vector<config::GresCount>& nodeGres) {
  std::string best;
  for (const auto& g : nodeGres) {
    if (isGpuName(g.name) && !g.type.empty() && detect::typeMatches(g.type, detectedType) && g.type.size() > best.size()) {
      best = g.type;
    }
  }
  return best.empty() ? detectedType : best;
}

bool sharesFile(const std::vector<std::string>& files, const std::vector<std::string>& wanted) {
  return std::any_of(wanted.begin(), wanted.end(),
                     [&](const std::string& f) { return std::find(files.begin(), files.end(), f) != files.end(); });
}

class Merger {
 public:
  explicit Merger(const MergeInput& input) : in_(input) {
    if (input.gresConf && input.gresConf->present) {
      for (const auto& r : input.gresConf->records) conf_.push_back(&r);
    }
  }

  Result<MergeResult> run() {
    mergeGpus();
    addOtherGres();
    addCountOnlyFromNodeConf();
    addShared();
    checkSockets();
    if (in_.dmem.constrainDeviceMemory) {
      assignShardMemory(out_, in_.dmem, gpuSources_, fatal_);
    }
    checkAccounting();
    if (!fatal_.empty()) return Error{joinStrings(fatal_, "\n")};
    return std::move(out_);
  }

 private:
  // --- gpus -------------------------------------------------------------

  void mergeGpus() {
    const auto& detected = in_.detected;
    std::vector<std::optional<GpuDevice>> fromDetection(detected.size());
    std::vector<bool> omitted(detected.size(), false);
    std::vector<GpuDevice> configuredOnly;
    std::vector<const config::GresRecord*> flagCarriers;

    for (const config::GresRecord* c : conf_) {
      if (!isGpuName(c->name)) continue;
      std::vector<std::vector<std::string>> devices;
      for (const auto& f : c->files) devices.push_back({f});
      if (!c->multipleFiles.empty()) devices.push_back(c->multipleFiles);
      if (devices.empty()) {
        if (!detected.empty()) {
          flagCarriers.push_back(c);  // e.g. "Name=gpu Type=x Count=8 Flags=env_uuid" with AutoDetect
        } else {
          GpuDevice dev;
          dev.record.name = c->name;
          dev.record.type = c->type;
          dev.record.count = c->effectiveCount();
          dev.record.cores = c->cores;
          applyConfigLine(dev.record, *c);
          dev.source = c;
          configuredOnly.push_back(std::move(dev));
        }
        continue;
      }
      for (auto& files : devices) {
        int match = findDetected(files, c->type, fromDetection, omitted);
        if (match < 0) {
          configuredOnly.push_back(configuredDevice(*c, files));
          continue;
        }
        const auto& d = detected[match];
        if (auto mismatch = describeMismatch(*c, d); !mismatch.empty()) {
          omitted[match] = true;
          out_.omitted.push_back(fromDetected(d, match).record);
          out_.errors.push_back(where(*c) + "gres/gpu: detected GPU " + d.pciBusId + " (" + joinStrings(d.files) +
                                ") " + mismatch + "; the GPU is omitted from node " + in_.nodeName);
          continue;
        }
        GpuDevice dev = fromDetected(d, match);
        if (!c->type.empty()) dev.record.type = c->type;
        applyConfigLine(dev.record, *c);
        dev.source = c;
        fromDetection[match] = std::move(dev);
      }
    }

    std::vector<GpuDevice> gpus;
    for (size_t i = 0; i < detected.size(); ++i) {
      if (omitted[i]) continue;
      if (!fromDetection[i]) {
        GpuDevice dev = fromDetected(detected[i], static_cast<int>(i));
        dev.record.type = configuredTypeFor(dev.record.type, in_.nodeGres);
        fromDetection[i] = std::move(dev);
      }
      gpus.push_back(std::move(*fromDetection[i]));
    }
    applyFlagCarriers(gpus, flagCarriers);
    for (auto& dev : configuredOnly) gpus.push_back(std::move(dev));
    fillLinks(gpus);
    for (auto& dev : gpus) {
      gpuSources_.push_back(dev.source);
      out_.records.push_back(std::move(dev.record));
    }
  }

  int findDetected(const std::vector<std::string>& files, const std::string& type,
                   const std::vector<std::optional<GpuDevice>>& taken, const std::vector<bool>& omitted) const {
    for (size_t i = 0; i < in_.detected.size(); ++i) {
      const auto& d = in_.detected[i];
      if (taken[i] || omitted[i] || !sharesFile(d.files, files)) continue;
      if (detect::typeMatches(type, d.type)) return static_cast<int>(i);
    }
    return -1;
  }

  GpuDevice configuredDevice(const config::GresRecord& c, const std::vector<std::string>& files) const {
    GpuDevice dev;
    dev.record.name = c.name;
    dev.record.type = c.type;
    dev.record.files = files;
    dev.record.cores = c.cores;
    dev.record.links = c.links;
    applyConfigLine(dev.record, c);
    dev.source = &c;
    if (auto bus = detect::busIdOfDeviceFile(in_.dmem.hostRoot, files.front())) dev.record.pciBusId = *bus;
    return dev;
  }

  // What gres.conf says that the detected GPU contradicts ("" if nothing):
  // Cores, Links (not on chunked lines) or UUID.
  // MIG instances are not double-checked.
  static std::string describeMismatch(const config::GresRecord& c, const detect::DetectedGpu& d) {
    if (d.isMig) return "";
    if (!c.cores.empty() && c.cores != d.cores) {
      return "has Cores=" + detect::formatIdList(d.cores) + " but gres.conf says Cores=" + detect::formatIdList(c.cores);
    }
    if (!c.links.empty() && c.chunkSizes.empty() && !d.links.empty() && c.links != d.links) {
      return "has Links=" + joinInts(d.links) + " but gres.conf says Links=" + joinInts(c.links);
    }
    if (!c.uuid.empty() && !d.uuid.empty() && lowerCase(c.uuid) != lowerCase(d.uuid)) {
      return "has UUID=" + d.uuid + " but gres.conf says UUID=" + c.uuid;
    }
    return "";
  }

  // File-less gpu lines under AutoDetect lend their Flags to detected GPUs of
  // their Type, up to their Count.
  static void applyFlagCarriers(std::vector<GpuDevice>& gpus, const std::vector<const config::GresRecord*>& carriers) {
    std::vector<bool> served(gpus.size(), false);
    for (const auto* c : carriers) {
      uint64_t left = c->count.value_or(gpus.size());
      for (size_t i = 0; i < gpus.size() && left > 0; ++i) {
        if (served[i] || !detect::typeMatches(c->type, gpus[i].record.type)) continue;
        served[i] = true;
        --left;
        for (const auto& flag : c->flagNames) {
          auto& flags = gpus[i].record.flags;
          if (std::find(flags.begin(), flags.end(), flag) == flags.end()) flags.push_back(flag);
        }
        if (!gpus[i].source) gpus[i].source = c;
      }
    }
  }

  // Detected link counts are indexed by detection order; re-index them by the
  // final device order. Chunked devices carry no links.
  void fillLinks(std::vector<GpuDevice>& gpus) {
    std::set<std::string> warnedLines;
    for (size_t p = 0; p < gpus.size(); ++p) {
      GpuDevice& dev = gpus[p];
      if (!dev.record.chunkSizes.empty()) {
        bool detectedLinks = dev.linksFromDetection && dev.source && dev.source->links.empty();
        if (detectedLinks) {
          std::string key = dev.record.sourceFile + ":" + std::to_string(dev.record.sourceLine);
          if (warnedLines.insert(key).second) {
            out_.warnings.push_back(key + ": Links found by AutoDetect are ignored for Name=" + dev.record.name +
                                    (dev.record.type.empty() ? "" : " Type=" + dev.record.type) +
                                    " because it sets ChunkSizes");
          }
        }
        dev.record.links.clear();
        continue;
      }
      if (dev.detectedIndex < 0 || !dev.linksFromDetection) continue;
      if (dev.source && !dev.source->links.empty()) {
        dev.record.links = dev.source->links;
        continue;
      }
      const auto& detectedLinks = in_.detected[dev.detectedIndex].links;
      std::vector<int> links(gpus.size(), 0);
      for (size_t q = 0; q < gpus.size(); ++q) {
        int k = gpus[q].detectedIndex;
        if (q == p) links[q] = -1;
        else if (k >= 0 && k < static_cast<int>(detectedLinks.size())) links[q] = detectedLinks[k];
      }
      dev.record.links = std::move(links);
    }
  }

  // --- other gres ---------------------------------------------------------

  void addOtherGres() {
    for (const config::GresRecord* c : conf_) {
      if (isGpuName(c->name) || isSharedName(c->name)) continue;
      auto base = [&] {
        GresRecord r;
        r.name = c->name;
        r.type = c->type;
        r.cores = c->cores;
        r.links = c->links;
        applyConfigLine(r, *c);
        return r;
      };
      if (!c->files.empty()) {
        for (const auto& f : c->files) {
          GresRecord r = base();
          r.files = {f};
          out_.records.push_back(std::move(r));
        }
      } else {
        GresRecord r = base();
        r.files = c->multipleFiles;
        r.count = c->effectiveCount();
        out_.records.push_back(std::move(r));
      }
    }
  }

  bool hasRecordsNamed(const std::string& name) const {
    std::string wanted = lowerCase(name);
    return std::any_of(out_.records.begin(), out_.records.end(), [&](const GresRecord& r) { return lowerCase(r.name) == wanted; }) ||
           std::any_of(conf_.begin(), conf_.end(), [&](const config::GresRecord* c) { return lowerCase(c->name) == wanted; });
  }

  // gantry.conf names a GRES gres.conf does not describe: count-only records,
  // as there are no device files to tell the devices apart.
  void addCountOnlyFromNodeConf() {
    for (const auto& g : in_.nodeGres) {
      if (isSharedName(g.name) || hasRecordsNamed(g.name)) continue;
      GresRecord r;
      r.name = g.name;
      r.type = g.type;
      r.count = g.count;
      out_.records.push_back(std::move(r));
    }
  }

  // --- shared gres (shard, mps) ------------------------------------------

  // gres.conf lines for shard/mps, plus gantry.conf Gres= entries of shared
  // names that gres.conf does not describe at all.
  void addShared() {
    for (const auto& g : in_.nodeGres) {
      if (!isSharedName(g.name)) continue;
      bool described = std::any_of(conf_.begin(), conf_.end(), [&](const config::GresRecord* c) {
        return lowerCase(c->name) == lowerCase(g.name);
      });
      if (described) continue;
      config::GresRecord c;
      c.name = g.name;
      c.type = g.type;
      c.count = g.count;
      c.sourceFile = "gantry.conf";
      sharedFromNodeConf_.push_back(c);
    }
    std::vector<const config::GresRecord*> shared, nodeTotals;
    for (const auto* c : conf_) {
      if (isSharedName(c->name)) shared.push_back(c);
    }
    for (const auto& c : sharedFromNodeConf_) nodeTotals.push_back(&c);
    spreadSharedGres(out_.records, gpuSources_.size(), shared, nodeTotals, in_.nodeName, fatal_);
  }

  // --- checks -------------------------------------------------------------

  void checkSockets() {
    std::set<std::string> reported;
    for (size_t i = 0; i < out_.records.size(); ++i) {
      const GresRecord& r = out_.records[i];
      if (isSharedName(r.name) || r.cores.empty()) continue;
      bool autodetected = r.autodetected && i < gpuSources_.size() &&
                          !(gpuSources_[i] && !gpuSources_[i]->cores.empty());
      CoreCheckSubject subject{r.name, in_.nodeName, autodetected,
                               r.sourceLine > 0 && !autodetected ? r.sourceFile + ":" + std::to_string(r.sourceLine) + ": " : ""};
      // Configured Cores= follow the configured topology under
      // config_overrides; detected affinity is the machine's own.
      const detect::CpuTopology& topology =
          !autodetected && in_.configuredTopology ? *in_.configuredTopology : in_.topology;
      auto status = checkCoresAlignWithSockets(r.cores, topology, subject);
      if (!status && reported.insert(status.error()).second) fatal_.push_back(status.error());
    }
  }

  // Every autodetected GPU must be accounted for by gantry.conf's Gres=.
  void checkAccounting() {
    if (in_.detected.empty()) return;
    std::vector<GresRecord> gpus(out_.records.begin(), out_.records.begin() + gpuSources_.size());
    out_.drainReason = unaccountedGpusReason(gpus, in_.nodeGres, in_.nodeName);
  }

  const MergeInput& in_;
  std::vector<const config::GresRecord*> conf_;
  // gres.conf line of each GPU record (null for pure autodetect); the GPU
  // records are the first gpuSources_.size() records of out_.
  std::vector<const config::GresRecord*> gpuSources_;
  std::vector<config::GresRecord> sharedFromNodeConf_;  // filled once, then pointed to
  MergeResult out_;
  std::vector<std::string> fatal_;
};

}  // namespace

Result<MergeResult> mergeGres(const MergeInput& input) { return Merger(input).run(); }

}  // namespace gantry::nodegres
