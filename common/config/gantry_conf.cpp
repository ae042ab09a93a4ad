#include "common/config/gantry_conf.h"

#include "common/config/billing_weights.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "common/config/gantry_conf_keys.h"
#include "common/config/inert_keys.h"
#include "common/config/value_parse.h"
#include "common/hostlist/hostlist.h"

namespace gantry::config {
namespace {

// Guards memory against a typo such as NodeName=n[0-99999999].
constexpr std::size_t kMaxNodes = 1u << 17;

// A pair and the line it was written on: values taken from a DEFAULT line
// are reported at that line, not at the line that used them.
struct SourcedPair {
  KeyValue pair;
  const ConfLine* line = nullptr;
};

// Pairs of a NodeName=/PartitionName= line after DEFAULT values are merged
// in, keyed by lower-case key.
using PairMap = std::map<std::string, SourcedPair>;

void addPairs(PairMap& into, const ConfLine& line) {
  for (std::size_t i = 1; i < line.pairs.size(); ++i) into[toLower(line.pairs[i].key)] = SourcedPair{line.pairs[i], &line};
}

PairMap mergeWithDefaults(const PairMap& defaults, const ConfLine& line) {
  PairMap merged = defaults;
  addPairs(merged, line);
  return merged;
}

// The same problem found once per node line (a bad DEFAULT value) is
// reported once.
void dropRepeats(std::vector<Diagnostic>& list) {
  std::set<std::string> seen;
  std::vector<Diagnostic> unique;
  for (auto& d : list) {
    if (seen.insert(d.toString()).second) unique.push_back(std::move(d));
  }
  list = std::move(unique);
}

// True when nothing was reported since construction: the pair was known
// and its value valid.
class AcceptedCheck {
 public:
  explicit AcceptedCheck(const Diagnostics& diagnostics)
      : diagnostics_(diagnostics), errors_(diagnostics.errors.size()), warnings_(diagnostics.warnings.size()) {}
  bool operator()() const {
    return diagnostics_.errors.size() == errors_ && diagnostics_.warnings.size() == warnings_;
  }

 private:
  const Diagnostics& diagnostics_;
  std::size_t errors_, warnings_;
};

class Interpreter {
 public:
  explicit Interpreter(GantryConfParse& out) : conf_(out.conf), diag_(out.diagnostics), inert_(out.diagnostics) {}

  void apply(const ConfLine& line) {
    const std::string first = toLower(line.pairs.front().key);
    if (first == "nodename") return nodeLine(line);
    if (first == "partitionname") return partitionLine(line);
    if (first == "nodeset" || first == "downnodes" || first == "frontendname") {
      diag_.warn(line.file, line.line, line.pairs.front().key + " lines are not supported; the line is ignored");
      return;
    }
    for (const auto& pair : line.pairs) globalKey(line, pair);
  }

  void finish() {
    checkGresTypes();
    resolvePartitionNodes();
    checkDefaultPartition();
    if (conf_.controllerHosts.empty()) {
      diag_.warn(conf_.sourceFile, 0, "no SlurmctldHost is set; clients will look for the controller on localhost");
    }
  }

 private:
  void globalKey(const ConfLine& line, const KeyValue& pair) {
    conf_.entries.emplace_back(pair.key, pair.value);
    KeyContext context{conf_, diag_, line, pair};
    AcceptedCheck accepted(diag_);
    std::string lower = toLower(pair.key);
    if (applyGlobalKey(context) || isIgnoredGlobalKey(lower)) {
      if (accepted()) inert_.check(KeyPlace::Global, line, pair);
      return;
    }
    if (lower == "nodename" || lower == "partitionname") {
      diag_.error(line.file, line.line, pair.key + "= must be the first key on its line");
      return;
    }
    diag_.warn(line.file, line.line, "unknown key \"" + pair.key + "\" is ignored");
  }

  // ---- NodeName lines -------------------------------------------------

  void nodeLine(const ConfLine& line) {
    const std::string& expr = line.pairs.front().value;
    if (iequals(expr, "DEFAULT")) {
      addPairs(nodeDefaults_, line);
      return;
    }
    auto names = hostlist::expand(expr);
    if (!names) {
      diag_.error(line.file, line.line, "NodeName=" + expr + ": " + names.error());
      return;
    }
    if (names->empty()) {
      diag_.error(line.file, line.line, "NodeName= names no node");
      return;
    }
    if (conf_.nodes.size() + names->size() > kMaxNodes) {
      diag_.error(line.file, line.line, "NodeName=" + expr + ": more than " + std::to_string(kMaxNodes) + " nodes");
      return;
    }
    NodeConf proto;
    proto.sourceFile = line.file;
    proto.sourceLine = line.line;
    std::vector<std::string> addrs, hostnames;
    std::vector<int> ports;
    PairMap pairs = mergeWithDefaults(nodeDefaults_, line);
    bool ok = fillNode(line, pairs, proto, names->size(), addrs, hostnames, ports);
    if (!ok) return;
    for (std::size_t i = 0; i < names->size(); ++i) {
      const std::string& name = (*names)[i];
      auto [it, inserted] = nodeIndex_.emplace(name, conf_.nodes.size());
      if (!inserted) {
        const NodeConf& first = conf_.nodes[it->second];
        diag_.error(line.file, line.line,
                    "node " + name + " is defined twice (first at " + first.sourceFile + ":" +
                        std::to_string(first.sourceLine) + ")");
        continue;
      }
      NodeConf node = proto;
      node.name = name;
      node.addr = addrs.empty() ? name : addrs[i];
      node.hostname = hostnames.empty() ? name : hostnames[i];
      if (!ports.empty()) node.port = ports.size() == 1 ? ports[0] : ports[i];
      conf_.nodes.push_back(std::move(node));
    }
  }

  // NodeAddr/NodeHostname: one value for every node, or one per node.
  bool expandPerNode(const ConfLine& line, const KeyValue& pair, std::size_t count, std::vector<std::string>& out) {
    auto values = hostlist::expand(pair.value);
    if (!values) {
      diag_.error(line.file, line.line, pair.key + "=" + pair.value + ": " + values.error());
      return false;
    }
    if (values->size() != count && values->size() != 1) {
      diag_.error(line.file, line.line,
                  pair.key + "=" + pair.value + ": names " + std::to_string(values->size()) + " addresses for " +
                      std::to_string(count) + " nodes (give one for all, or one per node)");
      return false;
    }
    out = std::move(values.value());
    if (out.size() == 1 && count > 1) out.assign(count, out.front());
    return true;
  }

  bool nodeInt(const ConfLine& line, const KeyValue& pair, int& field, int min, int max) {
    auto value = parseUint(pair.value, static_cast<uint64_t>(max));
    if (!value || static_cast<int>(value.value()) < min) {
      diag_.error(line.file, line.line,
                  pair.key + "=" + pair.value + ": expected an integer from " + std::to_string(min) + " to " +
                      std::to_string(max));
      return false;
    }
    field = static_cast<int>(value.value());
    return true;
  }

  // Port= is one port for every node or a range with one port per node
  // ("17001-17004", "17001,17003" or "[17001-17004]"), so several agents can
  // share a host. As in Slurm, a list without brackets is read as if it had
  // them.
  bool expandPorts(const ConfLine& line, const KeyValue& pair, std::size_t count, std::vector<int>& ports) {
    bool bare = !pair.value.starts_with('[') && pair.value.find_first_of("-,") != std::string::npos;
    auto values = hostlist::expand(bare ? "[" + pair.value + "]" : pair.value);
    auto fail = [&](const std::string& rule) {
      diag_.error(line.file, line.line, pair.key + "=" + pair.value + ": " + rule);
      return false;
    };
    if (!values) return fail(values.error());
    if (values->size() != 1 && values->size() != count) {
      return fail("names " + std::to_string(values->size()) + " ports for " + std::to_string(count) +
                  " nodes (give one port, or one per node)");
    }
    ports.clear();
    for (const auto& text : values.value()) {
      auto port = parseUint(text, 65535);
      if (!port || port.value() == 0) return fail("expected port numbers from 1 to 65535");
      ports.push_back(static_cast<int>(port.value()));
    }
    return true;
  }

  bool fillNode(const ConfLine& nodeLine, const PairMap& pairs, NodeConf& node, std::size_t count,
                std::vector<std::string>& addrs, std::vector<std::string>& hostnames, std::vector<int>& ports) {
    bool ok = true;
    bool hasCpus = false, hasSockets = false, hasSocketsPerBoard = false, hasCores = false, hasThreads = false;
    for (const auto& [key, sourced] : pairs) {
      const ConfLine& line = *sourced.line;
      const KeyValue& pair = sourced.pair;
      auto fail = [&](const KeyValue& bad, const std::string& rule) {
        diag_.error(line.file, line.line, bad.key + "=" + bad.value + ": " + rule);
        ok = false;
      };
      AcceptedCheck accepted(diag_);
      if (key == "nodeaddr") {
        ok &= expandPerNode(line, pair, count, addrs);
      } else if (key == "nodehostname") {
        ok &= expandPerNode(line, pair, count, hostnames);
      } else if (key == "port") {
        ok &= expandPorts(line, pair, count, ports);
      } else if (key == "cpus" || key == "procs") {
        ok &= nodeInt(line, pair, node.cpus, 1, 1 << 20);
        hasCpus = true;
      } else if (key == "boards") {
        ok &= nodeInt(line, pair, node.boards, 1, 1 << 10);
      } else if (key == "sockets") {
        ok &= nodeInt(line, pair, node.sockets, 1, 1 << 12);
        hasSockets = true;
      } else if (key == "socketsperboard") {
        ok &= nodeInt(line, pair, node.socketsPerBoard, 1, 1 << 12);
        hasSocketsPerBoard = true;
      } else if (key == "corespersocket") {
        ok &= nodeInt(line, pair, node.coresPerSocket, 1, 1 << 14);
        hasCores = true;
      } else if (key == "threadspercore") {
        ok &= nodeInt(line, pair, node.threadsPerCore, 1, 1 << 8);
        hasThreads = true;
      } else if (key == "realmemory") {
        auto mb = parseSizeMb(pair.value);
        if (!mb) fail(pair, mb.error());
        else node.realMemoryMb = mb.value();
      } else if (key == "tmpdisk") {
        auto mb = parseSizeMb(pair.value);
        if (!mb) fail(pair, mb.error());
        else node.tmpDiskMb = mb.value();
      } else if (key == "gres") {
        auto gres = parseGresList(pair.value);
        if (!gres) fail(pair, gres.error());
        else node.gres = std::move(gres.value());
      } else if (key == "features" || key == "feature" || key == "availablefeatures") {
        node.features = splitList(pair.value);
      } else if (key == "weight") {
        ok &= nodeInt(line, pair, node.weight, 0, INT32_MAX);
      } else if (key == "state") {
        static const std::unordered_set<std::string> kStates = {"unknown", "idle",    "down",  "drain",
                                                                "fail",    "failing", "future", "cloud"};
        if (!kStates.count(toLower(pair.value))) {
          fail(pair, "expected UNKNOWN, IDLE, DOWN, DRAIN, FAIL, FAILING, FUTURE or CLOUD");
        }
        node.state = pair.value;
      } else if (key == "parameters") {
        node.parameters = splitList(pair.value);
      } else if (key == "maxdrainedtres") {
        auto limits = parseTresLimits(pair.value);
        if (!limits) fail(pair, limits.error());
        else node.maxDrainedTresLimits = std::move(limits.value());
        node.maxDrainedTres = pair.value;
      } else if (key == "restrictedcorespergpu") {
        ok &= nodeInt(line, pair, node.restrictedCoresPerGpu, 0, 1 << 20);
      } else if (key == "corespeccount" || key == "cpuspeclist" || key == "memspeclimit" || key == "reason" ||
                 key == "cpubind" || key == "activefeatures") {
        // accepted for compatibility; see docs/configuration.md
      } else {
        diag_.warn(line.file, line.line, "unknown node key \"" + pair.key + "\" is ignored");
      }
      if (accepted()) inert_.check(KeyPlace::NodeLine, line, pair);
    }
    if (hasSockets && hasSocketsPerBoard) {
      diag_.error(nodeLine.file, nodeLine.line, "Sockets and SocketsPerBoard exclude each other; set only one");
      ok = false;
    }
    if (hasSocketsPerBoard) node.sockets = node.boards * node.socketsPerBoard;
    else node.socketsPerBoard = std::max(1, node.sockets / std::max(1, node.boards));
    bool hasTopology = hasSockets || hasSocketsPerBoard || hasCores || hasThreads;
    int threads = node.sockets * node.coresPerSocket * node.threadsPerCore;
    if (!hasCpus) {
      node.cpus = threads;
    } else if (!hasTopology) {
      // Only CPUs written: treat each CPU as a socket of one core.
      node.sockets = node.cpus;
      node.socketsPerBoard = std::max(1, node.cpus / std::max(1, node.boards));
    } else if (node.cpus != threads && node.cpus != node.sockets * node.coresPerSocket) {
      diag_.warn(nodeLine.file, nodeLine.line,
                 "CPUs=" + std::to_string(node.cpus) + " matches neither sockets x cores x threads (" +
                     std::to_string(threads) + ") nor sockets x cores; CPUs is used as written");
    }
    return ok;
  }

  // ---- PartitionName lines --------------------------------------------

  void partitionLine(const ConfLine& line) {
    const std::string& name = line.pairs.front().value;
    if (iequals(name, "DEFAULT")) {
      addPairs(partDefaults_, line);
      return;
    }
    if (name.empty()) {
      diag_.error(line.file, line.line, "PartitionName= needs a name");
      return;
    }
    if (conf_.findPartition(name)) {
      diag_.error(line.file, line.line, "partition " + name + " is defined twice");
      return;
    }
    PartitionConf part;
    part.name = name;
    part.sourceFile = line.file;
    part.sourceLine = line.line;
    PairMap pairs = mergeWithDefaults(partDefaults_, line);
    for (const auto& [key, sourced] : pairs) partitionKey(*sourced.line, key, sourced.pair, part);
    conf_.partitions.push_back(std::move(part));
  }

  void partitionKey(const ConfLine& line, const std::string& key, const KeyValue& pair, PartitionConf& part) {
    AcceptedCheck accepted(diag_);
    partitionValue(line, key, pair, part);
    if (accepted()) inert_.check(KeyPlace::PartitionLine, line, pair);
  }

  void partitionValue(const ConfLine& line, const std::string& key, const KeyValue& pair, PartitionConf& part) {
    auto fail = [&](const std::string& rule) {
      diag_.error(line.file, line.line, "partition " + part.name + ": " + pair.key + "=" + pair.value + ": " + rule);
    };
    if (key == "nodes") {
      part.nodesExpr = pair.value;
    } else if (key == "default") {
      auto value = parseBool(pair.value);
      if (!value) fail(value.error());
      else part.isDefault = value.value();
    } else if (key == "maxnodes") {
      if (iequals(pair.value, "UNLIMITED") || iequals(pair.value, "INFINITE")) {
        part.maxNodes = -1;
      } else {
        auto value = parseUint(pair.value, INT32_MAX);
        if (!value) fail("expected a node count or UNLIMITED");
        else part.maxNodes = static_cast<int>(value.value());
      }
    } else if (key == "maxtime" || key == "defaulttime") {
      auto minutes = parseTimeMinutes(pair.value);
      if (!minutes) fail(minutes.error());
      else (key == "maxtime" ? part.maxTimeMinutes : part.defaultTimeMinutes) = minutes.value();
    } else if (key == "oversubscribe" || key == "shared") {
      overSubscribe(pair.value, part, fail);
    } else if (key == "preemptmode") {
      part.preemptMode = pair.value;
    } else if (key == "priorityjobfactor") {
      auto value = parseUint(pair.value, 65533);
      if (!value) fail("expected an integer from 0 to 65533");
      else part.priorityJobFactor = static_cast<uint32_t>(value.value());
    } else if (key == "tresbillingweights") {
      if (auto weights = parseBillingWeights(pair.value); !weights) fail(weights.error());
      else part.tresBillingWeights = pair.value;
    } else if (key == "prioritytier") {
      auto value = parseUint(pair.value, 65533);
      if (!value) fail("expected an integer from 0 to 65533");
      else part.priorityTier = static_cast<int>(value.value());
    } else if (key == "state") {
      static const std::unordered_set<std::string> kStates = {"up", "down", "drain", "inactive"};
      if (!kStates.count(toLower(pair.value))) fail("expected UP, DOWN, DRAIN or INACTIVE");
      else part.state = toLower(pair.value) == "up" ? "UP" : toUpperCopy(pair.value);
    } else if (isIgnoredPartitionKey(key)) {
      // accepted for compatibility; see docs/configuration.md
    } else {
      diag_.warn(line.file, line.line, "unknown partition key \"" + pair.key + "\" is ignored");
    }
  }

  template <typename Fail>
  static void overSubscribe(const std::string& value, PartitionConf& part, Fail& fail) {
    std::size_t colon = value.find(':');
    std::string mode = toLower(value.substr(0, colon));
    std::string count = colon == std::string::npos ? "" : value.substr(colon + 1);
    bool takesCount = mode == "yes" || mode == "force";
    if (!count.empty() && !takesCount) {
      fail("only YES and FORCE take a job count");
      return;
    }
    if (mode == "no") {
      part.overSubscribe = OverSubscribeMode::No;
    } else if (mode == "exclusive") {
      part.overSubscribe = OverSubscribeMode::Exclusive;
    } else if (mode == "yes") {
      part.overSubscribe = OverSubscribeMode::Yes;
    } else if (mode == "force") {
      part.overSubscribe = OverSubscribeMode::Force;
    } else {
      fail("expected NO, YES[:N], FORCE[:N] or EXCLUSIVE");
      return;
    }
    part.overSubscribeCount = takesCount ? 4 : 1;
    if (!count.empty()) {
      auto n = parseUint(count, 65535);
      if (!n || n.value() == 0) {
        fail("the job count must be from 1 to 65535");
        return;
      }
      part.overSubscribeCount = static_cast<int>(n.value());
    }
  }

  static bool isIgnoredPartitionKey(const std::string& key) {
    static const std::unordered_set<std::string> kIgnored = {
        "allowaccounts", "allowgroups", "allowqos", "allocnodes", "alternate", "cpubind", "defmempercpu",
        "defmempernode", "denyaccounts", "denyqos", "disablerootjobs", "exclusiveuser", "gracetime", "hidden",
        "lln", "maxcpuspernode", "maxmempercpu", "maxmempernode", "minnodes", "qos",
        "reqresv", "rootonly", "selecttypeparameters"};
    return kIgnored.count(key) > 0;
  }

  static std::string toUpperCopy(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::toupper(c); });
    return text;
  }

  // ---- checks across lines --------------------------------------------

  void resolvePartitionNodes() {
    for (auto& part : conf_.partitions) {
      if (part.nodesExpr.empty()) continue;
      if (iequals(part.nodesExpr, "ALL")) {
        for (const auto& node : conf_.nodes) part.nodes.push_back(node.name);
        continue;
      }
      auto names = hostlist::expand(part.nodesExpr);
      if (!names) {
        diag_.error(part.sourceFile, part.sourceLine, "partition " + part.name + ": Nodes=" + names.error());
        continue;
      }
      for (const auto& name : names.value()) {
        if (!nodeIndex_.count(name)) {
          diag_.error(part.sourceFile, part.sourceLine,
                      "partition " + part.name + ": Nodes= names node " + name + ", which no NodeName line defines");
          continue;
        }
        part.nodes.push_back(name);
      }
    }
  }

  void checkDefaultPartition() {
    PartitionConf* first = nullptr;
    for (auto& part : conf_.partitions) {
      if (!part.isDefault) continue;
      if (first) {
        diag_.warn(part.sourceFile, part.sourceLine,
                   "partition " + part.name + " is marked Default after partition " + first->name +
                       "; the last one wins");
        first->isDefault = false;
      }
      first = &part;
    }
  }

  void checkGresTypes() {
    for (const auto& node : conf_.nodes) {
      for (const auto& gres : node.gres) {
        if (conf_.gresTypeConfigured(gres.name)) continue;
        std::string key = node.sourceFile + ":" + std::to_string(node.sourceLine) + gres.name;
        if (!reportedGres_.insert(key).second) continue;
        diag_.error(node.sourceFile, node.sourceLine,
                    "Gres=" + gres.name + " on node " + node.name + ": \"" + gres.name +
                        "\" is not listed in GresTypes");
      }
    }
  }

  GantryConf& conf_;
  Diagnostics& diag_;
  PairMap nodeDefaults_, partDefaults_;
  std::unordered_map<std::string, std::size_t> nodeIndex_;
  std::unordered_set<std::string> reportedGres_;
  InertKeyNotes inert_;
};

}  // namespace

std::string_view toString(OverSubscribeMode mode) {
  switch (mode) {
    case OverSubscribeMode::No: return "NO";
    case OverSubscribeMode::Yes: return "YES";
    case OverSubscribeMode::Force: return "FORCE";
    case OverSubscribeMode::Exclusive: return "EXCLUSIVE";
  }
  return "NO";
}

bool NodeConf::hasParameter(std::string_view name) const {
  return std::any_of(parameters.begin(), parameters.end(), [&](const std::string& p) { return iequals(p, name); });
}

const NodeConf* GantryConf::findNode(std::string_view name) const {
  for (const auto& node : nodes) {
    if (node.name == name) return &node;
  }
  return nullptr;
}

const PartitionConf* GantryConf::findPartition(std::string_view name) const {
  for (const auto& part : partitions) {
    if (part.name == name) return &part;
  }
  return nullptr;
}

const PartitionConf* GantryConf::defaultPartition() const {
  for (const auto& part : partitions) {
    if (part.isDefault) return &part;
  }
  return nullptr;
}

bool GantryConf::hasTaskPlugin(std::string_view plugin) const {
  return std::any_of(taskPlugins.begin(), taskPlugins.end(), [&](const std::string& p) { return iequals(p, plugin); });
}

bool GantryConf::gangScheduling() const {
  return schedulerType == "sched/gang" ||
         std::find(preemptMode.begin(), preemptMode.end(), "GANG") != preemptMode.end();
}

bool GantryConf::gresTypeConfigured(std::string_view name) const {
  return std::any_of(gresTypes.begin(), gresTypes.end(), [&](const std::string& t) { return iequals(t, name); });
}

GantryConfParse interpretGantryConf(const ReadResult& read, const std::string& mainFile) {
  GantryConfParse out;
  out.conf.sourceFile = mainFile;
  out.diagnostics = read.diagnostics;
  Interpreter interpreter(out);
  for (const auto& line : read.lines) interpreter.apply(line);
  interpreter.finish();
  dropRepeats(out.diagnostics.errors);
  dropRepeats(out.diagnostics.warnings);
  dropRepeats(out.diagnostics.notes);
  return out;
}

namespace {
Result<Loaded> toLoaded(GantryConfParse parsed) {
  if (!parsed.diagnostics.ok()) return Error{parsed.diagnostics.errorText()};
  return Loaded{std::move(parsed.conf), std::move(parsed.diagnostics.warnings), std::move(parsed.diagnostics.notes)};
}
}  // namespace

Result<Loaded> loadGantryConf(const std::filesystem::path& file) {
  return toLoaded(interpretGantryConf(readConfFile(file), file.string()));
}

Result<Loaded> parseGantryConf(std::string_view text, const std::string& fileName, const ReadOptions& options) {
  return toLoaded(interpretGantryConf(readConfText(text, fileName, options), fileName));
}

std::string expandPathPattern(std::string_view pattern, std::string_view nodeName, std::string_view hostName) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out.push_back(pattern[i]);
      continue;
    }
    char next = pattern[i + 1];
    if (next == 'n') out += nodeName;
    else if (next == 'h') out += hostName;
    else if (next == '%') out.push_back('%');
    else {
      out.push_back('%');
      out.push_back(next);
    }
    ++i;
  }
  return out;
}

}  // namespace gantry::config
