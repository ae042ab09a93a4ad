#include "stepd/cgroup/step_cgroup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

#include "stepd/cgroup/control_files.h"
#include "stepd/core/sluid.h"

namespace gantry::stepd {
namespace {

// Creates `path` when missing; reports whether this call created it.
Result<bool> ensureDirectory(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) == 0) return true;
  if (errno == EEXIST) return false;
  return Error{"cgroup: cannot create directory " + path + ": " + std::strerror(errno)};
}

// The cgroups above `root`, topmost first, up to the top of the mounted
// hierarchy (the first directory without cgroup.controllers is outside it).
std::vector<std::string> cgroupAncestors(const std::string& root) {
  std::vector<std::string> ancestors;
  std::filesystem::path dir = std::filesystem::path(root).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // a trailing slash
  for (dir = dir.parent_path(); dir.has_relative_path(); dir = dir.parent_path()) {
    if (!std::filesystem::exists(dir / "cgroup.controllers")) break;
    ancestors.insert(ancestors.begin(), dir.string());
  }
  return ancestors;
}

std::vector<std::string> neededControllers(const StepCgroupOptions& options) {
  std::vector<std::string> controllers;
  if (options.constrain_cores) controllers.push_back("cpuset");
  if (options.constrain_ram) controllers.push_back("memory");
  if (options.constrain_device_memory) controllers.push_back("dmem");
  return controllers;
}

// One write per controller so a refusal names the controller at fault.
Status enableControllers(const std::string& dir, const std::vector<std::string>& controllers) {
  for (const auto& controller : controllers) {
    if (auto s = appendControlEntry(dir + "/cgroup.subtree_control", "+" + controller); !s)
      return Error{s.error() + " (controller " + controller + " not available to this cgroup)"};
  }
  return okStatus();
}

Status writeDmem(const std::string& dir, const std::vector<DmemLimit>& limits) {
  for (const auto& limit : limits) {
    const std::string line = limit.region + " " + std::to_string(limit.bytes);
    if (auto s = appendControlEntry(dir + "/dmem.max", line); !s) return s;
    if (auto s = appendControlEntry(dir + "/dmem.min", line); !s) return s;
  }
  return okStatus();
}

Status writeCpus(const std::string& dir, std::vector<int> cores, bool merge_existing) {
  if (merge_existing) {
    if (auto existing = readControlFile(dir + "/cpuset.cpus"); existing) {
      if (auto parsed = parseCpuList(*existing); parsed) cores.insert(cores.end(), parsed->begin(), parsed->end());
    }
  }
  return writeControlFile(dir + "/cpuset.cpus", formatCpuList(cores));
}

Status writeLimits(const std::string& dir, const StepCgroupOptions& options, const StepCgroupLimits& limits,
                   bool merge_cpus) {
  if (options.constrain_cores && !limits.cores.empty()) {
    if (auto s = writeCpus(dir, limits.cores, merge_cpus); !s) return s;
  }
  if (options.constrain_ram && limits.memory_bytes > 0) {
    if (auto s = writeControlFile(dir + "/memory.max", std::to_string(limits.memory_bytes)); !s) return s;
  }
  if (options.constrain_device_memory) return writeDmem(dir, limits.dmem);
  return okStatus();
}

}  // namespace

std::string jobCgroupName(const std::string& cluster, uint64_t job_id, bool job_id_paths) {
  return job_id_paths ? "job_" + std::to_string(job_id) : jobSluid(cluster, job_id);
}

std::string stepCgroupName(const std::string& step_id) { return "step_" + step_id; }

std::string formatCpuList(const std::vector<int>& cpus) {
  std::set<int> sorted(cpus.begin(), cpus.end());
  std::string out;
  for (auto it = sorted.begin(); it != sorted.end();) {
    int first = *it, last = *it;
    for (++it; it != sorted.end() && *it == last + 1; ++it) last = *it;
    if (!out.empty()) out += ',';
    out += std::to_string(first);
    if (last != first) out += "-" + std::to_string(last);
  }
  return out;
}

Result<std::vector<int>> parseCpuList(const std::string& text) {
  std::vector<int> cpus;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(std::remove_if(item.begin(), item.end(), ::isspace), item.end());
    if (item.empty()) continue;
    int first = 0, last = 0;
    char dash = 0;
    std::stringstream range(item);
    range >> first;
    if (range.fail()) return Error{"cpu list \"" + text + "\": \"" + item + "\" is not a CPU number or range"};
    last = first;
    if (range >> dash) {
      if (dash != '-' || !(range >> last) || last < first)
        return Error{"cpu list \"" + text + "\": \"" + item + "\" is not a range low-high"};
    }
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  return cpus;
}

Result<StepCgroup> StepCgroup::create(const StepCgroupOptions& options, const StepCgroupLimits& limits) {
  if (options.root.empty()) return Error{"cgroup: option root is empty"};
  if (options.job_dir_name.empty() || options.step_dir_name.empty())
    return Error{"cgroup: job and step directory names must be set"};
  const std::string base_path = options.base.empty() ? options.root : options.root + "/" + options.base;
  const std::string job_path = base_path + "/" + options.job_dir_name;
  const std::string step_path = job_path + "/" + options.step_dir_name;
  const auto controllers = neededControllers(options);

  if (base_path != options.root) {
    if (auto made = ensureDirectory(base_path); !made) return Error{made.error()};
  }
  if (options.enable_controllers) {
    for (const auto& ancestor : cgroupAncestors(options.root)) {
      if (auto s = enableControllers(ancestor, controllers); !s) return Error{s.error()};
    }
    if (auto s = enableControllers(options.root, controllers); !s) return Error{s.error()};
    if (base_path != options.root) {
      if (auto s = enableControllers(base_path, controllers); !s) return Error{s.error()};
    }
  }
  auto job_created = ensureDirectory(job_path);
  if (!job_created) return Error{job_created.error()};
  if (options.enable_controllers) {
    if (auto s = enableControllers(job_path, controllers); !s) return Error{s.error()};
  }
  if (*job_created) {
    if (auto s = writeLimits(job_path, options, limits, false); !s) return Error{s.error()};
  } else if (options.constrain_cores && !limits.cores.empty()) {
    if (auto s = writeCpus(job_path, limits.cores, true); !s) return Error{s.error()};
  }
  if (auto made = ensureDirectory(step_path); !made) return Error{made.error()};
  if (auto s = writeLimits(step_path, options, limits, false); !s) return Error{s.error()};
  return StepCgroup(job_path, step_path);
}

Status StepCgroup::addProcess(pid_t pid) const {
  return writeControlFile(step_path_ + "/cgroup.procs", std::to_string(pid));
}

Status StepCgroup::setFrozen(bool frozen) const {
  return writeControlFile(step_path_ + "/cgroup.freeze", frozen ? "1" : "0");
}

bool StepCgroup::isFrozen() const {
  auto events = readControlFile(step_path_ + "/cgroup.events");
  return events && events->find("frozen 1") != std::string::npos;
}

Status StepCgroup::killAll() const { return writeControlFile(step_path_ + "/cgroup.kill", "1"); }

namespace {

// "<region> <bytes>" lines of a dmem counter file.
std::map<std::string, uint64_t> regionBytes(const std::string& content) {
  std::map<std::string, uint64_t> bytes_by_region;
  std::stringstream lines(content);
  std::string region;
  uint64_t bytes = 0;
  while (lines >> region >> bytes) bytes_by_region[region] = bytes;
  return bytes_by_region;
}

}  // namespace

std::map<std::string, uint64_t> StepCgroup::deviceMemoryPeak() const {
  auto content = readControlFile(step_path_ + "/dmem.peak");
  if (!content) content = readControlFile(step_path_ + "/dmem.current");
  if (!content) return {};
  return regionBytes(*content);
}

std::map<std::string, uint64_t> StepCgroup::deviceMemoryCurrent() const {
  auto content = readControlFile(step_path_ + "/dmem.current");
  if (!content) return {};
  return regionBytes(*content);
}

Status StepCgroup::remove() const {
  // The kernel may need a moment after the last task is reaped before the
  // directory counts as empty.
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (::rmdir(step_path_.c_str()) == 0 || errno == ENOENT) break;
    if (errno != EBUSY) return Error{"cgroup: cannot remove " + step_path_ + ": " + std::strerror(errno)};
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::rmdir(job_path_.c_str());  // fails while other steps of the job remain; that is expected
  return okStatus();
}

}  // namespace gantry::stepd
