#include "nodeagent/resctrl/resctrl_setup.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace gantry::resctrl {
namespace {

namespace fs = std::filesystem;

const std::set<std::string> kGroupNames(config::kResctrlGroupNames.begin(), config::kResctrlGroupNames.end());
// Directories of the resctrl root that are not control groups.
const std::set<std::string> kNotGroups = {"info", "mon_groups", "mon_data"};

std::string joinRoot(const std::string& host_root, const std::string& path) {
  if (host_root.empty() || host_root == "/") return path;
  std::string root = host_root;
  while (!root.empty() && root.back() == '/') root.pop_back();
  return root + path;
}

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

bool kernelHasResctrl(const std::string& host_root) {
  std::istringstream lines(readAll(joinRoot(host_root, "/proc/filesystems")));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string word, last;
    while (words >> word) last = word;
    if (last == "resctrl") return true;
  }
  return false;
}

bool resctrlMounted(const std::string& host_root) {
  std::istringstream lines(readAll(joinRoot(host_root, "/proc/mounts")));
  std::string device, mount_point, type;
  std::string rest;
  while (lines >> device >> mount_point >> type) {
    std::getline(lines, rest);
    if (mount_point == "/sys/fs/resctrl" && type == "resctrl") return true;
  }
  return false;
}

// The smallest info/*/num_closids, and the file that holds it.
Result<std::pair<int, std::string>> smallestClosids(const std::string& root) {
  std::error_code ec;
  int smallest = std::numeric_limits<int>::max();
  std::string where;
  for (const auto& entry : fs::directory_iterator(root + "/info", ec)) {
    const std::string file = entry.path().string() + "/num_closids";
    if (!fs::exists(file)) continue;
    std::istringstream in(readAll(file));
    int value = 0;
    if (!(in >> value)) return Error{"resctrl: " + file + " does not hold a number"};
    if (value < smallest) {
      smallest = value;
      where = file;
    }
  }
  if (where.empty()) return Error{"resctrl: no " + root + "/info/*/num_closids found; cannot size the groups"};
  return std::make_pair(smallest, where);
}

std::vector<std::string> existingGroups(const std::string& root) {
  std::vector<std::string> groups;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && !kNotGroups.count(name)) groups.push_back(name);
  }
  return groups;
}

Status writeSchemata(const std::string& root, const config::ResctrlGroup& group) {
  const std::string path = root + "/" + group.name + "/schemata";
  // O_CREAT only matters in fixture trees; the kernel creates schemata with the group.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && ::write(fd, group.schemata.data(), group.schemata.size()) ==
                           static_cast<ssize_t>(group.schemata.size());
  const int saved = errno;
  if (fd >= 0) ::close(fd);
  if (ok) return okStatus();
  std::string detail = std::strerror(saved);
  // The kernel explains a rejected schemata in info/last_cmd_status.
  std::string status = readAll(root + "/info/last_cmd_status");
  while (!status.empty() && (status.back() == '\n' || status.back() == ' ')) status.pop_back();
  if (!status.empty() && status != "ok") detail += " (" + status + ")";
  return Error{"resctrl: the schemata of group " + group.name + " was rejected by " + path + ": " + detail};
}

}  // namespace

Status mountResctrl(const std::string& target, const std::string& options) {
  if (::mount("resctrl", target.c_str(), "resctrl", 0, options.empty() ? nullptr : options.c_str()) != 0)
    return Error{"resctrl: mount on " + target + " with options '" + options + "' failed: " + std::strerror(errno)};
  return okStatus();
}

Result<ResctrlSetupOutcome> setUpResctrlGroups(const ResctrlSetupOptions& options) {
  ResctrlSetupOutcome outcome;
  const config::ResctrlConf& conf = options.conf;
  if (!conf.present) {
    outcome.reason = "no resctrl.yaml";
    return outcome;
  }
  if (!kernelHasResctrl(options.host_root)) {
    outcome.reason = "the kernel does not list resctrl in /proc/filesystems";
    return outcome;
  }
  const std::string root = joinRoot(options.host_root, "/sys/fs/resctrl");
  if (!resctrlMounted(options.host_root)) {
    if (auto s = options.mounter(root, conf.mountOptions); !s) {
      outcome.reason = s.error();
      return outcome;
    }
  }

  auto closids = smallestClosids(root);
  if (!closids) return Error{closids.error()};
  int foreign = 0;
  for (const auto& name : existingGroups(root)) foreign += kGroupNames.count(name) ? 0 : 1;
  outcome.closids_available = closids->first;
  outcome.closids_needed = 1 + static_cast<int>(kGroupNames.size()) + foreign;
  if (outcome.closids_needed > outcome.closids_available)
    return Error{"resctrl: the 3 groups, the root group and " + std::to_string(foreign) +
                 " group(s) created outside gantry need " + std::to_string(outcome.closids_needed) +
                 " CLOSIDs, but " + closids->second + " allows only " + std::to_string(outcome.closids_available)};

  for (const auto& group : conf.groups) {
    const std::string dir = root + "/" + group.name;
    if (::mkdir(dir.c_str(), 0755) == 0) {
      outcome.created_groups.push_back(group.name);
    } else if (errno != EEXIST) {
      return Error{"resctrl: cannot create group directory " + dir + ": " + std::strerror(errno)};
    }
    if (auto s = writeSchemata(root, group); !s) return Error{conf.file + ":" + std::to_string(group.line) + ": " + s.error()};
  }
  outcome.managed = true;
  return outcome;
}

}  // namespace gantry::resctrl
