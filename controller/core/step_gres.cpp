#include "controller/core/step_gres.h"

#include <algorithm>

namespace gantry::core {

namespace {

bool holdsNodesWhole(const JobRecord& job) {
  return job.spec.exclusive() ||
         std::any_of(job.allocation.nodes.begin(), job.allocation.nodes.end(),
                     [](const select::NodeGrant& grant) { return grant.wholeNode; });
}

}  // namespace

bool asksForGres(const v1::JobSpec& spec) {
  return spec.gres_size() > 0 || spec.gpus() > 0 || spec.gpus_per_node() > 0 || spec.gpus_per_socket() > 0 ||
         spec.gpus_per_task() > 0;
}

v1::JobSpec withJobGresRequest(v1::JobSpec step, const JobRecord& job) {
  if (asksForGres(step) || !asksForGres(job.spec) || !holdsNodesWhole(job)) return step;
  *step.mutable_gres() = job.spec.gres();
  step.set_gpus(job.spec.gpus());
  step.set_gpus_per_node(job.spec.gpus_per_node());
  step.set_gpus_per_socket(job.spec.gpus_per_socket());
  step.set_gpus_per_task(job.spec.gpus_per_task());
  step.set_gpu_type(job.spec.gpu_type());
  return step;
}

void dropImplicitGres(const v1::JobSpec& step, const JobRecord& job, select::Allocation& allocation) {
  if (asksForGres(step) || asksForGres(job.spec)) return;
  for (auto& grant : allocation.nodes) {
    grant.devices.clear();
    grant.shares.clear();
    grant.countGres.clear();
  }
}

}  // namespace gantry::core
