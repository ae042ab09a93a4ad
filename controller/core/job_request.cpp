#include "controller/core/job_request.h"

#include <string>

namespace gantry::core {
namespace {

Status nonNegative(int64_t value, const char* option) {
  if (value < 0) return Error{std::string("invalid ") + option + ": " + std::to_string(value) + " is negative"};
  return okStatus();
}

}  // namespace

Result<select::Request> jobSpecToRequest(const v1::JobSpec& spec, const config::GantryConf& conf) {
  for (auto [value, option] : std::initializer_list<std::pair<int64_t, const char*>>{
           {spec.min_nodes(), "--nodes"},
           {spec.max_nodes(), "--nodes (maximum)"},
           {spec.ntasks(), "--ntasks"},
           {spec.ntasks_per_node(), "--ntasks-per-node"},
           {spec.cpus_per_task(), "--cpus-per-task"},
           {spec.gpus(), "--gpus"},
           {spec.gpus_per_node(), "--gpus-per-node"},
           {spec.gpus_per_socket(), "--gpus-per-socket"},
           {spec.gpus_per_task(), "--gpus-per-task"},
           {spec.cpus_per_gpu(), "--cpus-per-gpu"},
           {spec.core_spec(), "--core-spec"},
           {spec.thread_spec(), "--thread-spec"}}) {
    if (auto status = nonNegative(value, option); !status) return Error{status.error()};
  }
  if (spec.max_nodes() > 0 && spec.min_nodes() > spec.max_nodes()) {
    return Error{"invalid --nodes: minimum " + std::to_string(spec.min_nodes()) +
                 " is above maximum " + std::to_string(spec.max_nodes())};
  }
  select::Request request;
  request.minNodes = spec.min_nodes() > 0 ? spec.min_nodes() : 1;
  request.maxNodes = spec.max_nodes();
  request.ntasks = spec.ntasks() > 0 ? spec.ntasks() : 1;
  request.ntasksPerNode = spec.ntasks_per_node();
  request.cpusPerTask = spec.cpus_per_task() > 0 ? spec.cpus_per_task() : 1;
  request.memPerNodeMb = spec.mem_per_node_mb();
  request.memPerCpuMb = spec.mem_per_cpu_mb();
  // DefMemPerCPU/DefMemPerNode fill in only when the job names no memory at all.
  if (request.memPerNodeMb == 0 && request.memPerCpuMb == 0 && spec.mem_per_gpu_mb() == 0) {
    if (conf.defMemPerCpuMb > 0) request.memPerCpuMb = conf.defMemPerCpuMb;
    else if (conf.defMemPerNodeMb > 0) request.memPerNodeMb = conf.defMemPerNodeMb;
  }
  if (spec.mem_per_node_mb() > 0 && spec.mem_per_cpu_mb() > 0) {
    return Error{"--mem and --mem-per-cpu are mutually exclusive"};
  }
  for (const auto& gres : spec.gres()) {
    if (gres.name().empty()) return Error{"invalid --gres: an item has no name"};
    if (!conf.gresTypeConfigured(gres.name())) {
      return Error{"Invalid generic resource (gres) specification: " + gres.name() +
                   " is not in GresTypes"};
    }
    request.gresPerNode.push_back(select::GresRequest{
        .name = gres.name(), .type = gres.type(), .count = gres.count() > 0 ? gres.count() : 1});
  }
  request.gpus = spec.gpus();
  request.gpusPerNode = spec.gpus_per_node();
  request.gpusPerSocket = spec.gpus_per_socket();
  request.socketsPerNode = spec.sockets_per_node();
  request.gpusPerTask = spec.gpus_per_task();
  request.cpusPerGpu = spec.cpus_per_gpu();
  request.memPerGpuMb = spec.mem_per_gpu_mb();
  request.gpuType = spec.gpu_type();
  request.gpuFreq = spec.gpu_freq();
  bool enforceLinks = false, ignoreLinks = false;
  for (const auto& flag : spec.gres_flags()) {
    if (flag == "enforce-binding") request.enforceBinding = true;
    else if (flag == "enforce-links") enforceLinks = true;
    else if (flag == "ignore-links") ignoreLinks = true;
    else if (flag == "disable-binding") request.enforceBinding = false;
    else return Error{"invalid --gres-flags: " + flag};
  }
  if (enforceLinks && ignoreLinks) {
    return Error{"--gres-flags=enforce-links and ignore-links are mutually exclusive"};
  }
  request.links = enforceLinks ? select::LinkPolicy::Enforce
                               : (ignoreLinks ? select::LinkPolicy::Ignore : select::LinkPolicy::Prefer);
  request.exclusive = spec.exclusive();
  request.coreSpec = spec.core_spec();
  request.threadSpec = spec.thread_spec();
  if ((request.coreSpec > 0 || request.threadSpec > 0) && !conf.allowSpecResourcesUsage) {
    return Error{std::string(request.coreSpec > 0 ? "--core-spec" : "--thread-spec") +
                 " needs AllowSpecResourcesUsage=yes in gantry.conf"};
  }
  return request;
}

}  // namespace gantry::core
