// ControllerCore's agents: what registrations, heartbeats and step reports
// change. The node's own transitions are in lifecycle.cpp; here they are
// fed and tied to the jobs on the node.
#include "controller/core/controller_core.h"

#include <algorithm>

#include "common/gres/shared.h"
#include "controller/core/core_helpers.h"
#include "controller/core/select_info.h"
#include "controller/drain/registration_check.h"
#include "controller/rpc/views.h"

namespace gantry::core {

std::vector<accounting::TaskUsageSample> detail::usageSamplesOf(const v1::StepCompleteRequest& request) {
  std::vector<accounting::TaskUsageSample> samples;
  samples.reserve(static_cast<size_t>(request.task_usage_size()));
  for (const auto& task : request.task_usage()) samples.push_back(views::taskUsageFromWire(request.node_name(), task));
  return samples;
}

std::vector<std::string> ControllerCore::registrationProblems(const NodeRecord& node,
                                                              const v1::RegisterRequest& request,
                                                              const ReconciledDrains& drains) const {
  // GRES against gantry.conf (short counts, chunk layouts) plus what the
  // agent found wrong itself.
  drain::RegistrationInput gresCheck{.configured = node.conf.gres,
                                     .configOverrides = conf_.configOverrides,
                                     .registered = {},
                                     .countedByOrder = drains.gres,
                                     .agentErrors = {request.errors().begin(), request.errors().end()}};
  for (const auto& device : request.hardware().gres()) {
    gresCheck.registered.push_back(drain::RegisteredGres{
        .name = device.name(),
        .type = device.type(),
        .files = device.files_size(),
        .count = device.count(),
        .chunkSizes = {device.chunk_sizes().begin(), device.chunk_sizes().end()},
        .chunkOrder = {device.chunk_order().begin(), device.chunk_order().end()}});
  }
  std::vector<std::string> problems = drain::registrationDrainReasons(gresCheck);
  // Per-GPU shard/mps counts against the node's Gres= totals.
  std::vector<gres::ConfiguredGres> configuredShared;
  for (const auto& configured : node.conf.gres) {
    if (gres::isSharedGresName(configured.name)) {
      configuredShared.push_back({.name = configured.name, .type = configured.type, .count = configured.count});
    }
  }
  NodeRecord registered = node;
  registered.hardware = request.hardware();
  registered.hardwareKnown = true;
  registered.drainedTres = drains.record;
  // With an absent device in a saved order the shares it offered are absent
  // too; its empty slot is drained and judged there, not here.
  bool emptySlot = std::any_of(drains.record.savedOrders.begin(), drains.record.savedOrders.end(),
                               [](const drain::SavedOrder& order) {
                                 return std::any_of(order.slots.begin(), order.slots.end(),
                                                    [](const drain::SavedSlot& slot) { return !slot.present; });
                               });
  if (auto shared = gres::checkSharedTotals(selectInfoFor(registered).devices, configuredShared);
      !shared && !emptySlot) {
    problems.push_back(shared.error());
  }
  // Detected hardware below what gantry.conf promises drains the node,
  // unless SlurmdParameters=config_overrides makes the configuration stand.
  if (!conf_.configOverrides) {
    const auto& hw = request.hardware();
    if (hw.cpus() > 0 && hw.cpus() < node.conf.cpus) {
      problems.push_back("Low CPUs: configured " + std::to_string(node.conf.cpus) + ", found " +
                         std::to_string(hw.cpus()));
    }
    if (hw.real_memory_mb() > 0 && hw.real_memory_mb() < node.conf.realMemoryMb) {
      problems.push_back("Low RealMemory: configured " + std::to_string(node.conf.realMemoryMb) + "MB, found " +
                         std::to_string(hw.real_memory_mb()) + "MB");
    }
  }
  return problems;
}

void ControllerCore::drainForConfiguration(std::map<std::string, std::string> reasons) {
  onStrand([this, reasons = std::move(reasons)] {
    for (const auto& [name, reason] : reasons) {
      NodeRecord* node = state_.findNode(name);
      // A registered agent keeps its previous configuration on a bad reload
      // and goes on working: only nodes whose agent could not start drain.
      if (node == nullptr || node->registered) continue;
      if (node->admin == NodeAdminState::Drain && node->reason == reason) continue;
      applyNode(*node, node_event::Drain{reason});
    }
  });
}

void ControllerCore::registerNode(v1::RegisterRequest request, Reply<v1::RegisterResponse> reply) {
  onStrand([this, request = std::move(request), reply = std::move(reply)] {
    NodeRecord* node = state_.findNode(request.node_name());
    if (node == nullptr) {
      return reply(Error{ErrorCode::NotFound, "node " + request.node_name() + " is not in gantry.conf"});
    }
    // Device GRES first, against their saved orders: an absent device is
    // drained at its index rather than the whole node (gres.md).
    ReconciledDrains drains = reconcileRegistration(*node, request);
    std::vector<std::string> problems = registrationProblems(*node, request, drains);
    problems.insert(problems.end(), drains.problems.begin(), drains.problems.end());
    drain::DrainedTres before = node->drainedTres;
    applyNode(*node, node_event::Registered{.addr = request.addr(),
                                            .port = request.port(),
                                            .hardware = request.hardware(),
                                            .problems = std::move(problems),
                                            .drains = std::move(drains.record),
                                            .clearsOrderMismatch = drains.clearsOrderMismatch,
                                            .agentStartTime = request.boot_time()});
    drainedTresChanged(*node, before, false);

    // Jobs we believe run here but the agent does not have were lost with
    // the node (or never reached it): requeue them. Steps the agent runs for
    // jobs we do not know as running here are orphans: the agent ends them.
    std::set<uint64_t> reported;
    for (const auto& step : request.running()) reported.insert(step.job_id());
    for (uint64_t id : std::set<uint64_t>(node->jobs)) {
      JobRecord* job = state_.findJob(id);
      // Allocations without a script (salloc, srun) have no batch step to
      // lose, nor has a gang job allocated suspended and not launched yet,
      // nor a job still CONFIGURING (its switch setup runs; nothing was sent).
      if (job == nullptr || job->launchInFlight || job->launchDeferred || job->batchHost() != node->conf.name ||
          !job->isBatch() || job->state == JobState::Configuring)
        continue;
      if (!isEnded(job->state) && reported.count(id) == 0) {
        (void)applyJob(*job, job_event::NodeLost{node->conf.name, JobReason::BatchStepLost});
      }
    }
    v1::RegisterResponse response;
    for (uint64_t id : reported) {
      const JobRecord* job = state_.findJob(id);
      if (job == nullptr || isEnded(job->state) || node->jobs.count(id) == 0) response.add_orphan_jobs(id);
    }
    reply(std::move(response));
  });
}

void ControllerCore::heartbeat(v1::HeartbeatRequest request, Reply<v1::HeartbeatResponse> reply) {
  onStrand([this, request = std::move(request), reply = std::move(reply)] {
    v1::HeartbeatResponse response;
    NodeRecord* node = state_.findNode(request.node_name());
    if (node == nullptr) {
      return reply(Error{ErrorCode::NotFound, "node " + request.node_name() + " is not in gantry.conf"});
    }
    if (!node->registered) {
      response.set_reregister(true);
      return reply(std::move(response));
    }
    applyNode(*node, node_event::HeartbeatSeen{{request.drain_reasons().begin(), request.drain_reasons().end()}});
    for (const auto& step : request.running()) {
      const JobRecord* job = state_.findJob(step.job_id());
      if (job == nullptr || isEnded(job->state) || node->jobs.count(step.job_id()) == 0) {
        response.add_orphan_jobs(step.job_id());
      }
    }
    reply(std::move(response));
  });
}

void ControllerCore::recordDmemPeaks(const v1::StepCompleteRequest& request) {
  JobRecord* job = state_.findJob(request.job_id());
  if (job == nullptr) return;
  for (const auto& [region, bytes] : request.dmem_peak_bytes()) {
    uint64_t& peak = job->dmemPeakBytes[request.node_name() + ":" + region];
    peak = std::max(peak, bytes);
  }
}

void ControllerCore::stepComplete(v1::StepCompleteRequest request, Reply<v1::StepCompleteResponse> reply) {
  onStrand([this, request = std::move(request), reply = std::move(reply)] {
    recordDmemPeaks(request);
    if (numberedStepComplete(request)) {
      // Acknowledged once stored: the agent repeats an unacknowledged report.
      JobRecord* job = state_.findJob(request.job_id());
      if (job == nullptr) return reply(v1::StepCompleteResponse{});
      return executor_.persistJob(*job, [reply](const Status& status) {
        if (!status) return reply(Error{ErrorCode::Internal, status.error()});
        reply(v1::StepCompleteResponse{});
      });
    }
    JobRecord* job = state_.findJob(request.job_id());
    // Reports are retried until acknowledged, so a repeat (or a report for a
    // job that already ended, or for another run of a requeued job) is
    // simply acknowledged.
    if (job == nullptr || request.step_id() != "batch" || job->batchHost() != request.node_name()) {
      return reply(v1::StepCompleteResponse{});
    }
    // The batch step of an earlier run, stopped by a requeue, that ran on
    // this run's node: it started before the requeue, so it is not this
    // run's end. Times are whole seconds (and the agent's clock), so a run
    // requeued within the second its step started is not told apart.
    if (job->restartCount > 0 && request.start_time() > 0 && request.start_time() < job->requeueTime) {
      return reply(v1::StepCompleteResponse{});
    }
    if (isEnded(job->state)) {
      // Ended first (cancelled, timed out): the report still brings what the
      // batch step used, once.
      if (!job->batchUsage.empty() || request.task_usage_size() == 0) return reply(v1::StepCompleteResponse{});
      job->batchUsage = detail::usageSamplesOf(request);
      return executor_.persistJob(*job, [reply](const Status& status) {
        if (!status) return reply(Error{ErrorCode::Internal, status.error()});
        reply(v1::StepCompleteResponse{});
      });
    }
    job->batchUsage = detail::usageSamplesOf(request);
    auto applied = applyJob(*job,
                            job_event::BatchEnded{.exitCode = request.exit_code(),
                                                  .signal = request.term_signal(),
                                                  .message = request.message(),
                                                  .endTime = request.end_time()},
                            [reply](const Status& status) {
                              if (!status) return reply(Error{ErrorCode::Internal, status.error()});
                              reply(v1::StepCompleteResponse{});
                            });
    if (!applied) reply(v1::StepCompleteResponse{});
  });
}

}  // namespace gantry::core
