#include "nodeagent/resctrl/group_choice.h"

#include <algorithm>
#include <map>
#include <set>

namespace gantry::resctrl {

std::string groupName(ResctrlGroup group) {
  switch (group) {
    case ResctrlGroup::kCpuOnly: return "cpu_only";
    case ResctrlGroup::kGpuOnePerSocket: return "gpu_one_per_socket";
    case ResctrlGroup::kGpuTwoPerSocket: return "gpu_two_per_socket";
    case ResctrlGroup::kNone: break;
  }
  return "";
}

GroupChoice chooseResctrlGroup(const JobOnNode& job) {
  GroupChoice choice;
  if (job.owns_whole_node) return choice;
  std::set<int> seen;
  std::map<int, int> per_socket;
  const int sockets = std::max(job.socket_count, 1);
  for (const auto& gpu : job.gpus) {
    if (!seen.insert(gpu.device_index).second) continue;
    if (gpu.sockets.empty()) {
      for (int s = 0; s < sockets; ++s) ++per_socket[s];
    } else {
      for (int s : std::set<int>(gpu.sockets.begin(), gpu.sockets.end())) ++per_socket[s];
    }
  }
  choice.gpu_count = static_cast<int>(seen.size());
  for (const auto& [socket, count] : per_socket) choice.most_gpus_on_one_socket = std::max(choice.most_gpus_on_one_socket, count);
  if (choice.gpu_count == 0) {
    choice.group = ResctrlGroup::kCpuOnly;
  } else if (choice.most_gpus_on_one_socket <= 1) {
    choice.group = ResctrlGroup::kGpuOnePerSocket;
  } else {
    choice.group = ResctrlGroup::kGpuTwoPerSocket;
  }
  return choice;
}

std::string placementLogLine(uint64_t job_id, const std::string& node, const GroupChoice& choice) {
  const std::string group = choice.group == ResctrlGroup::kNone ? "no group (whole node)" : groupName(choice.group);
  return "resctrl: job " + std::to_string(job_id) + " on " + node + " placed in " + group +
         " (gpus=" + std::to_string(choice.gpu_count) +
         " max_gpus_per_socket=" + std::to_string(choice.most_gpus_on_one_socket) + ")";
}

}  // namespace gantry::resctrl
