// The job and node lifecycles as pure functions: a record, an event and the
// time in; the record changed and the effects that must follow out. No I/O,
// no clock, no threads: the EffectExecutor (effects.h) carries the effects
// out, and tests drive every transition from a table.
//
// What a transition may not do is refused with the record unchanged and an
// Error whose kind says why (NotNow for a state that does not allow it,
// Denied for a caller who may not).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/util/result.h"
#include "controller/core/agent_gateway.h"
#include "controller/core/records.h"

namespace gantry::core {

// ---------------------------------------------------------------- effects

// Make the job's record durable. The first effect of every transition that
// changes a job.
struct PersistJob { uint64_t job = 0; };
// Mark the job's allocation used (or free) in the selection Cluster and on
// its nodes' records.
struct HoldResources { uint64_t job = 0; };
struct ReleaseResources { uint64_t job = 0; };
// Once the RUNNING record is durable, start the batch step (and the extern
// steps of PrologFlags=Contain) on the job's nodes.
struct LaunchJob { uint64_t job = 0; };
// Node-bound work that must happen: retried until each agent acknowledges.
// Terminating ends the job's steps there and runs the Epilog.
struct TerminateOnNodes { uint64_t job = 0; std::vector<std::string> nodes; };
struct SuspendOnNodes { uint64_t job = 0; std::vector<std::string> nodes; };
struct ResumeOnNodes { uint64_t job = 0; std::vector<std::string> nodes; };
// A user signal for the job's steps; best effort, like scancel -s.
struct SignalOnNodes {
  uint64_t job = 0;
  std::vector<std::string> nodes;
  int signal = 0;
  SignalScope scope = SignalScope::Steps;
  std::string step;  // non-empty: that step's tasks only
};
// Take the node out of service with a reason (a launch that failed there).
struct DrainNode { std::string node; std::string reason; };
// Make the node's administrative state durable.
struct PersistNode { std::string node; };
// The node's schedulability or hardware changed: refresh its selection view.
struct RefreshNode { std::string node; bool hardwareChanged = false; };
// Something was freed or became eligible: run a scheduling pass soon.
struct Schedule {};

using Effect = std::variant<PersistJob, HoldResources, ReleaseResources, LaunchJob, TerminateOnNodes,
                            SuspendOnNodes, ResumeOnNodes, SignalOnNodes, DrainNode, PersistNode,
                            RefreshNode, Schedule>;
using Effects = std::vector<Effect>;

// ---------------------------------------------------------------- job events

namespace job_event {
// The selection placed the pending job.
struct Placed {
  select::Allocation allocation;
  std::vector<std::string> nodeNames;  // in grant order
  // Gang scheduling: the job overlaps the partition's active set, so it is
  // allocated SUSPENDED and launched at its first resume.
  bool startSuspended = false;
  // switch/lua sets the job's interconnect up first: the job holds its
  // resources CONFIGURING until SwitchConfigured or SwitchSetupFailed.
  bool configureNetwork = false;
};
// switch/lua: slurm_switch_job_start() succeeded. The job starts (or waits
// suspended for its gang turn, when the timeslicer said so meanwhile).
struct SwitchConfigured {};
// switch/lua: the setup failed or timed out. A batch job that may be
// requeued goes back to PENDING; any other job is cancelled with `reason`.
struct SwitchSetupFailed { std::string reason; };
// A pending job stays pending, for this reason.
struct StillPending { JobReason reason = JobReason::Resources; std::string detail; };
// The scheduler checked the pending job's --dependency (dependency.h):
// `remaining` replaces what was left of it. Never ends the job CANCELLED
// when `cancelIfNever` (SchedulerParameters=kill_invalid_depend); otherwise
// it waits with reason DependencyNeverSatisfied until updated or cancelled.
struct DependencyChecked {
  Dependency remaining;
  DependencyVerdict verdict = DependencyVerdict::Wait;
  bool cancelIfNever = false;
};
// The batch launch was answered.
struct LaunchAnswered { bool ok = true; std::string error; };
// The record saying RUNNING could not be stored; the job goes back.
struct StartNotStored { std::string error; };
// The batch script ended on its node.
struct BatchEnded { int exitCode = 0; int signal = 0; std::string message; int64_t endTime = 0; };
// A salloc/srun allocation was given back.
struct AllocationCompleted { int exitCode = 0; };
struct Cancelled {
  std::optional<uint32_t> byUid;  // who asked ("CANCELLED by UID")
};
struct TimeLimitReached {};
// The salloc/srun holding an allocation stopped calling KeepAllocation.
struct ClientGone {};
// A node of the job was lost: stopped answering, set DOWN by an
// administrator, or restarted without the batch step.
struct NodeLost { std::string node; JobReason why = JobReason::NodeNotResponding; };
// scontrol suspend / resume. An administrator's suspension is never undone
// by the timeslicer. A resume in a gang partition whose job does not fit
// beside the active set hands the job back to the timeslicer instead
// (waitForTurn): it stays suspended until its turn.
struct Suspend {};
struct Resume { bool waitForTurn = false; };
// The timeslicer's own suspend and resume (sched/gang).
struct GangSuspend {};
struct GangResume {};
struct Hold { bool byAdmin = false; };
struct Release {};
// scontrol requeue: a batch job that runs (or ran: an ended one too) goes
// back to PENDING for a new run, stopped on its nodes first. Refused for a
// pending or completing job, for one submitted --no-requeue (or without
// --requeue under JobRequeue=0) and for a job without a script.
struct Requeue {};
}  // namespace job_event

using JobEvent = std::variant<job_event::Placed, job_event::StillPending, job_event::LaunchAnswered,
                              job_event::StartNotStored, job_event::BatchEnded,
                              job_event::AllocationCompleted, job_event::Cancelled,
                              job_event::TimeLimitReached, job_event::ClientGone, job_event::NodeLost,
                              job_event::Suspend, job_event::Resume, job_event::GangSuspend,
                              job_event::GangResume, job_event::Hold, job_event::Release,
                              job_event::SwitchConfigured, job_event::SwitchSetupFailed, job_event::Requeue,
                              job_event::DependencyChecked>;

// Settings the lifecycle decides with.
struct LifecyclePolicy {
  bool jobRequeue = true;  // JobRequeue: lost batch jobs are requeued unless --no-requeue
  // SchedulerParameters=requeue_delay: a requeued job becomes eligible this
  // many seconds after its requeue.
  int64_t requeueDelaySec = 121;
};

// Applies the event to the job. On an Error the record is unchanged and no
// effect follows.
Result<Effects> onJobEvent(JobRecord& job, const JobEvent& event, int64_t now,
                           const LifecyclePolicy& policy = {});

// ---------------------------------------------------------------- node events

namespace node_event {
// The agent registered with this hardware; `problems` are the drain reasons
// the registration check found (empty when it passed).
struct Registered {
  std::string addr;
  int port = 0;
  v1::NodeHardware hardware;
  std::vector<std::string> problems;
  // The node's drained-TRES record after the registration's device GRES
  // were reconciled with their saved orders (device_order.h); unset: unchanged.
  std::optional<drain::DrainedTres> drains;
  // A report fits its saved order again: the order-mismatch drain lifts.
  bool clearsOrderMismatch = false;
  // When the agent started (unix seconds; 0: not reported).
  int64_t agentStartTime = 0;
};
struct HeartbeatSeen { std::vector<std::string> drainReasons; };
struct HeartbeatMissed {};
// scontrol update NodeName=... State=...
struct AdminUpdate {
  enum class To { Drain, Down, Fail, Resume } to = To::Drain;
  std::string reason;
  std::string user;
  // A return to service that leaves FAIL in place (State=UNDRAIN, as in
  // Slurm, clears only a drain).
  bool keepsFail = false;
};
// The controller takes the node out of service (a failed launch there).
struct Drain { std::string reason; };
}  // namespace node_event

using NodeEvent = std::variant<node_event::Registered, node_event::HeartbeatSeen,
                               node_event::HeartbeatMissed, node_event::AdminUpdate, node_event::Drain>;

// Applies the event to the node. The jobs on a node that went away are the
// caller's to end (through NodeLost), because that touches other records.
Effects onNodeEvent(NodeRecord& node, const NodeEvent& event, int64_t now);

}  // namespace gantry::core
