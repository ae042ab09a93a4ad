#include "cli/allocation_lines.h"

#include <vector>

namespace gantry::cli {
namespace {

// The CPUs a node grant holds: its CPUs, or its cores where the grant
// names whole cores only.
int cpusOf(const gantry::v1::NodeAllocation& grant) {
  return grant.cpus_size() > 0 ? grant.cpus_size() : grant.cores_size();
}

}  // namespace

std::string jobNodesLine(const gantry::v1::Job& job) {
  std::string line = "jobid " + std::to_string(job.job_id()) + ": nodes(" + std::to_string(job.allocation_size()) +
                     "):`" + job.node_list() + "', cpu counts: ";
  std::vector<std::pair<int, int>> runs;  // (cpus, nodes in a row with that many)
  for (const auto& grant : job.allocation()) {
    int cpus = cpusOf(grant);
    if (!runs.empty() && runs.back().first == cpus) {
      ++runs.back().second;
    } else {
      runs.emplace_back(cpus, 1);
    }
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    line += (i == 0 ? "" : ",") + std::to_string(runs[i].first) + "(x" + std::to_string(runs[i].second) + ")";
  }
  return line;
}

std::string stepLaunchLine(uint64_t jobId, const std::string& stepId, const std::string& nodeList, int nodes,
                           int tasks) {
  std::string taskIds = tasks <= 1 ? "0" : "0-" + std::to_string(tasks - 1);
  return "launching StepId=" + std::to_string(jobId) + "." + stepId + (nodes > 1 ? " on hosts " : " on host ") +
         nodeList + ", " + std::to_string(tasks) + " tasks: " + taskIds;
}

std::string nodesReadyLine(const gantry::v1::Job& job) { return "Nodes " + job.node_list() + " are ready for job"; }

}  // namespace gantry::cli
