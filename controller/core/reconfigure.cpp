// ControllerCore::reconfigure: a new gantry.conf replaces the running one
// without a restart, or not at all.
#include <spdlog/spdlog.h>

#include "controller/core/controller_core.h"
#include "controller/core/job_request.h"
#include "controller/core/select_info.h"

namespace gantry::core {

void ControllerCore::reconfigure(config::GantryConf fresh, Reply<Ok> reply) {
  reconfigure(std::move(fresh), std::optional<SwitchScriptAnswers>{}, std::move(reply));
}

void ControllerCore::reconfigure(config::GantryConf fresh, SwitchScriptAnswers answers, Reply<Ok> reply) {
  reconfigure(std::move(fresh), std::optional<SwitchScriptAnswers>{answers}, std::move(reply));
}

void ControllerCore::reconfigure(config::GantryConf fresh, std::optional<SwitchScriptAnswers> answers,
                                 Reply<Ok> reply) {
  onStrand([this, fresh = std::move(fresh), answers, reply = std::move(reply)]() mutable {
    // Check everything before changing anything.
    for (const auto& node : state_.nodes) {
      const config::NodeConf* next = fresh.findNode(node.conf.name);
      if (next == nullptr) {
        return reply(Error{ErrorCode::NotNow, "node " + node.conf.name +
                                                  " is no longer configured; removing nodes needs a controller restart"});
      }
      if (!node.jobs.empty() && (next->cpus < node.allocCpus || next->realMemoryMb < node.allocMemoryMb)) {
        return reply(Error{ErrorCode::NotNow, "node " + node.conf.name +
                                                  " has jobs using more CPUs or memory than the new "
                                                  "configuration gives it"});
      }
    }
    if (fresh.select.crCpu != conf_.select.crCpu) {
      spdlog::warn("reconfigure: a change between CR_CPU and CR_Core takes effect after a restart");
    }
    // Gang scheduling's own settings are read at start, as Slurm's are; a
    // partition's OverSubscribe applies now (rebuildGangs below).
    if (fresh.gangScheduling() != conf_.gangScheduling() || fresh.schedulerType != conf_.schedulerType ||
        fresh.preemptMode != conf_.preemptMode) {
      spdlog::warn("reconfigure: SchedulerType/PreemptMode changed; gang scheduling stays {} until the controller "
                   "restarts (needs restart)",
                   gangActive() ? "on" : "off");
    }
    if (fresh.schedulerTimeSliceSec != conf_.schedulerTimeSliceSec) {
      spdlog::warn("reconfigure: SchedulerTimeSlice changed from {} to {} s; it needs restart to take effect",
                   conf_.schedulerTimeSliceSec, fresh.schedulerTimeSliceSec);
    }
    if (fresh.selectType != conf_.selectType) {
      spdlog::warn("reconfigure: SelectType changed; it needs restart to take effect");
    }
    if (fresh.switchType != conf_.switchType) {
      spdlog::warn("reconfigure: SwitchType changed from {} to {}; it needs restart to take effect",
                   conf_.switchType, fresh.switchType);
      fresh.switchType = conf_.switchType;
    }
    // switch/lua: the calls running now are killed before the new settings
    // apply, and run again under them, as after a restart (switch_lua.md,
    // "Restarts"); a refused reconfigure above killed nothing.
    if (switchActive()) stopSwitchCalls();
    conf_ = std::move(fresh);
    options_.keepFinishedSeconds = conf_.minJobAgeSeconds;
    if (switchActive()) {
      if (answers) switchAnswers_ = *answers;
      recoverSwitchRecords();
      if (switchCheckTimer_ != 0) timers_->cancel(switchCheckTimer_);
      armSwitchCheck();
    }
    for (const auto& nodeConf : conf_.nodes) {
      NodeRecord* node = state_.findNode(nodeConf.name);
      if (node == nullptr) {
        addConfiguredNode(nodeConf);
        executor_.refreshNode(state_.nodes.back(), false);
        continue;
      }
      node->conf = nodeConf;
      if (!node->registered) {
        node->addr = nodeConf.addr.empty() ? nodeConf.name : nodeConf.addr;
        node->port = nodeConf.port != 0 ? nodeConf.port : conf_.slurmdPort;
      }
      executor_.refreshNode(*node, true);
      // A MaxDrainedTres set or lowered now applies to what is drained now.
      drainedTresChanged(*node, node->drainedTres, false);
    }
    state_.rebuildPartitions();
    // A partition's new OverSubscribe applies to the jobs it runs now too:
    // their CPUs become shareable (or stop being) at once.
    for (auto& [id, job] : state_.jobs) {
      if (!job.holdsResources) continue;
      int group = shareGroupFor(job);
      if (group == job.allocation.owner.shareGroup) continue;
      executor_.releaseResources(job);
      job.allocation.owner.shareGroup = group;
      executor_.holdResources(job);
    }
    rebuildGangs();
    // A full pass under way ends; the next comes at the new interval.
    ++configurations_;
    if (fullPassTimer_ != 0) timers_->cancel(fullPassTimer_);
    fullPassTimer_ = 0;
    armFullPass();
    spdlog::info("reconfigure: {} nodes, {} partitions", conf_.nodes.size(), conf_.partitions.size());
    requestSchedule();
    reply(Ok{});
  });
}

namespace {

// How long `scontrol reconfigure` waits for the agents' answers; an agent
// that has not answered by then is named, and goes on re-reading.
constexpr auto kAgentAnswerWindow = std::chrono::seconds(20);

}  // namespace

void ControllerCore::reconfigureNodes(Reply<std::vector<std::string>> reply) {
  onStrand([this, reply = std::move(reply)]() mutable {
    // A node that is not registered or not answering reads its files when
    // its agent starts again; asking it would only wait for a timeout.
    std::vector<AgentAddress> targets;
    for (const auto& node : state_.nodes) {
      if (!node.registered || node.notResponding) continue;
      targets.push_back(AgentAddress{.node = node.conf.name, .addr = node.addr, .port = node.port});
    }
    if (targets.empty()) return reply(std::vector<std::string>{});
    // Touched on the strand only.
    struct Gathered {
      std::set<std::string> waiting;
      std::vector<std::string> problems;
      Reply<std::vector<std::string>> reply;
      TimerQueue::TimerId window = 0;
      bool answered = false;
    };
    auto gathered = std::make_shared<Gathered>();
    gathered->reply = std::move(reply);
    for (const auto& to : targets) gathered->waiting.insert(to.node);
    auto finish = [gathered] {
      if (gathered->answered) return;
      gathered->answered = true;
      for (const auto& node : gathered->waiting) {
        gathered->problems.push_back("node " + node + ": did not answer within " +
                                     std::to_string(kAgentAnswerWindow.count()) + " s");
      }
      gathered->reply(std::move(gathered->problems));
    };
    gathered->window = timers_->after(kAgentAnswerWindow, [this, finish] { onStrand(finish); });
    for (const auto& to : targets) {
      options_.agents->reconfigure(to, [this, gathered, finish, node = to.node](const Status& answer) {
        onStrand([this, gathered, finish, node, answer] {
          if (gathered->answered || gathered->waiting.erase(node) == 0) return;
          if (!answer) gathered->problems.push_back("node " + node + ": " + answer.error());
          if (!gathered->waiting.empty()) return;
          timers_->cancel(gathered->window);
          finish();
        });
      });
    }
  });
}

}  // namespace gantry::core
