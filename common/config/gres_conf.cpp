#include "common/config/gres_conf.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/config/inert_keys.h"
#include "common/config/value_parse.h"
#include "common/hostlist/hostlist.h"

namespace gantry::config {
namespace {

std::optional<AutoDetect> parseAutoDetect(std::string_view text) {
  static const std::pair<std::string_view, AutoDetect> kModes[] = {
      {"off", AutoDetect::Off}, {"nvml", AutoDetect::Nvml},     {"nvidia", AutoDetect::Nvidia},
      {"rsmi", AutoDetect::Rsmi}, {"amd", AutoDetect::Amd},     {"nrt", AutoDetect::Nrt},
      {"oneapi", AutoDetect::OneApi}, {"full", AutoDetect::Full}};
  for (const auto& [name, mode] : kModes) {
    if (iequals(name, text)) return mode;
  }
  return std::nullopt;
}

// Returns false for an unknown flag.
bool applyFlag(const std::string& flag, GresFlags& flags) {
  std::string f = toLower(flag);
  if (f == "countonly") flags.countOnly = true;
  else if (f == "explicit") flags.explicit_ = true;
  else if (f == "env_uuid") flags.envUuid = true;
  else if (f == "one_sharing") flags.oneSharing = true;
  else if (f == "all_sharing") flags.allSharing = true;
  else if (f == "nvidia_gpu_env") flags.nvidiaGpuEnv = true;
  else if (f == "amd_gpu_env") flags.amdGpuEnv = true;
  else if (f == "intel_gpu_env") flags.intelGpuEnv = true;
  else if (f == "opencl_env") flags.openclEnv = true;
  else if (f == "no_gpu_env") flags.noGpuEnv = true;
  else return false;
  return true;
}

bool isSharedName(std::string_view name) { return iequals(name, "mps") || iequals(name, "shard"); }

Result<std::vector<uint32_t>> parseUintList(std::string_view text, std::string_view what) {
  std::vector<uint32_t> values;
  std::vector<std::string> items = splitList(text);
  const std::string rule = "does not parse (expected a comma-separated list of " + std::string(what) + ")";
  if (items.empty()) return Error{rule};
  std::size_t commas = static_cast<std::size_t>(std::count(text.begin(), text.end(), ','));
  if (commas + 1 != items.size()) return Error{rule};
  for (const auto& item : items) {
    auto value = parseUint(item, UINT32_MAX);
    if (!value) return Error{rule};
    values.push_back(static_cast<uint32_t>(value.value()));
  }
  return values;
}

class LineParser {
 public:
  LineParser(const ConfLine& line, Diagnostics& diag) : line_(line), diag_(diag) {}

  GresLine parse() {
    GresLine out;
    GresRecord& r = out.record;
    r.sourceFile = line_.file;
    r.sourceLine = line_.line;
    bool hasFile = false, hasCount = false;
    for (const auto& pair : line_.pairs) {
      std::string key = toLower(pair.key);
      if (key == "nodename") {
        out.hasNodeName = true;
        auto nodes = hostlist::expand(pair.value);
        if (!nodes) fail(pair, nodes.error());
        else {
          out.nodes = std::move(nodes.value());
          out.nodeSet.insert(out.nodes.begin(), out.nodes.end());
        }
      } else if (key == "autodetect") {
        r.autoDetect = parseAutoDetect(pair.value);
        if (!r.autoDetect) fail(pair, "expected nvml, nvidia, rsmi, amd, nrt, oneapi, full or off");
      } else if (key == "name") {
        r.name = pair.value;
        out.definesGres = true;
        if (r.name.empty()) fail(pair, "the GRES name is empty");
      } else if (key == "type") {
        r.type = pair.value;
      } else if (key == "file") {
        hasFile = true;
        auto files = hostlist::expand(pair.value);
        if (!files) fail(pair, files.error());
        else if (files->size() > kMaxChunkDevices * 64) fail(pair, "names too many device files");
        else r.files = std::move(files.value());
      } else if (key == "multiplefiles") {
        auto files = hostlist::expand(pair.value);
        if (!files) fail(pair, files.error());
        else if (files->size() > kMaxChunkDevices * 64) fail(pair, "names too many device files");
        else r.multipleFiles = std::move(files.value());
      } else if (key == "cores" || key == "cpus") {
        auto cores = parseIntRanges(pair.value);
        if (!cores) fail(pair, cores.error());
        else r.cores = std::move(cores.value());
      } else if (key == "links") {
        parseLinks(pair, r);
      } else if (key == "count") {
        hasCount = true;
        auto count = parseCount(pair.value);
        if (!count) fail(pair, count.error());
        else r.count = count.value();
      } else if (key == "flags") {
        r.flagNames = splitList(pair.value);
        for (const auto& flag : r.flagNames) {
          if (!applyFlag(flag, r.flags)) {
            fail(pair, "unknown flag \"" + flag +
                           "\" (expected CountOnly, explicit, env_uuid, one_sharing, all_sharing, nvidia_gpu_env, "
                           "amd_gpu_env, intel_gpu_env, opencl_env or no_gpu_env)");
          }
        }
      } else if (key == "chunksizes") {
        auto sizes = parseChunkSizes(pair.value);
        if (!sizes) fail(pair, sizes.error());
        else r.chunkSizes = std::move(sizes.value());
        chunkSizesWritten_ = true;
      } else if (key == "chunkorder") {
        auto order = parseChunkOrder(pair.value);
        if (!order) fail(pair, order.error());
        else r.chunkOrder = std::move(order.value());
        chunkOrderWritten_ = true;
      } else if (key == "uuid") {
        if (pair.value.empty()) fail(pair, "expected the UUID of the device named by File");
        r.uuid = pair.value;
      } else if (key == "dmemregion") {
        if (pair.value.empty()) fail(pair, "expected a dmem region name or off");
        r.dmemRegion = iequals(pair.value, "off") ? "off" : pair.value;
      } else {
        diag_.warn(line_.file, line_.line, "unknown key \"" + pair.key + "\" is ignored");
      }
    }
    checkLine(out, hasFile, hasCount);
    return out;
  }

 private:
  void fail(const KeyValue& pair, const std::string& rule) {
    diag_.error(line_.file, line_.line, pair.key + "=" + pair.value + ": " + rule);
  }
  void fail(const std::string& rule) { diag_.error(line_.file, line_.line, rule); }

  void parseLinks(const KeyValue& pair, GresRecord& r) {
    std::vector<std::string> items = splitList(pair.value);
    if (items.empty()) {
      fail(pair, "expected a comma-separated list of link counts, -1 for the device itself");
      return;
    }
    for (const auto& item : items) {
      bool self = item == "-1";
      auto value = self ? Result<uint64_t>(0) : parseUint(item, 1 << 20);
      if (!value) {
        fail(pair, "\"" + item + "\" is not a link count (a number, or -1 for the device itself)");
        r.links.clear();
        return;
      }
      r.links.push_back(self ? -1 : static_cast<int>(value.value()));
    }
  }

  void checkLine(const GresLine& out, bool hasFile, bool hasCount) {
    const GresRecord& r = out.record;
    if (!out.definesGres) {
      for (const auto& pair : line_.pairs) {
        std::string key = toLower(pair.key);
        if (key != "nodename" && key != "autodetect") {
          fail(pair.key + "= needs Name= on the same line");
          return;
        }
      }
      return;
    }
    if (hasFile && !r.multipleFiles.empty()) fail("File and MultipleFiles exclude each other; set only one");
    if (chunkOrderWritten_ && !chunkSizesWritten_) fail("ChunkOrder is set without ChunkSizes");
    if (chunkSizesWritten_ && !hasFile && r.multipleFiles.empty()) {
      fail("ChunkSizes needs File or MultipleFiles (chunks are formed from device files)");
    }
    if (!r.links.empty() && chunkSizesWritten_) {
      diag_.warn(line_.file, line_.line, "Links is ignored on a GRES with ChunkSizes");
    }
    if (!r.uuid.empty() && r.deviceCount() != 1) {
      fail("UUID= names one device, but the line describes " + std::to_string(r.deviceCount()));
    }
    if (hasCount && r.count && !isSharedName(r.name) && r.files.size() > 1 && *r.count != r.files.size()) {
      fail("Count=" + std::to_string(*r.count) + " differs from the " + std::to_string(r.files.size()) +
           " devices named by File");
    }
  }

  const ConfLine& line_;
  Diagnostics& diag_;
  bool chunkSizesWritten_ = false;
  bool chunkOrderWritten_ = false;
};

std::string joinUints(const std::vector<uint32_t>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ",";
    out += std::to_string(values[i]);
  }
  return out;
}

// Every line of one Name and Type on a node must carry the same chunk values.
void checkChunkAgreement(const GresConf& conf, Diagnostics& diag) {
  std::map<std::pair<std::string, std::string>, const GresRecord*> firstOfKind;
  for (const auto& r : conf.records) {
    auto key = std::make_pair(toLower(r.name), toLower(r.type));
    auto [it, inserted] = firstOfKind.emplace(key, &r);
    if (inserted) continue;
    const GresRecord& first = *it->second;
    bool firstChunked = !first.chunkSizes.empty() || !first.chunkOrder.empty();
    bool thisChunked = !r.chunkSizes.empty() || !r.chunkOrder.empty();
    if (!firstChunked && !thisChunked) continue;
    std::string kind = "Name=" + r.name + (r.type.empty() ? "" : " Type=" + r.type);
    std::string where = " on node " + conf.nodeName + " (line " + std::to_string(first.sourceLine) + " of " +
                        first.sourceFile + ")";
    if (firstChunked != thisChunked) {
      diag.error(r.sourceFile, r.sourceLine,
                 kind + ": sets " + (thisChunked ? "chunk values" : "no chunk values") + " while another line" +
                     where + (thisChunked ? " sets none" : " sets them") +
                     "; every line of one Name and Type must set the same ChunkSizes and ChunkOrder");
    } else if (first.chunkSizes != r.chunkSizes || first.chunkOrder != r.chunkOrder) {
      diag.error(r.sourceFile, r.sourceLine,
                 kind + ": ChunkSizes=" + joinUints(r.chunkSizes) + " ChunkOrder=" + joinUints(r.chunkOrder) +
                     " differ from ChunkSizes=" + joinUints(first.chunkSizes) +
                     " ChunkOrder=" + joinUints(first.chunkOrder) + " of another line" + where +
                     "; every line of one Name and Type must set the same values");
    }
  }
}

// Keeps the errors that concern `nodeName`: those of lines that apply to it,
// of lines whose NodeName does not parse (no one can tell whose they are) and
// of the file as a whole. A bad line written only for other nodes must not
// stop this node's agent; the controller reports it against those nodes.
Diagnostics errorsForNode(const GresLinesParse& parsed, std::string_view nodeName) {
  std::set<std::pair<std::string, int>> otherNodesLines;
  for (const auto& line : parsed.lines) {
    bool onlyOthers = line.hasNodeName && !line.nodes.empty() && line.nodeSet.count(std::string(nodeName)) == 0;
    if (onlyOthers) otherNodesLines.emplace(line.record.sourceFile, line.record.sourceLine);
  }
  Diagnostics kept = parsed.diagnostics;
  std::erase_if(kept.errors, [&](const Diagnostic& d) { return otherNodesLines.count({d.file, d.line}) > 0; });
  return kept;
}

Result<GresConf> finishForNode(const ReadResult& read, const std::string& fileName, std::string_view nodeName) {
  GresLinesParse parsed = parseGresLines(read);
  Diagnostics diag = errorsForNode(parsed, nodeName);
  GresConf conf = selectGresForNode(parsed, nodeName, diag);
  conf.file = fileName;
  if (!diag.ok()) return Error{diag.errorText()};
  conf.warnings = diag.warnings;
  return conf;
}

}  // namespace

std::string_view toString(AutoDetect mode) {
  switch (mode) {
    case AutoDetect::Off: return "off";
    case AutoDetect::Nvml: return "nvml";
    case AutoDetect::Nvidia: return "nvidia";
    case AutoDetect::Rsmi: return "rsmi";
    case AutoDetect::Amd: return "amd";
    case AutoDetect::Nrt: return "nrt";
    case AutoDetect::OneApi: return "oneapi";
    case AutoDetect::Full: return "full";
  }
  return "off";
}

uint64_t GresRecord::effectiveCount() const {
  if (count) return *count;
  return std::max<uint64_t>(1, deviceCount());
}

std::vector<const GresRecord*> GresConf::recordsNamed(std::string_view name) const {
  std::vector<const GresRecord*> out;
  for (const auto& r : records) {
    if (iequals(r.name, name)) out.push_back(&r);
  }
  return out;
}

Result<std::vector<uint32_t>> parseChunkSizes(std::string_view text) {
  auto sizes = parseUintList(text, "chunk sizes");
  if (!sizes) return Error{sizes.error()};
  const auto& v = sizes.value();
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] == 0 || v[i] > kMaxChunkDevices) {
      return Error{"size " + std::to_string(v[i]) + " is out of range (each chunk size must be from 1 to " +
                   std::to_string(kMaxChunkDevices) + ")"};
    }
    if (i == 0) continue;
    if (v[i] <= v[i - 1]) return Error{"sizes are not strictly ascending (" + std::to_string(v[i]) + " follows " +
                                       std::to_string(v[i - 1]) + ")"};
    if (v[i] % v[i - 1] != 0) {
      return Error{std::to_string(v[i]) + " is not a multiple of " + std::to_string(v[i - 1]) +
                   " (each chunk size must be a multiple of the one before it)"};
    }
  }
  return sizes;
}

Result<std::vector<uint32_t>> parseChunkOrder(std::string_view text) {
  if (std::count(text.begin(), text.end(), ',') >= static_cast<std::ptrdiff_t>(kMaxChunkDevices)) {
    return Error{"has more than " + std::to_string(kMaxChunkDevices) + " entries"};
  }
  auto order = parseUintList(text, "device positions");
  if (!order) return Error{order.error()};
  const auto& v = order.value();
  std::vector<bool> seen(v.size(), false);
  for (uint32_t entry : v) {
    if (entry >= v.size()) {
      return Error{"entry " + std::to_string(entry) + " is outside the range its length allows (0-" +
                   std::to_string(v.size() - 1) + ")"};
    }
    if (seen[entry]) return Error{"entry " + std::to_string(entry) + " is repeated (each position may appear once)"};
    seen[entry] = true;
  }
  return order;
}

GresLinesParse parseGresLines(const ReadResult& read) {
  GresLinesParse out;
  out.diagnostics = read.diagnostics;
  InertKeyNotes inert(out.diagnostics);
  for (const auto& line : read.lines) {
    std::size_t errorsBefore = out.diagnostics.errors.size();
    LineParser parser(line, out.diagnostics);
    out.lines.push_back(parser.parse());
    if (out.diagnostics.errors.size() != errorsBefore) continue;
    for (const auto& pair : line.pairs) inert.check(KeyPlace::GresConf, line, pair);
  }
  return out;
}

GresConf selectGresForNode(const GresLinesParse& parsed, std::string_view nodeName, Diagnostics& diagnostics) {
  GresConf conf;
  conf.present = true;
  conf.nodeName = std::string(nodeName);
  std::optional<AutoDetect> globalMode, nodeMode;
  for (const auto& line : parsed.lines) {
    bool forNode = !line.hasNodeName || line.nodeSet.count(std::string(nodeName)) > 0;
    if (!forNode) continue;
    if (line.record.autoDetect) (line.hasNodeName ? nodeMode : globalMode) = line.record.autoDetect;
    if (line.definesGres) conf.records.push_back(line.record);
  }
  conf.autoDetect = nodeMode.value_or(globalMode.value_or(AutoDetect::Off));
  checkChunkAgreement(conf, diagnostics);
  return conf;
}

std::map<std::string, std::string> gresConfProblemsByNode(const std::filesystem::path& path,
                                                          const std::vector<std::string>& nodes) {
  std::map<std::string, std::string> problems;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return problems;
  GresLinesParse parsed = parseGresLines(readConfFile(path));
  for (const auto& node : nodes) {
    std::set<std::pair<std::string, int>> namingLines;
    for (const auto& line : parsed.lines)
      if (line.hasNodeName && line.nodeSet.count(node) > 0) namingLines.emplace(line.record.sourceFile, line.record.sourceLine);
    if (namingLines.empty()) continue;
    Diagnostics diag;
    for (const auto& d : parsed.diagnostics.errors)
      if (namingLines.count({d.file, d.line}) > 0) diag.errors.push_back(d);
    selectGresForNode(parsed, node, diag);
    if (!diag.ok()) problems[node] = diag.errorText();
  }
  return problems;
}

Result<GresConf> loadGresConf(const std::filesystem::path& path, std::string_view nodeName) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    GresConf empty;
    empty.file = path.string();
    empty.nodeName = std::string(nodeName);
    return empty;
  }
  return finishForNode(readConfFile(path), path.string(), nodeName);
}

Result<GresConf> parseGresConf(std::string_view text, const std::string& fileName, std::string_view nodeName,
                               const ReadOptions& options) {
  return finishForNode(readConfText(text, fileName, options), fileName, nodeName);
}

}  // namespace gantry::config
