#include "cli/job_fields.h"

#include <algorithm>
#include <cctype>

#include "common/hostlist/hostlist.h"

namespace gantry::cli {
namespace {

using gantry::v1::JobState;

struct StateNames {
  JobState state;
  const char* name;
  const char* compact;
};

constexpr StateNames kStates[] = {
    {gantry::v1::PENDING, "PENDING", "PD"},       {gantry::v1::CONFIGURING, "CONFIGURING", "CF"},
    {gantry::v1::RUNNING, "RUNNING", "R"},        {gantry::v1::SUSPENDED, "SUSPENDED", "S"},
    {gantry::v1::COMPLETING, "COMPLETING", "CG"}, {gantry::v1::COMPLETED, "COMPLETED", "CD"},
    {gantry::v1::FAILED, "FAILED", "F"},          {gantry::v1::CANCELLED, "CANCELLED", "CA"},
    {gantry::v1::TIMEOUT, "TIMEOUT", "TO"},       {gantry::v1::NODE_FAIL, "NODE_FAIL", "NF"},
};

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

bool hasNodes(JobState state) {
  return state == gantry::v1::RUNNING || state == gantry::v1::SUSPENDED ||
         state == gantry::v1::COMPLETING || state == gantry::v1::CONFIGURING;
}

}  // namespace

std::string jobStateName(JobState state) {
  for (const auto& entry : kStates) {
    if (entry.state == state) return entry.name;
  }
  return "UNKNOWN";
}

std::string jobStateCompact(JobState state) {
  for (const auto& entry : kStates) {
    if (entry.state == state) return entry.compact;
  }
  return "?";
}

std::string jobStateName(const gantry::v1::Job& job) {
  return job.stopped() && job.state() == gantry::v1::RUNNING ? "STOPPED" : jobStateName(job.state());
}

std::string jobStateCompact(const gantry::v1::Job& job) {
  return job.stopped() && job.state() == gantry::v1::RUNNING ? "ST" : jobStateCompact(job.state());
}

std::optional<JobState> parseJobState(const std::string& text) {
  std::string word = upper(text);
  for (const auto& entry : kStates) {
    if (word == entry.name || word == entry.compact) return entry.state;
  }
  return std::nullopt;
}

int64_t jobRunSeconds(const gantry::v1::Job& job, int64_t now) {
  if (job.start_time() == 0) return 0;
  if (job.state() == gantry::v1::SUSPENDED) return job.pre_suspend_seconds();
  if (job.state() == gantry::v1::PENDING) return 0;
  int64_t end = job.end_time() != 0 ? job.end_time() : now;
  // After a resume the clock restarts at the resume time on top of the
  // time run before the suspension.
  int64_t since = std::max(job.start_time(), job.suspend_time());
  return job.pre_suspend_seconds() + std::max<int64_t>(0, end - since);
}

int32_t jobNodeCount(const gantry::v1::Job& job) {
  if (job.allocation_size() > 0) return job.allocation_size();
  if (!job.node_list().empty()) {
    auto names = hostlist::expand(job.node_list());
    if (names && !names->empty()) return static_cast<int32_t>(names->size());
  }
  return std::max(job.spec().min_nodes(), 1);
}

int32_t jobCpuCount(const gantry::v1::Job& job) {
  int32_t allocated = 0;
  for (const auto& node : job.allocation()) allocated += node.cores_size();
  if (allocated > 0) return allocated;
  const auto& spec = job.spec();
  int32_t tasks = std::max(spec.ntasks(), 1);
  if (spec.ntasks() == 0 && spec.ntasks_per_node() > 0) {
    tasks = spec.ntasks_per_node() * std::max(spec.min_nodes(), 1);
  }
  return tasks * std::max(spec.cpus_per_task(), 1);
}

std::string jobTresPerNode(const gantry::v1::Job& job) {
  std::string out;
  auto append = [&out](const std::string& item) {
    if (!out.empty()) out += ",";
    out += item;
  };
  for (const auto& gres : job.spec().gres()) {
    std::string item = "gres/" + gres.name();
    if (!gres.type().empty()) item += ":" + gres.type();
    append(item + ":" + std::to_string(gres.count()));
  }
  if (job.spec().gpus_per_node() > 0) {
    std::string item = "gres/gpu";
    if (!job.spec().gpu_type().empty()) item += ":" + job.spec().gpu_type();
    append(item + ":" + std::to_string(job.spec().gpus_per_node()));
  }
  return out;
}

std::string jobReason(const gantry::v1::Job& job) {
  return job.reason().empty() ? "None" : job.reason();
}

std::string jobNodeListOrReason(const gantry::v1::Job& job) {
  if (hasNodes(job.state()) && !job.node_list().empty()) return job.node_list();
  if (job.state() == gantry::v1::PENDING || job.node_list().empty()) {
    return "(" + jobReason(job) + ")";
  }
  return job.node_list();
}

}  // namespace gantry::cli
