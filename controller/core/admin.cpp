// ControllerCore's user and administrator actions: cancel, node updates,
// hold/release and suspend/resume.
#include "controller/core/controller_core.h"

#include <csignal>

#include "common/hostlist/hostlist.h"

namespace gantry::core {

// ---------------------------------------------------------------- cancel and admin

void ControllerCore::cancelJob(v1::CancelJobRequest request, auth::Identity caller,
                               Reply<v1::CancelJobResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller),
            reply = std::move(reply)]() mutable {
    v1::CancelJobResponse response;
    std::vector<uint64_t> ids(request.job_ids().begin(), request.job_ids().end());
    if (ids.empty() && !request.user().empty()) {
      for (const auto& [id, entry] : jobs_) {
        if (entry.job.user() == request.user() && !isTerminal(entry.job.state())) ids.push_back(id);
      }
    }
    std::vector<uint64_t> changed;
    for (uint64_t id : ids) {
      auto found = jobs_.find(id);
      if (found == jobs_.end()) {
        response.add_errors("Kill job error on job id " + std::to_string(id) + ": Invalid job id specified");
        continue;
      }
      JobEntry& entry = found->second;
      if (entry.job.uid() != caller.uid && !isAdministrator(caller)) {
        response.add_errors("Kill job error on job id " + std::to_string(id) +
                            ": Access/permission denied");
        continue;
      }
      if (isTerminal(entry.job.state())) {
        response.add_errors("Kill job error on job id " + std::to_string(id) +
                            ": Job/step already completing or completed");
        continue;
      }
      if (request.signal() != 0) {
        for (const auto& alloc : entry.job.allocation()) {
          if (NodeEntry* node = findNode(alloc.node())) {
            options_.agents->signalJob(addressOf(*node), id, request.signal(), {});
          }
        }
        continue;
      }
      bool running = entry.job.state() != v1::PENDING;
      endJob(entry, v1::CANCELLED, "None", 0, running ? SIGTERM : 0);
      changed.push_back(id);
    }
    if (changed.empty()) return reply(std::move(response));
    // Answer once the cancellations are durable: flush ordering is FIFO, so
    // waiting for a no-op save of the last job covers every earlier one.
    auto shared = std::make_shared<v1::CancelJobResponse>(std::move(response));
    persist(jobs_.at(changed.back()), [shared, reply = std::move(reply)](const Status& status) {
      if (!status) return reply(Error{"cannot store the cancellation: " + status.error()});
      reply(std::move(*shared));
    });
  });
}

void ControllerCore::updateNode(v1::UpdateNodeRequest request, auth::Identity caller,
                                Reply<v1::UpdateNodeResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller),
            reply = std::move(reply)]() mutable {
    if (!isAdministrator(caller)) {
      return reply(Error{"Access/permission denied: node updates are for root or SlurmUser"});
    }
    auto names = hostlist::expand(request.node_names());
    if (!names) return reply(Error{names.error()});
    std::string state = request.state();
    for (auto& c : state) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (state != "DOWN" && state != "DRAIN" && state != "RESUME" && state != "IDLE" &&
        state != "UNDRAIN") {
      return reply(Error{"Invalid node state specified: " + request.state() +
                         " (use DOWN, DRAIN, RESUME, IDLE or UNDRAIN)"});
    }
    if ((state == "DOWN" || state == "DRAIN") && request.reason().empty()) {
      return reply(Error{"You must specify a reason when changing a node's state to " + state});
    }
    std::vector<NodeEntry*> targets;
    for (const auto& name : *names) {
      NodeEntry* node = findNode(name);
      if (node == nullptr) return reply(Error{"Invalid node name specified: " + name});
      targets.push_back(node);
    }
    if (targets.empty()) return reply(Error{"no node names given"});
    for (NodeEntry* node : targets) {
      if (state == "RESUME" || state == "IDLE" || state == "UNDRAIN") {
        node->adminState.clear();
        node->reason.clear();
        node->registrationErrors.clear();
      } else {
        node->adminState = state;
        node->reason = request.reason();
      }
      node->reasonUser = caller.user;
      node->reasonTime = now();
      refreshSelectAvailability(*node);
      if (state == "DOWN") {
        for (uint64_t id : std::set<uint64_t>(node->jobs)) {
          auto found = jobs_.find(id);
          if (found != jobs_.end() && !isTerminal(found->second.job.state())) {
            for (const auto& alloc : found->second.job.allocation()) {
              if (NodeEntry* n = findNode(alloc.node())) {
                options_.agents->terminateJob(addressOf(*n), id, {});
              }
            }
            requeueJob(found->second, "Node " + node->conf.name + " set DOWN");
          }
        }
      }
    }
    for (size_t i = 0; i < targets.size(); ++i) {
      NodeEntry* node = targets[i];
      store::NodeAdminState admin{.name = node->conf.name, .state = node->adminState,
                                  .reason = node->reason, .user = node->reasonUser,
                                  .reasonTime = node->reasonTime};
      bool last = i + 1 == targets.size();
      options_.store->saveNode(admin, last ? std::function<void(const Status&)>(
                                                 [reply](const Status& status) {
                                                   if (!status) return reply(Error{status.error()});
                                                   reply(v1::UpdateNodeResponse{});
                                                 })
                                           : nullptr);
    }
    requestSchedule();
  });
}

void ControllerCore::jobAction(JobAction action, uint64_t jobId, auth::Identity caller,
                               Reply<Ok> reply) {
  onStrand([this, action, jobId, caller = std::move(caller), reply = std::move(reply)]() mutable {
    auto found = jobs_.find(jobId);
    if (found == jobs_.end()) return reply(Error{"Invalid job id specified: " + std::to_string(jobId)});
    JobEntry& entry = found->second;
    v1::Job& job = entry.job;
    bool owner = job.uid() == caller.uid;
    switch (action) {
      case JobAction::Hold:
      case JobAction::Release: {
        if (!owner && !isAdministrator(caller)) return reply(Error{"Access/permission denied"});
        if (job.state() != v1::PENDING) return reply(Error{"Job is no longer pending execution"});
        bool hold = action == JobAction::Hold;
        job.mutable_spec()->set_hold(hold);
        job.set_reason(hold ? (isAdministrator(caller) && !owner ? "JobHeldAdmin" : "JobHeldUser")
                            : "None");
        break;
      }
      case JobAction::Suspend:
      case JobAction::Resume: {
        if (!isAdministrator(caller)) return reply(Error{"Access/permission denied: suspend and resume are for root or SlurmUser"});
        bool suspend = action == JobAction::Suspend;
        if (suspend && job.state() != v1::RUNNING) return reply(Error{"Job is not running"});
        if (!suspend && job.state() != v1::SUSPENDED) return reply(Error{"Job is not suspended"});
        for (const auto& alloc : job.allocation()) {
          if (NodeEntry* node = findNode(alloc.node())) {
            if (suspend) {
              options_.agents->suspendJob(addressOf(*node), jobId, {});
            } else {
              options_.agents->resumeJob(addressOf(*node), jobId, {});
            }
          }
        }
        // Suspended jobs keep their resources; only the clock stops.
        if (suspend) {
          job.set_pre_suspend_seconds(job.pre_suspend_seconds() + now() - job.start_time());
          job.set_suspend_time(now());
          job.set_state(v1::SUSPENDED);
        } else {
          job.set_start_time(now());
          job.set_state(v1::RUNNING);
        }
        break;
      }
    }
    persist(entry, [reply = std::move(reply)](const Status& status) {
      if (!status) return reply(Error{status.error()});
      reply(Ok{});
    });
    requestSchedule();
  });
}

}  // namespace gantry::core
