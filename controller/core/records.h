// The controller core's model: one record per job, node and step, with typed
// states and reasons. The lifecycle (lifecycle.h) decides how they change;
// the executor (effects.h) carries out what follows. Wire types appear here
// only as opaque payloads the core passes on without deciding on them: the
// job's submitted request (read by job_request.cpp for selection and by
// launch_request.cpp for the step launcher) and the node's registered
// hardware (read to build the selection view and the GPUs of a launch).
//
// Threading: records are owned by the ControllerCore and touched only on its
// strand.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/accounting/tres_usage.h"
#include "common/config/gantry_conf.h"
#include "common/gres/device.h"
#include "common/util/task_set.h"
#include "controller/core/dependency.h"
#include "controller/drain/drained_tres.h"
#include "controller/select/cluster.h"
#include "controller/switch/switch_record.h"
#include "gantry/v1/types.pb.h"

namespace gantry::core {

enum class JobState {
  Pending,
  Configuring,  // resources held, nodes being prepared (switch/lua, Prolog)
  Running,
  Suspended,    // stopped by an administrator or gang scheduling; keeps its resources
  Completing,   // ended; nodes still cleaning up
  Completed,
  Failed,
  Cancelled,
  Timeout,
  NodeFail,
};

// Ended for good: the record only waits to be forgotten (MinJobAge).
constexpr bool isEnded(JobState state) {
  return state == JobState::Completed || state == JobState::Failed || state == JobState::Cancelled ||
         state == JobState::Timeout || state == JobState::NodeFail;
}
std::string_view toString(JobState state);

// Why a job waits or why it ended. Some reasons carry a detail (a node name,
// a signal number, a message); reasonText() renders both the way squeue
// and scontrol show them.
enum class JobReason {
  None,
  Resources,          // detail: the selection's own reason when it gave one
  ReqNodeNotAvail,
  JobHeldUser,
  JobHeldAdmin,
  TimeLimit,
  NonZeroExitCode,
  RaisedSignal,       // detail: the signal number
  StepFailed,         // detail: the step launcher's message
  NodeNotResponding,  // detail: the node
  NodeSetDown,        // detail: the node
  BatchStepLost,      // detail: the node
  LaunchFailed,       // detail: the agent's answer
  StoreFailed,        // detail: the store's error
  BadConstraints,     // detail: why the stored request no longer passes the submit checks
  InactiveLimit,      // the salloc/srun holding the allocation stopped answering
  GangTimeslice,      // suspended by gang scheduling until its turn in the timeslice rotation
  SwitchSetup,        // detail: "switch setup failed" or "switch setup timed out" (switch/lua)
  BeginTime,          // not eligible before its eligible time (--begin, a requeued job's delay)
  Dependency,                // its --dependency is not satisfied yet
  DependencyNeverSatisfied,  // its --dependency can never be satisfied
  Priority,                  // it would fit, but on nodes planned for a job ahead of it (backfill)
  JobArrayTaskLimit,         // its array runs as many tasks as its throttle (%N) allows
};
// The last reason, for readers of stored codes.
constexpr JobReason kLastJobReason = JobReason::JobArrayTaskLimit;
std::string reasonText(JobReason reason, const std::string& detail);

// Who suspended a SUSPENDED job. The timeslicer resumes only its own.
enum class SuspendedBy { None, Admin, Gang };

// A numbered step (srun) of a job.
struct StepRecord {
  uint32_t id = 0;
  std::string name;               // the program it runs
  select::Allocation allocation;  // inside the job's allocation
  std::vector<std::string> nodes;
  std::set<std::string> nodesLeft;  // nodes that have not reported its end
  int ntasks = 0;
  // srun --overlap: chosen ignoring the other steps, and not counted
  // against the steps that come after it.
  bool overlap = false;
  int exitCode = 0;
  std::string message;
  int64_t startTime = 0;
  int64_t endTime = 0;
  // What its tasks used (accounting), gathered from each node's report.
  std::vector<accounting::TaskUsageSample> usage;
  std::set<std::string> usageReported;  // nodes whose usage is in `usage`
  bool ended() const { return nodesLeft.empty(); }
};

struct JobRecord {
  uint64_t id = 0;
  v1::JobSpec spec;  // as submitted (partition and name filled in)
  // What is left of spec.dependency (dependency.h): satisfied entries are
  // dropped as the scheduler sees them; stored with the job.
  Dependency dependency;
  std::string user;
  uint32_t uid = 0;
  uint32_t gid = 0;

  JobState state = JobState::Pending;
  JobReason reason = JobReason::None;
  std::string reasonDetail;

  int64_t submitTime = 0;
  int64_t eligibleTime = 0;    // when it last became (or, after a requeue, becomes) eligible; 0 while held
  int64_t requeueTime = 0;     // when it was last requeued (0: never); starts a new accounting run
  int64_t startTime = 0;       // when the job was allocated (kept through suspensions)
  int64_t endTime = 0;
  // When the job was last suspended or resumed (Slurm's SuspendTime): the
  // current run segment starts at the later of this and startTime.
  int64_t suspendTime = 0;
  int64_t runSecondsBefore = 0;  // run time before the last suspension (SecsPreSuspend)
  int64_t suspendedSeconds = 0;  // total time spent suspended
  int64_t timeLimitSeconds = 0;  // effective; -1 UNLIMITED
  int exitCode = 0;
  int termSignal = 0;
  int restartCount = 0;
  std::optional<uint32_t> cancelledBy;  // the uid that cancelled it
  // scancel -s STOP reached its tasks and no CONT since (Slurm's STOPPED
  // flag): shown in place of RUNNING; dropped when the job stops running.
  bool stopped = false;
  // What the batch step's tasks used (accounting), from its node's report.
  std::vector<accounting::TaskUsageSample> batchUsage;

  // Resources: the allocation, its node names in grant order, and whether
  // the selection Cluster holds them now.
  select::Allocation allocation;
  std::vector<std::string> nodeNames;
  bool holdsResources = false;
  bool launchInFlight = false;  // batch launch sent, answer not yet back
  SuspendedBy suspendedBy = SuspendedBy::None;
  // Allocated suspended by gang scheduling and not launched yet: its batch
  // step (and extern steps) start at its first resume, so its tasks never
  // run on resources another job of the active set holds.
  bool launchDeferred = false;
  // spec.client_keepalive allocations: when their salloc/srun last called
  // KeepAllocation (not stored: a restarted controller counts from its
  // start).
  int64_t clientSeenAt = 0;
  // --signal: the start time of the run it was sent in, so each run (a
  // requeued job runs again) gets it once; -1: not yet. Not stored: a
  // restarted controller may send it once more.
  int64_t warnedRunStart = -1;

  // switch/lua: the job's interconnect setup and teardown (a job that
  // asked for --network while switch/lua runs; absent otherwise). Stored
  // with the job; its calls outlive the run they are for.
  std::optional<interconnect::SwitchRecord> network;
  // Nodes a switch teardown (or a setup still running when the job ended)
  // keeps COMPLETING: rebuilt from the lifecycle's HoldNodes, not stored.
  std::vector<std::string> switchHeldNodes;

  // Job arrays (--array): the array's job id (0: not in an array). A task
  // that runs, ran or was acted on alone is a record of its own with its
  // index; the rest wait as one record, the array's own (id ==
  // arrayJobId), with no index and their indexes in arrayPending. That
  // record becomes the last task when only one is left.
  uint64_t arrayJobId = 0;
  std::optional<uint32_t> arrayTaskId;
  TaskSet arrayPending;
  uint32_t arrayThrottle = 0;  // %N: at most this many tasks run at once (0: no limit)
  bool holdsArrayTasks() const { return arrayJobId != 0 && !arrayTaskId; }

  // sched/backfill: when and where the last pass planned to start this
  // pending job (0 and none: not planned). Not stored.
  int64_t plannedStart = 0;
  std::vector<std::string> plannedNodes;

  std::map<std::string, uint64_t> dmemPeakBytes;  // "<node>:<region>" -> bytes
  uint32_t nextStepId = 0;
  std::map<uint32_t, StepRecord> steps;

  bool isBatch() const { return !spec.script().empty(); }
  bool held() const { return spec.hold(); }
  const std::string& batchHost() const {
    static const std::string kNone;
    return nodeNames.empty() ? kNone : nodeNames.front();
  }
  // Run time so far, suspensions excluded.
  int64_t runSeconds(int64_t now) const {
    if (state == JobState::Running) return runSecondsBefore + (now - segmentStart());
    return runSecondsBefore;
  }
  int64_t segmentStart() const { return std::max(startTime, suspendTime);
  }
};

// What an administrator (or a failure the controller noticed) set.
// Fail: set failing by an administrator (scontrol State=FAIL): it takes no
// new work like Drain, and shows FAILING while jobs still run there, FAIL
// once idle.
// DownDrain: drained and set DOWN, in either order; Slurm keeps both (the
// DRAIN flag on a DOWN node), and a resume clears both.
enum class NodeAdminState { None, Drain, Down, DownDrain, Fail };
std::string_view toString(NodeAdminState state);

struct NodeRecord {
  config::NodeConf conf;
  int selectIndex = -1;
  std::string addr;
  int port = 0;

  bool registered = false;      // since this controller started
  bool notResponding = false;
  int64_t lastHeartbeat = 0;
  NodeAdminState admin = NodeAdminState::None;
  std::string reason, reasonUser;
  int64_t reasonTime = 0;
  std::vector<std::string> registrationErrors;  // drain reasons of the last registration

  // The hardware of the last registration, kept across controller restarts
  // so recovered allocations land on the devices they held.
  v1::NodeHardware hardware;
  bool hardwareKnown = false;
  // Devices, cores and amounts drained one by one, and the saved device
  // order (controller/drain); kept across controller restarts.
  drain::DrainedTres drainedTres;

  // When its agent started (reported at registration) and the last time a
  // job held or left it (scontrol's SlurmdStartTime and LastBusyTime);
  // unix seconds, 0 until known. Not stored: a restarted controller learns
  // them again from the next registration and job.
  int64_t agentStartTime = 0;
  int64_t lastBusyTime = 0;

  int allocCpus = 0;
  uint64_t allocMemoryMb = 0;
  std::set<uint64_t> jobs;  // jobs holding resources here
  // Ended jobs whose switch teardown keeps the node COMPLETING (given to no
  // job) until it reports.
  std::set<uint64_t> switchHolds;

  bool drained() const {
    return admin == NodeAdminState::Drain || admin == NodeAdminState::DownDrain || !registrationErrors.empty();
  }
  bool down() const { return admin == NodeAdminState::Down || admin == NodeAdminState::DownDrain || notResponding; }
  bool failing() const { return admin == NodeAdminState::Fail; }
  bool degraded() const { return drain::anythingDrained(drainedTres); }
  // May take new work.
  bool completing() const { return !switchHolds.empty(); }
  bool schedulable() const {
    return registered && !notResponding && admin == NodeAdminState::None && registrationErrors.empty() &&
           switchHolds.empty();
  }
};

}  // namespace gantry::core
