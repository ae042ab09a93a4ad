// ControllerCore owns every piece of cluster state (jobs, nodes,
// partitions) and is its only writer. Every public method may be called from
// any thread: it posts the work onto the core's strand and reports through a
// callback, so no state is ever touched concurrently and no lock guards it.
//
// Nothing acknowledged is lost: a callback that reports success for a
// mutation runs only after the JobStore has made it durable. The strand never
// blocks: disk writes go through the store's writer thread, agent calls
// through the AgentGateway's threads.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/auth/identity.h"
#include "common/config/gantry_conf.h"
#include "common/util/clock.h"
#include "common/util/result.h"
#include "common/util/timer.h"
#include "controller/accounting/accounting_store.h"
#include "controller/core/accounting_journal.h"
#include "controller/core/agent_gateway.h"
#include "controller/core/fair_share.h"
#include "controller/core/priority.h"
#include "controller/core/core_state.h"
#include "controller/core/effects.h"
#include "controller/core/lifecycle.h"
#include "controller/core/node_accounting.h"
#include "controller/core/requested_nodes.h"
#include "controller/core/scheduling_pass.h"
#include "controller/core/switch_calls.h"
#include "controller/select/cluster.h"
#include "controller/store/job_store.h"
#include "controller/switch/switch_lifecycle.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::core {

struct PassScratch;  // scheduling.cpp

struct CoreOptions {
  // Owned by the caller; the core reads it on its strand and replaces its
  // contents only in reconfigure().
  config::GantryConf* conf = nullptr;
  const Clock* clock = nullptr;
  store::JobStore* store = nullptr;
  AgentGateway* agents = nullptr;
  // Periodic work and retries; null: real timers on the core's strand.
  TimerQueue* timers = nullptr;
  uint32_t slurmUserUid = 0;          // may act as administrator besides root
  int64_t keepFinishedSeconds = 300;  // MinJobAge: how long ended jobs stay listed
  // An allocation whose salloc/srun has not called KeepAllocation for this
  // long is ended (allocation_clients.cpp). The clients call every 2 s.
  int64_t allocationClientTimeoutSeconds = 10;
  std::chrono::milliseconds tick{500};
  // SwitchType=switch/lua: runs switch.lua's job_start/job_complete (each
  // in a process of its own in gantryctld); null: no switch plugin. With
  // it, `switchAnswers` are what the script answered when it was loaded.
  SwitchCalls* switchCalls = nullptr;
  SwitchScriptAnswers switchAnswers{};
  // Called on the core's strand after a node's drained TRES changed (a
  // command, a registration, State=RESUME), with the record now in force:
  // where accounting opens and closes its node event for a drained tracked
  // TRES. Must not block. Null: nothing is told.
  std::function<void(const std::string& node, const drain::DrainedTres& drained)> drainedTresChanged{};
  // AccountingStorageType: where job, step and node event records go, by
  // way of the state store's accounting journal. Null: accounting is off.
  accounting::AccountingStore* accounting = nullptr;
};

template <typename T>
using Reply = std::function<void(Result<T>)>;

class ControllerCore {
 public:
  ControllerCore(boost::asio::io_context& io, CoreOptions options);

  // Loads the store's snapshot and starts the periodic timer. Call once,
  // before any other method, from the thread that will run io.
  Status start();
  // Stops the periodic work and kills the switch/lua calls still running;
  // `stopped`, when given, runs on the strand once that is done (gantryctld
  // then stops the io_context: retries of unacknowledged node commands
  // would otherwise keep it running).
  void stop(std::function<void()> stopped = {});

  // Client API.
  void submitJob(v1::SubmitJobRequest request, auth::Identity caller,
                 Reply<v1::SubmitJobResponse> reply);
  void cancelJob(v1::CancelJobRequest request, auth::Identity caller,
                 Reply<v1::CancelJobResponse> reply);
  // Listings as `caller` may see them: never a script or an environment;
  // with PrivateData=jobs a plain user sees only their own jobs, with
  // PrivateData=nodes no nodes. The forms without a caller answer as an
  // administrator would be answered (in-process callers and tests).
  void listJobs(v1::ListJobsRequest request, auth::Identity caller, Reply<v1::ListJobsResponse> reply);
  void listJobs(v1::ListJobsRequest request, Reply<v1::ListJobsResponse> reply);
  // A job's batch script, for its owner, root and SlurmUser.
  void getBatchScript(v1::GetBatchScriptRequest request, auth::Identity caller,
                      Reply<v1::GetBatchScriptResponse> reply);
  void listNodes(v1::ListNodesRequest request, auth::Identity caller, Reply<v1::ListNodesResponse> reply);
  void listNodes(v1::ListNodesRequest request, Reply<v1::ListNodesResponse> reply);
  void listPartitions(v1::ListPartitionsRequest request, Reply<v1::ListPartitionsResponse> reply);
  // Secrets (AccountingStoragePass and the like) read "(hidden)" for users
  // other than root and SlurmUser.
  void getConfig(auth::Identity caller, Reply<v1::GetConfigResponse> reply);
  void getConfig(Reply<v1::GetConfigResponse> reply);
  void updateNode(v1::UpdateNodeRequest request, auth::Identity caller,
                  Reply<v1::UpdateNodeResponse> reply);
  // scontrol update TresName=... (or its JSON form): drains and resumes
  // devices, cores and amounts of the named nodes (drain_admin.cpp). For
  // root and SlurmUser; a refused request changes no node.
  void updateTres(v1::UpdateTresRequest request, auth::Identity caller, Reply<v1::UpdateTresResponse> reply);
  // scontrol show drainedtres: for everyone who may see nodes (not a plain
  // user under PrivateData=nodes).
  void listDrainedTres(v1::ListDrainedTresRequest request, auth::Identity caller,
                       Reply<v1::ListDrainedTresResponse> reply);
  enum class JobAction { Suspend, Resume, Hold, Release, Requeue };
  // jobId names a job, or a whole array by its array job id; arrayTasks
  // ("4", "1-3"; "" for all) narrows an array to those tasks.
  void jobAction(JobAction action, uint64_t jobId, std::string arrayTasks, auth::Identity caller, Reply<Ok> reply);
  // scontrol update JobId=: checked by job_update_rules.h, then (for a new
  // partition or node count) as a submission is; answered once stored.
  void updateJob(v1::UpdateJobRequest request, auth::Identity caller, Reply<Ok> reply);
  // sshare: each user's shares, usage and fair-share factor (priorities.cpp).
  void listShares(v1::ListSharesRequest request, auth::Identity caller, Reply<v1::ListSharesResponse> reply);

  // Agent API.
  void registerNode(v1::RegisterRequest request, Reply<v1::RegisterResponse> reply);
  void heartbeat(v1::HeartbeatRequest request, Reply<v1::HeartbeatResponse> reply);
  void stepComplete(v1::StepCompleteRequest request, Reply<v1::StepCompleteResponse> reply);

  bool isAdministrator(const auth::Identity& caller) const;

  // Runs one scheduling pass now and reports what it did (for benchmarks
  // and tests; the core also runs passes on its own).
  struct SchedulePassReport {
    size_t pending = 0;  // jobs the pass considered
    size_t started = 0;  // jobs it started
    size_t planned = 0;  // pending jobs with a planned start after it
  };
  // `depth` jobs at most (default_queue_depth, as an event's pass); by
  // default the whole queue, as the full pass, without giving the strand back.
  void schedulePass(Reply<SchedulePassReport> reply, size_t depth = SIZE_MAX);
  // Blocks until every accounting record of a durable persist is with the
  // accounting store's queue (tests, benchmarks, shutdown; any thread).
  void flushAccounting();

  // Applies a freshly loaded gantry.conf (reconfigure.cpp): partitions,
  // limits and node definitions change in place; new nodes are added.
  // Refused, keeping the running configuration, when a node would disappear
  // or a node in use would lose the CPUs or memory its jobs hold.
  void reconfigure(config::GantryConf fresh, Reply<Ok> reply);
  // The same, with switch.lua's answers as it was loaded again for this
  // reconfigure. Every running switch call is killed first and run again
  // under the new settings, as a restarted controller would (switch_lua.md,
  // "Restarts").
  void reconfigure(config::GantryConf fresh, SwitchScriptAnswers answers, Reply<Ok> reply);
  // Tells every registered, answering agent to re-read its configuration
  // (after a reconfigure of the controller). Answers once each agent did,
  // or after 20 s, with one line per agent that failed, could not be
  // reached or had not answered by then.
  void reconfigureNodes(Reply<std::vector<std::string>> reply);

  // Drains each named node with its reason (node -> reason): problems the
  // configuration has for a node whose agent cannot say so itself, such as
  // a gres.conf line for it that stops its agent. Registered nodes (their
  // agent runs on its previous configuration), nodes already drained for
  // that reason and unknown names are skipped.
  void drainForConfiguration(std::map<std::string, std::string> reasons);

  // Places a step inside a running job with Cluster::selectStep and starts
  // it on every node of the step. A suspended job answers "Job step creation
  // temporarily disabled, retrying"; a step whose --exclusive resources are
  // held by other steps answers "Requested nodes are busy": both NotNow, so
  // srun retries. Steps are part of the job's durable record.
  void createStep(v1::CreateStepRequest request, auth::Identity caller,
                  Reply<v1::CreateStepResponse> reply);
  // A step's state, as `caller` may see it: with PrivateData=jobs another
  // user's job does not exist for a plain user. The form without a caller
  // answers as an administrator would be answered.
  void getStep(v1::GetStepRequest request, auth::Identity caller, Reply<v1::GetStepResponse> reply);
  void getStep(v1::GetStepRequest request, Reply<v1::GetStepResponse> reply);
  // Ends a job that has no batch script (salloc, srun outside a job).
  void completeAllocation(v1::CompleteAllocationRequest request, auth::Identity caller,
                          Reply<v1::CompleteAllocationResponse> reply);

  // The salloc/srun holding allocation `job_id` is still there
  // (allocation_clients.cpp). Only the job's owner, root or SlurmUser.
  void keepAllocation(v1::KeepAllocationRequest request, auth::Identity caller,
                      Reply<v1::KeepAllocationResponse> reply);

  // Node commands (terminate, suspend, resume) not yet acknowledged by their
  // agents; for tests.
  void unacknowledgedNodeCommands(Reply<size_t> reply);

 private:
  // Runs f on the strand.
  template <typename F>
  void onStrand(F&& f) {
    boost::asio::post(strand_, std::forward<F>(f));
  }

  int64_t now() const;
  void reconfigure(config::GantryConf fresh, std::optional<SwitchScriptAnswers> answers, Reply<Ok> reply);
  LifecyclePolicy policy() const {
    return LifecyclePolicy{.jobRequeue = conf_.jobRequeue, .requeueDelaySec = conf_.requeueDelaySec};
  }
  // Applies an event to a job through the lifecycle and carries out what
  // follows; `persisted` runs once the change is durable.
  Result<Ok> applyJob(JobRecord& job, const JobEvent& event, std::function<void(const Status&)> persisted = {});
  void applyNode(NodeRecord& node, const NodeEvent& event);
  // Every job holding resources on a node that went away is requeued (or
  // ends NODE_FAIL).
  void loseJobsOn(NodeRecord& node, JobReason why);
  // The step part of a cancellation (CancelJobRequest.steps); refusals go
  // into `response`.
  void cancelSteps(const v1::CancelJobRequest& request, const auth::Identity& caller,
                   v1::CancelJobResponse& response);
  void noteStopOrContinue(JobRecord& job, int signal);
  // Job arrays (job_arrays.cpp). The records a request for job `id` acts
  // on: that job, or when `id` is an array's job id every record of the
  // array, or with `arrayTasks` ("4", "1-3") only those tasks, each
  // pending one split off its array's record first. NotFound when none;
  // `allowed`'s refusal (judged on one record: an array's records share
  // their owner) before anything is split.
  Result<std::vector<JobRecord*>> targetRecords(uint64_t id, const std::string& arrayTasks,
                                                const std::function<Status(const JobRecord&)>& allowed);
  // Task `index`, pending in `array` (the array's own record), as a record
  // of its own, stored; the array's record itself when it is the last.
  JobRecord& splitArrayTask(JobRecord& array, uint32_t index);
  // scontrol update's checks for one record (job_update.cpp): the job's
  // spec, time limit and dependency as the request would leave them.
  struct CheckedUpdate {
    v1::JobSpec spec;
    int64_t limit = 0;
    std::optional<Dependency> dependency;
  };
  Result<CheckedUpdate> checkedUpdate(const JobRecord& job, const v1::UpdateJobRequest& request,
                                      const auth::Identity& caller) const;
  // Priorities (priorities.cpp). Every PriorityCalcPeriod the running
  // jobs' use since the last time is charged to their owners and the
  // ledger decayed and stored.
  void startUsageLedger(const std::string& stored);
  void armPriorityCalc();
  void chargeUsage();
  // What every job's priority in one pass or listing shares, worked out
  // once: the weights, each user's fair share (every user with usage or
  // jobs the controller keeps) and the cluster's size.
  struct PriorityContext {
    int64_t now = 0;
    PriorityWeights weights;
    std::map<std::string, UsageLedger::Share> shares;
    int64_t clusterCpus = 1;
    int64_t clusterNodes = 1;
    uint32_t largestPartitionFactor = 0;
  };
  PriorityContext priorityContext() const;
  std::map<std::string, UsageLedger::Share> currentShares() const;
  // What the scheduler orders a pending job by: its admin-set priority,
  // else priority/multifactor's (parts filled when asked), else 0.
  uint32_t effectivePriority(const JobRecord& job, const PriorityContext& context,
                             PriorityParts* parts = nullptr) const;
  // How many of the array's tasks hold resources now (for its throttle).
  int activeArrayTasks(uint64_t arrayJobId) const;
  // The selection share group a job's allocation belongs to under the
  // running configuration (select::kUnshared when it may not share).
  int shareGroupFor(const JobRecord& job);

  void addConfiguredNode(const config::NodeConf& nodeConf);
  void recover(const store::Snapshot& snapshot);
  // The selection request of a job's (or, with NodeListUse::Step, a
  // step's) spec, its -w/-x names resolved through the node index.
  Result<select::Request> toSelectRequest(const v1::JobSpec& spec, NodeListUse use = NodeListUse::Job) const;
  // sbatch --test-only: where and when the job would start; changes nothing.
  v1::SubmitJobResponse testOnly(const select::Request& request, const select::PartitionView& view,
                                 const config::PartitionConf& partition);
  Result<const config::PartitionConf*> partitionFor(const v1::JobSpec& spec) const;
  // A --dependency or Dependency= text, parsed, naming only known jobs.
  Result<Dependency> checkedDependency(const std::string& text) const;
  Result<int64_t> effectiveTimeLimit(const v1::JobSpec& spec, const config::PartitionConf& partition) const;
  // Whether a job of this request could ever run in the partition: its
  // size against the partition's (partition_fit.h), then selection's
  // "never" (kNotAvailable). Never on refusal.
  Status checkEverRuns(const select::Request& request, const config::PartitionConf& partition) const;
  // Per-device drains (node_drains.cpp, drain_admin.cpp).
  struct ReconciledDrains {
    drain::DrainedTres record;
    std::vector<std::string> problems;  // the node is invalid or its order refused: drain it with these
    bool clearsOrderMismatch = false;
    std::vector<std::string> gres;      // the device GRES reconciled (their counts are judged here)
  };
  // The registration's other problems (registration_check.h, shared GRES
  // totals, CPUs and memory), given what the saved orders made of it.
  std::vector<std::string> registrationProblems(const NodeRecord& node, const v1::RegisterRequest& request,
                                                const ReconciledDrains& drains) const;
  // Each device GRES of a registration against the node's saved orders.
  ReconciledDrains reconcileRegistration(const NodeRecord& node, const v1::RegisterRequest& request) const;
  // After the node's record changed from `before`: MaxDrainedTres judged
  // (past it the node drains with the reason naming the TRES), selection
  // refreshed, the record stored and accounting told.
  void drainedTresChanged(NodeRecord& node, const drain::DrainedTres& before, bool layoutChanged);
  // The partition's schedulable nodes with anything drained, each as
  // "NAME DRAINEDTRES" (once per scheduling pass and partition).
  std::vector<std::string> degradedNodesOf(const select::PartitionView& view) const;
  // The reason a job that does not fit now waits for drained resources, or
  // "" when drains are not what keeps it (Resources then).
  std::string drainedWaitReason(const select::Request& request, const select::PartitionView& view,
                                const std::vector<std::string>& degraded) const;

  // Scheduling passes (scheduling.cpp, scheduling_pass.h).
  void requestSchedule();
  // An event's pass: the first default_queue_depth pending jobs.
  void schedule();
  // The pending jobs a pass tests, at most `depth`, in priority order.
  SchedulingPass beginPass(size_t depth);
  // Tests up to `budget` more jobs of the pass; true when it has tested all.
  bool runPass(SchedulingPass& pass, size_t budget);
  void testPendingJob(JobRecord& job, SchedulingPass& pass, PassScratch& scratch);
  // The periodic full pass: every bf_interval (sched/backfill) or
  // sched_interval, a slice at a time.
  void armFullPass();
  void continueFullPass();
  // A pass at `at` (a job's begin time); 0: none is needed.
  void armBeginTimer(int64_t at);
  // Keeps the highest device memory use a step reports, per node and region.
  void recordDmemPeaks(const v1::StepCompleteRequest& request);
  void armTick();
  void tick();
  void checkTimeLimits();
  void sendWarnSignal(JobRecord& job, int64_t now);
  void checkHeartbeats();
  void checkAllocationClients();
  void forgetOldJobs();

  // Gang scheduling (gang_driver.cpp). Enabled at start (a change needs a
  // restart); partitions follow reconfigure.
  bool gangActive() const { return gangSliceSeconds_ > 0; }
  // Makes the timeslicers match the partitions: a partition that became
  // timesliced (or whose nodes changed) gets one rebuilt from the jobs
  // holding resources there, waiting jobs first.
  void rebuildGangs();
  // Whether a job placed in its partition with `allocation` must start
  // suspended; admits it to the partition's rotation.
  bool admitToGang(const JobRecord& job, const select::Allocation& allocation);
  // The job stopped holding resources: it leaves its partition's rotation.
  void leaveGang(const JobRecord& job);
  CoreState::GangPartition* gangOf(const JobRecord& job);
  void applyGangChanges(const gang::GangChanges& changes);
  // Resumes the jobs let in once no suspend on their nodes is in flight.
  void resumeWaitingGangJobs();
  void armSlice();
  void sliceEnded();
  // scontrol suspend / resume of a job in a timesliced partition.
  Result<Ok> suspendByAdmin(JobRecord& job, std::function<void(const Status&)> persisted);
  Result<Ok> resumeByAdmin(JobRecord& job, std::function<void(const Status&)> persisted);

  // switch/lua (switch_driver.cpp). On when switchCalls is given and
  // SwitchType=switch/lua at start; a change of SwitchType needs a restart.
  bool switchActive() const { return switchActive_; }
  interconnect::SwitchSettings switchSettings() const;
  int64_t nowMs() const;
  // The job was placed CONFIGURING: its setup starts.
  void startSwitchSetup(JobRecord& job);
  // The job's run is over and `nodes` (those it had) are being released.
  void switchRunEnded(JobRecord& job, std::vector<std::string> nodes);
  void switchEvent(uint64_t jobId, const interconnect::SwitchEvent& event);
  void executeSwitch(uint64_t jobId, const interconnect::SwitchEffects& effects);
  void startSwitchCall(JobRecord& job, interconnect::CallId call, SwitchCallOrder order);
  void switchCallEnded(uint64_t jobId, interconnect::CallId call, SwitchCallOutcome outcome);
  void holdForSwitch(JobRecord& job, const std::vector<std::string>& nodes, bool hold);
  // The `job` argument of a call: the job as it was in the call's run.
  switchlua::SwitchJob switchJobOf(const JobRecord& job, const interconnect::SwitchCall* call) const;
  // Every record read back at start (or kept over a reconfigure) replays.
  void recoverSwitchRecords();
  // Every running call is killed; its record remembers it (Stopping).
  void stopSwitchCalls();
  void armSwitchCheck();
  void switchCheck();

  // Accounting (accounting_driver.cpp): null when AccountingStorageType is none.
  std::unique_ptr<AccountingJournal> makeAccountingJournal();
  // After recovery: what was last written for each job, and the node
  // events open in the store; node events are recorded from then on.
  void startAccounting();
  // Opens and closes the node's accounting events to match its state.
  void recordNodeEvents(const NodeRecord& node);

  // Steps (step_manager.cpp).
  void stepEndedOnNode(uint64_t jobId, uint32_t stepId, const std::string& node, int exitCode,
                       const std::string& message, std::vector<accounting::TaskUsageSample> usage = {});
  // Hook of stepComplete for numbered steps; true when it handled the report.
  bool numberedStepComplete(const v1::StepCompleteRequest& request);

  boost::asio::io_context& io_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  CoreOptions options_;
  config::GantryConf& conf_;
  std::unique_ptr<TimerQueue> ownTimers_;  // when the caller gave none
  TimerQueue* timers_ = nullptr;
  CoreState state_;
  std::unique_ptr<AccountingJournal> accountingJournal_;
  NodeEventBook nodeEvents_;
  bool nodeEventsAdopted_ = false;
  EffectExecutor executor_;
  TimerQueue::TimerId tickTimer_ = 0;
  TimerQueue::TimerId sliceTimer_ = 0;
  int gangSliceSeconds_ = 0;  // SchedulerTimeSlice when gang scheduling is on, else 0
  bool switchActive_ = false;
  SwitchScriptAnswers switchAnswers_;
  TimerQueue::TimerId switchCheckTimer_ = 0;
  // Calls whose report has not come back, by (job, call): the runner's
  // handle for a kill and which kind of report to expect.
  struct RunningSwitchCall {
    uint64_t handle = 0;
    bool setup = false;
  };
  std::map<std::pair<uint64_t, interconnect::CallId>, RunningSwitchCall> switchCallsRunning_;
  // The job as each setup call was given it, while that call may still
  // report: a late setup's teardown gets the same job (switch_lua.md).
  std::map<std::pair<uint64_t, interconnect::CallId>, switchlua::SwitchJob> setupSnapshots_;
  // The timer of each call's deadline (ArmTimeout), so a stopping
  // controller leaves none behind.
  std::map<std::pair<uint64_t, interconnect::CallId>, TimerQueue::TimerId> switchTimeouts_;
  bool scheduleRequested_ = false;
  std::optional<SchedulingPass> fullPass_;  // while the periodic full pass gives the strand back
  TimerQueue::TimerId fullPassTimer_ = 0;
  TimerQueue::TimerId beginTimer_ = 0;
  int64_t beginTimerAt_ = 0;
  // Changes of jobs and nodes (not a pass's own verdicts on pending jobs),
  // and reconfigurations: what a full pass that gave the strand back checks.
  uint64_t stateEpoch_ = 0;
  uint64_t configurations_ = 0;
  bool stopped_ = false;
  int64_t startTime_ = 0;
  UsageLedger usage_;
  std::map<uint64_t, int64_t> chargedRunSeconds_;  // by job: run seconds already charged to its owner
  TimerQueue::TimerId priorityTimer_ = 0;
};

}  // namespace gantry::core
