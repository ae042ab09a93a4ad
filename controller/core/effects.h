// The EffectExecutor carries out what the lifecycle decided. It is the only
// code that touches the store, the agent gateway and the selection Cluster
// on the core's behalf.
//
// Node-bound work that must happen (terminate, which runs the Epilog;
// suspend; resume) is retried with a growing delay until the agent
// acknowledges it. Only the newest command for a job on a node is retried:
// a resume supersedes a pending suspend, and a new start of the job there
// (a requeued job placed again) supersedes a pending terminate.
//
// Threading: every method runs on the core's strand. Answers from the store
// and the gateway arrive on their own threads and are posted back.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>

#include "common/util/result.h"
#include "common/util/timer.h"
#include "controller/core/accounting_journal.h"
#include "controller/core/agent_gateway.h"
#include "controller/core/core_state.h"
#include "controller/core/lifecycle.h"
#include "controller/store/job_store.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::core {

class EffectExecutor {
 public:
  struct Hooks {
    // Runs work on the core's strand.
    std::function<void(std::function<void()>)> post;
    // Feeds a job event back into the lifecycle (launch answers, a start
    // that could not be stored).
    std::function<void(uint64_t, JobEvent)> jobEvent;
    // Feeds a node event back into the lifecycle (a drain a job's launch
    // failure asked for).
    std::function<void(const std::string&, NodeEvent)> nodeEvent;
    // An interactive step could not start on a node.
    std::function<void(uint64_t job, uint32_t step, const std::string& node, const std::string& why)> stepNotStarted;
    // Asks for a scheduling pass soon.
    std::function<void()> schedule;
    // A suspend command left the queue of unacknowledged ones (acknowledged,
    // superseded, or its node is gone): resumes waiting for it may go.
    std::function<void()> suspendSettled;
    // The core's clock (unix seconds), for the times kept on node records.
    std::function<int64_t()> now;
  };

  EffectExecutor(CoreState& state, store::JobStore& store, AgentGateway& agents, TimerQueue& timers, Hooks hooks);

  // Carries the effects out in order. `persisted`, when given, runs once the
  // last PersistJob of the list is durable (or failed): RPC answers wait for it.
  void execute(const Effects& effects, std::function<void(const Status&)> persisted = {});

  // Marks a job's allocation used in the Cluster and on its nodes; used by
  // recovery at start as well as by HoldResources.
  void holdResources(JobRecord& job);
  void releaseResources(JobRecord& job);
  // Refreshes a node's selection view; with `hardwareChanged` its devices
  // are rebuilt from the record and the allocations held there laid on them
  // again, so nothing held is lost or given twice.
  void refreshNode(NodeRecord& node, bool hardwareChanged);
  void persistJob(const JobRecord& job, std::function<void(const Status&)> done = {});
  void persistNode(const NodeRecord& node, std::function<void(const Status&)> done = {});
  // Starts an interactive step (srun) on each node of its allocation.
  void launchInteractive(const JobRecord& job, const StepRecord& step, const v1::CreateStepRequest& request);

  // Accounting: each persist of a job journals the records that changed.
  // Null (the default): accounting is off.
  void setAccountingJournal(AccountingJournal* journal) { journal_ = journal; }

  // Node commands not yet acknowledged, for tests and diagnostics.
  size_t unacknowledged() const { return latest_.size(); }
  // Suspend commands to the node not yet acknowledged. Gang scheduling
  // resumes a job only once its nodes have none, so two jobs sharing
  // resources never run at the same moment.
  int suspendsInFlight(const std::string& node) const;

 private:
  enum class Command { Terminate, Suspend, Resume };
  void toNodes(Command command, uint64_t job, const std::vector<std::string>& nodes);
  void send(Command command, uint64_t job, const std::string& node, uint64_t sequence, int attempt);
  void launch(uint64_t job);
  void launchBatch(JobRecord& job);
  void launchExtern(JobRecord& job);
  // Forgets unacknowledged commands for a job (it starts again somewhere).
  void supersede(uint64_t job);

  CoreState& state_;
  store::JobStore& store_;
  AgentGateway& agents_;
  TimerQueue& timers_;
  Hooks hooks_;
  AccountingJournal* journal_ = nullptr;
  uint64_t nextSequence_ = 1;
  struct Pending {
    uint64_t sequence = 0;
    Command command = Command::Terminate;
  };
  using PendingMap = std::map<std::pair<uint64_t, std::string>, Pending>;
  // Records the newest command for (job, node), replacing an older one.
  void remember(uint64_t job, const std::string& node, Pending pending);
  PendingMap::iterator forget(PendingMap::iterator entry);

  PendingMap latest_;                            // (job, node) -> newest command
  std::map<std::string, int> suspendsInFlight_;  // node -> suspends in latest_
};

}  // namespace gantry::core
