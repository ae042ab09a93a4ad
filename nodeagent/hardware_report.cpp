#include "nodeagent/hardware_report.h"

#include <cstdlib>
#include <filesystem>
#include <map>

#include "common/config/cgroup_conf.h"
#include "common/config/gres_conf.h"
#include "common/config/node_resources.h"
#include "nodeagent/detect/uptime.h"
#include "nodeagent/gres/format.h"

namespace gantry::agent {
namespace {

namespace fs = std::filesystem;

std::string fromEnvironment(const std::string& given, const char* variable) {
  if (!given.empty()) return given;
  const char* value = std::getenv(variable);
  return value != nullptr ? value : "";
}

// "a,b" from `--parameters=a,b` and Parameters= lists, one entry each.
void appendSplit(const std::string& text, std::vector<std::string>* out) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out->push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

bool isSharedName(const std::string& name) { return name == "shard" || name == "mps"; }

void fillTopology(const detect::CpuTopology& topology, v1::NodeHardware* hw) {
  hw->set_cpus(topology.cpus);
  hw->set_boards(topology.boards);
  hw->set_sockets(topology.sockets);
  hw->set_cores_per_socket(topology.coresPerSocket);
  hw->set_threads_per_core(topology.threadsPerCore);
  hw->set_real_memory_mb(topology.realMemoryMb);
}

// Device records (with files, not shared) are numbered per name in device
// order, the index jobs see; shared and count-only records carry -1.
void fillGres(const std::vector<nodegres::GresRecord>& records, v1::NodeHardware* hw) {
  std::map<std::string, int> nextIndex;
  for (const auto& r : records) {
    v1::GresDevice* device = hw->add_gres();
    bool isDevice = !r.files.empty() && !isSharedName(r.name);
    device->set_index(isDevice ? nextIndex[r.name]++ : -1);
    device->set_name(r.name);
    device->set_type(r.type);
    for (const auto& f : r.files) device->add_files(f);
    for (int c : r.cores) device->add_cores(c);
    for (int l : r.links) device->add_links(l);
    device->set_uuid(r.uuid);
    device->set_count(r.count);
    for (const auto& f : r.flags) device->add_flags(f);
    for (int s : r.chunkSizes) device->add_chunk_sizes(s);
    for (int o : r.chunkOrder) device->add_chunk_order(o);
    // The controller hands both on to the step launcher, which sets the
    // step's dmem limits and SLURM_SHARD_MEM_PER_GPU from them.
    device->set_dmem_region(r.dmemRegion);
    device->set_dmem_slice_bytes(r.dmemSliceBytes);
    device->set_pci_bus_id(r.pciBusId);
  }
}

// The node's line as a topology: its sockets of consecutive core ids.
detect::CpuTopology configuredTopology(const config::NodeConf& node) {
  detect::CpuTopology topology;
  topology.boards = node.boards;
  topology.sockets = node.sockets;
  topology.coresPerSocket = node.coresPerSocket;
  topology.threadsPerCore = node.threadsPerCore;
  topology.cpus = node.cpus;
  topology.realMemoryMb = node.realMemoryMb;
  for (int socket = 0; socket < node.sockets; ++socket) {
    std::vector<int> cores;
    for (int core = 0; core < node.coresPerSocket; ++core) cores.push_back(socket * node.coresPerSocket + core);
    topology.socketCores.push_back(std::move(cores));
  }
  return topology;
}

Result<nodegres::NodeHardwareOptions> hardwareOptions(const config::GantryConf& conf, const config::NodeConf& node,
                                                     const ReportOptions& options) {
  fs::path gresConfPath = fs::path(options.confDir) / "gres.conf";
  auto cgroup = config::loadCgroupConf(fs::path(options.confDir) / "cgroup.conf", conf);
  if (!cgroup) return Error{cgroup.error()};

  nodegres::NodeHardwareOptions hwOptions{
      .nodeName = node.name,
      .hostRoot = options.hostRoot,
      .gresConfPath = gresConfPath.string(),
      .nodeGres = node.gres,
      .parameters = {},
      .constrainDeviceMemory = cgroup->constrainDeviceMemory,
      .cgroupRoot = cgroup->mountPoint,
      .nvmlLibrary = fromEnvironment(options.nvmlLibrary, "GANTRY_NVML_LIBRARY"),
      .rsmiLibrary = fromEnvironment(options.rsmiLibrary, "GANTRY_RSMI_LIBRARY"),
      .autoDetectOverride = "",
      .configuredTopology = std::nullopt};
  if (config::configOverridesApply(conf, node)) hwOptions.configuredTopology = configuredTopology(node);
  for (const auto& p : conf.slurmdParameters) appendSplit(p, &hwOptions.parameters);
  for (const auto& p : node.parameters) appendSplit(p, &hwOptions.parameters);
  for (const auto& p : options.parameters) appendSplit(p, &hwOptions.parameters);
  return hwOptions;
}

}  // namespace

Result<HardwareReport> collectHardware(const config::GantryConf& conf, const config::NodeConf& node,
                                       const ReportOptions& options) {
  auto hwOptions = hardwareOptions(conf, node, options);
  if (!hwOptions) return Error{hwOptions.error()};
  auto loaded = nodegres::loadNodeHardware(*hwOptions);
  if (!loaded) return Error{loaded.error()};

  HardwareReport report;
  report.node = std::move(loaded.value());
  const nodegres::MergeResult& merged = report.node.merged;
  fillTopology(report.node.topology, &report.hardware);
  fillGres(merged.records, &report.hardware);
  // A GPU omitted for contradicting gres.conf, or devices gantry.conf does
  // not account for: the controller drains the node with these as reason.
  report.errors = merged.errors;
  if (!merged.drainReason.empty()) report.errors.push_back(merged.drainReason);
  report.warnings = merged.warnings;
  report.log = report.node.detectLog;
  report.log.insert(report.log.end(), merged.log.begin(), merged.log.end());
  return report;
}

Result<HardwareReport> collectHardwareFor(const config::GantryConf& conf, const std::string& nodeName,
                                          const ReportOptions& options) {
  const config::NodeConf* node = conf.findNode(nodeName);
  if (node == nullptr) return Error{"node " + nodeName + " is not in " + (fs::path(options.confDir) / "gantry.conf").string()};
  return collectHardware(conf, *node, options);
}

Result<std::string> formatNodeReport(const config::GantryConf& conf, const config::NodeConf& node,
                                     const ReportOptions& options, std::vector<std::string>* notes) {
  auto hwOptions = hardwareOptions(conf, node, options);
  if (!hwOptions) return Error{hwOptions.error()};
  detect::DetectOptions detectOptions{.hostRoot = hwOptions->hostRoot,
                                      .autoDetect = "full",
                                      .parameters = hwOptions->parameters,
                                      .nvmlLibrary = hwOptions->nvmlLibrary,
                                      .rsmiLibrary = hwOptions->rsmiLibrary};
  std::error_code ec;
  if (fs::exists(hwOptions->gresConfPath, ec)) {
    auto gresConf = config::loadGresConf(hwOptions->gresConfPath, node.name);
    if (!gresConf) return Error{gresConf.error()};
    detectOptions.autoDetect = std::string(config::toString(gresConf->autoDetect));
  }
  auto topology = detect::detectCpus(detectOptions);
  if (!topology) return Error{topology.error()};
  std::vector<std::string> log;
  auto gpus = detect::detectGpus(detectOptions, *topology, &log);
  if (!gpus) return Error{gpus.error()};
  std::string out = nodegres::formatNodeLine(node.name, *topology, *gpus) + "\n";
  // The output keeps the spec's shape (node line, "Found" lines, UpTime);
  // detection's other notes (a mechanism skipped, and why) go apart.
  for (const auto& line : log) {
    if (line.starts_with("Found ")) {
      out += line + "\n";
    } else if (notes) {
      notes->push_back(line);
    }
  }
  out += "UpTime=" + detect::formatUptime(detect::uptimeSeconds(hwOptions->hostRoot)) + "\n";
  return out;
}

std::string formatGresReport(const HardwareReport& report) {
  std::string out = nodegres::formatRecords(report.node.merged.records);
  if (!out.empty() && out.back() != '\n') out += "\n";
  // Detected devices left out (their errors follow), as slurmd -G shows
  // the autodetected GRES it ignores.
  std::string omitted = nodegres::formatRecords(report.node.merged.omitted);
  size_t start = 0;
  while (start < omitted.size()) {
    size_t end = omitted.find('\n', start);
    if (end == std::string::npos) end = omitted.size();
    out += "omitted: " + omitted.substr(start, end - start) + "\n";
    start = end + 1;
  }
  for (const auto& line : report.node.merged.log) out += line + "\n";  // the "shard: ..." dmem lines
  for (const auto& warning : report.warnings) out += "warning: " + warning + "\n";
  for (const auto& error : report.errors) out += "error: " + error + "\n";
  return out;
}

}  // namespace gantry::agent
