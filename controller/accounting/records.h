// What the accounting store keeps: one record per job and per step, and
// node events. Plain values in the words of sacct and sacctmgr; the
// controller builds them from its own state (wire types stay at the RPC
// edge) and formatting is the commands' business.
//
// Times are seconds since the epoch; 0 means "not yet" (a job that has not
// started has startTime 0, one still running has endTime 0).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gantry::accounting {

// How a job or step ended, as sacct prints it: "code:signal".
struct ExitCode {
  int code = 0;
  int signal = 0;
  bool operator==(const ExitCode&) const = default;
};

// TRESUsageIn{Min,Max,Ave,Tot} and the node and task columns that say
// where the extreme values were seen. Each is a TRES string
// ("cpu=00:00:11,gres/gpumem=36266M,mem=628748K,..."), kept as given.
struct TresUsageIn {
  std::string min;
  std::string minNode;
  std::string minTask;
  std::string max;
  std::string maxNode;
  std::string maxTask;
  std::string ave;
  std::string tot;
  bool operator==(const TresUsageIn&) const = default;
};

// One job (stepId "") or one of its steps ("batch", "extern",
// "interactive", "0", "1", ...). The same record is written more than once
// as the job moves on (at start, again at end); the store keeps one per
// (cluster, jobId, stepId, submitTime), so a requeued job, which gets a new
// submit time, keeps a record per run.
struct JobRecord {
  std::string cluster;
  uint64_t jobId = 0;
  std::string stepId;
  std::string name;
  std::string user;
  uint32_t uid = 0;
  std::string group;
  uint32_t gid = 0;
  std::string account;
  std::string partition;
  int64_t submitTime = 0;
  int64_t eligibleTime = 0;
  int64_t startTime = 0;
  int64_t endTime = 0;
  // Minutes; nullopt is UNLIMITED.
  std::optional<uint32_t> timeLimitMinutes;
  // "PENDING", "RUNNING", "COMPLETED", "CANCELLED", ...
  std::string state;
  // Who cancelled it, for "CANCELLED by UID"; nullopt otherwise.
  std::optional<uint32_t> cancelledByUid;
  ExitCode exitCode;
  ExitCode derivedExitCode;
  uint32_t nodeCount = 0;
  std::string nodeList;
  uint32_t allocCpus = 0;
  std::string reqTres;
  std::string allocTres;
  TresUsageIn usageIn;
  std::string reason;
  std::string workDir;
  std::string comment;
  // Job arrays: the array's job id (0: not in an array), and this task's
  // index; the array's record of tasks not yet started has no index and
  // lists them in arrayTasks ("5-99", sacct's 12_[5-99]).
  uint64_t arrayJobId = 0;
  std::optional<uint32_t> arrayTaskId;
  std::string arrayTasks;
  bool operator==(const JobRecord&) const = default;
};

// A period in which a node was DOWN, DRAIN, DEGRADED, FAIL, ... The same
// event is written when it opens (endTime 0) and again when it closes; the
// store keeps one per (cluster, node, startTime, state).
struct NodeEvent {
  std::string cluster;
  std::string node;
  int64_t startTime = 0;
  int64_t endTime = 0;  // 0 while the event is open
  std::string state;
  std::string reason;
  std::string user;
  // The node's tracked TRES (cpu and mem always, the rest as
  // AccountingStorageTRES says), and the drained TRES the event is about.
  std::string tres;
  std::string tresReference;
  bool operator==(const NodeEvent&) const = default;
};

}  // namespace gantry::accounting
