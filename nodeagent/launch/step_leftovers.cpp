#include "nodeagent/launch/step_leftovers.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "stepd/core/step_control.h"

namespace gantry::agent {
namespace fs = std::filesystem;

namespace {

std::string readText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<pid_t> numbers(const std::string& text) {
  std::vector<pid_t> result;
  std::istringstream in(text);
  for (pid_t value = 0; in >> value;)
    if (value > 0) result.push_back(value);
  return result;
}

// The cgroup v2 way: cgroup.kill (Linux 5.14+), else each listed process.
// True once the cgroup holds no process (or is gone).
bool endCgroup(const fs::path& cgroup) {
  std::error_code ec;
  if (!fs::exists(cgroup / "cgroup.procs", ec)) return true;
  if (std::ofstream kill(cgroup / "cgroup.kill"); !(kill << "1" << std::flush)) {
    for (pid_t pid : numbers(readText(cgroup / "cgroup.procs"))) ::kill(pid, SIGKILL);
  }
  if (!numbers(readText(cgroup / "cgroup.procs")).empty()) return false;
  // Empty: the directories go as gantrystepd would have removed them (the
  // job's fails while other steps of the job still use it).
  ::rmdir(cgroup.c_str());
  ::rmdir(cgroup.parent_path().c_str());
  return true;
}

// Processes of the step's user in one of `groups`; zombies do not count.
bool endProcessGroups(const std::set<pid_t>& groups, uid_t uid) {
  if (groups.empty()) return true;
  bool left = false;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    struct stat owner {};
    if (::stat(entry.path().c_str(), &owner) != 0 || owner.st_uid != uid) continue;
    const std::string stat = readText(entry.path() / "stat");
    auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string state;
    pid_t parent = 0, group = 0;
    fields >> state >> parent >> group;
    if (state == "Z" || groups.count(group) == 0) continue;
    ::kill(std::stoi(name), SIGKILL);
    left = true;
  }
  return !left;
}

}  // namespace

bool endStepLeftovers(const fs::path& stepDir, uid_t uid) {
  std::string cgroup = readText(stepDir / stepd::kCgroupFile);
  while (!cgroup.empty() && (cgroup.back() == '\n' || cgroup.back() == ' ')) cgroup.pop_back();
  const auto groupList = numbers(readText(stepDir / stepd::kTaskGroupsFile));
  const std::set<pid_t> groups(groupList.begin(), groupList.end());
  // Both: a process may have left its group but never its cgroup, and a
  // cgroup that could not be read must not hide the groups.
  bool cgroupEmpty = cgroup.empty() || endCgroup(cgroup);
  bool groupsEmpty = endProcessGroups(groups, uid);
  return cgroupEmpty && groupsEmpty;
}

}  // namespace gantry::agent
