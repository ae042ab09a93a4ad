// gres.conf: the GRES records one node agent uses, with every check the
// node agent makes at start. Merging with detected hardware happens in
// nodeagent/gres; this layer only reads and validates what is written.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/config/conf_reader.h"
#include "common/config/diagnostic.h"
#include "common/util/result.h"

namespace gantry::config {

enum class AutoDetect { Off, Nvml, Nvidia, Rsmi, Amd, Nrt, OneApi, Full };
std::string_view toString(AutoDetect mode);

// Chunk sizes and device order limits, shared by every check.
inline constexpr uint32_t kMaxChunkDevices = 1024;

struct GresFlags {
  bool countOnly = false;
  bool explicit_ = false;  // only allocated when requested by name
  bool envUuid = false;
  bool oneSharing = false, allSharing = false;
  bool nvidiaGpuEnv = false, amdGpuEnv = false, intelGpuEnv = false, openclEnv = false, noGpuEnv = false;
};

// One gres.conf line that applies to the node.
struct GresRecord {
  std::string sourceFile;
  int sourceLine = 0;
  std::string name;
  std::string type;  // "" when untyped
  std::vector<std::string> files;  // File=, ranges expanded: one device per entry
  std::vector<std::string> multipleFiles;  // MultipleFiles=: one device with all of these
  std::vector<int> cores;  // Cores=, expanded
  std::vector<int> links;  // Links=, -1 for the device itself; empty when unset
  std::optional<uint64_t> count;  // Count= as written
  std::vector<std::string> flagNames;  // Flags= as written
  GresFlags flags;
  std::vector<uint32_t> chunkSizes;  // empty when unset
  std::vector<uint32_t> chunkOrder;  // empty when unset
  std::string dmemRegion;  // "" autodetect, "off", or a region name
  std::string uuid;  // UUID=: checked against the detected GPU of this File; "" when unset
  std::optional<AutoDetect> autoDetect;  // AutoDetect= on this line

  bool hasFiles() const { return !files.empty() || !multipleFiles.empty(); }
  // Devices this line describes: one per File entry, one for MultipleFiles,
  // otherwise 0 (a count-only or shared line).
  std::size_t deviceCount() const { return !files.empty() ? files.size() : (multipleFiles.empty() ? 0 : 1); }
  // Count when written, else the number of devices (at least 1).
  uint64_t effectiveCount() const;
};

struct GresConf {
  bool present = false;  // false: no gres.conf was found
  std::string file;
  std::string nodeName;
  AutoDetect autoDetect = AutoDetect::Off;  // effective for this node
  std::vector<GresRecord> records;  // lines for this node, in file order
  std::vector<Diagnostic> warnings;

  std::vector<const GresRecord*> recordsNamed(std::string_view name) const;
};

// Reads `path` and returns the records for `nodeName` (lines without
// NodeName plus lines whose NodeName hostlist contains it). A missing file
// is not an error: the result has present == false. The error text lists
// every problem, one "file:line: ..." per line; problems of lines written
// only for other nodes are left out (they do not stop this node).
Result<GresConf> loadGresConf(const std::filesystem::path& path, std::string_view nodeName);

// The same from text in memory.
Result<GresConf> parseGresConf(std::string_view text, const std::string& fileName, std::string_view nodeName,
                               const ReadOptions& options = {});

// All lines checked once, before choosing a node, so errors on lines for
// other nodes are still found (used by checkAll).
struct GresLine {
  GresRecord record;
  bool hasNodeName = false;
  std::vector<std::string> nodes;  // expanded NodeName=
  std::unordered_set<std::string> nodeSet;  // the same, for lookups on large clusters
  bool definesGres = false;  // false for a line with only NodeName/AutoDetect
};
struct GresLinesParse {
  std::vector<GresLine> lines;
  Diagnostics diagnostics;
};
GresLinesParse parseGresLines(const ReadResult& read);

// Selects the lines of one node and runs the checks that span lines (chunk
// values that must agree per Name and Type). Adds problems to `diagnostics`.
GresConf selectGresForNode(const GresLinesParse& parsed, std::string_view nodeName, Diagnostics& diagnostics);

// For the controller: the problems gres.conf has for each node of `nodes`
// that a line naming it in NodeName= causes (its own bad values, or chunk
// values that disagree on the node), one "file:line: ..." per line. Nodes
// without such problems, and every node when the file is missing, are absent.
// Problems of lines without NodeName stop every agent and are left to them.
std::map<std::string, std::string> gresConfProblemsByNode(const std::filesystem::path& path,
                                                          const std::vector<std::string>& nodes);

// Checks of single values, exposed for tests: the error names the rule.
Result<std::vector<uint32_t>> parseChunkSizes(std::string_view text);
Result<std::vector<uint32_t>> parseChunkOrder(std::string_view text);

}  // namespace gantry::config
