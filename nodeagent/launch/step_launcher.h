// Starts and tracks gantrystepd processes, one per step, through step
// directories under the agent's spool directory:
//
//   <spool>/steps/<jobid>.<stepid>/spec.json    written by the agent
//   <spool>/steps/<jobid>.<stepid>/pid          written by gantrystepd
//   <spool>/steps/<jobid>.<stepid>/result.json  written by gantrystepd at the end
//   <spool>/scripts/<jobid>.batch/script        the batch script, the user's own
//
// steps/ and jobs/ and everything in them are root's alone (directories
// 0700, files 0600, created so): spec.json holds srun's I/O token. The
// batch script, which the task runs as the user, lives apart in a
// directory that gantrystepd makes for the user (scripts/ itself is 0711).
//
// Every gantrystepd runs in its own session, so it outlives an agent restart;
// a restarted agent finds its steps again by reading the directories. A step
// is "finished" once result.json exists, or once its gantrystepd died
// without writing one and nothing of the step is left (the agent kills
// what remains, see step_leftovers.h); it is forgotten only after the
// controller acknowledged it.
//
// A job's first step on the node is preceded by the Prolog and the job's end
// is followed by the Epilog (see job_scripts.h); the job's record lives in
// <spool>/jobs/<jobid>/.
//
// Child processes go through the process runner (common/util/process.h) on
// one event thread the launcher owns: gantrystepd is started detached and
// reaped there if it ends while the agent runs (no zombies pile up), and
// Epilogs wait for their job's steps and run there, without a thread each.
//
// Thread-safe: all methods lock one mutex; nothing slow happens under it
// except small file writes and fork/exec. Launches and job ends also hold a
// second one, taken first, across the Prolog, so a slow Prolog delays other
// launches but never the heartbeat's running()/finished(). The Prolog runs
// on the launching thread, which waits for it: the launch's answer is the
// Prolog's outcome.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/util/io_thread.h"
#include "common/util/result.h"
#include "gantry/v1/agent.pb.h"
#include "nodeagent/launch/job_scripts.h"
#include "nodeagent/launch/step_accounting.h"
#include "nodeagent/launch/step_confinement.h"
#include "nodeagent/launch/step_gpu_library.h"
#include "stepd/core/step_control.h"
#include "stepd/usage/task_usage_record.h"

namespace gantry::agent {

struct StepKey {
  uint64_t jobId = 0;
  std::string stepId;
  std::string dirName() const { return std::to_string(jobId) + "." + stepId; }
};

struct FinishedStep {
  StepKey key;
  int exitCode = 0;
  int signal = 0;
  int64_t startTime = 0;
  int64_t endTime = 0;
  std::string message;
  std::map<std::string, uint64_t> dmemPeakBytes;  // region -> bytes, from result.json
  std::vector<stepd::TaskUsageRecord> taskUsage;  // result.json task_usage, per task
  // Non-empty: gantrystepd asks for the node to be drained with this reason
  // (a failed slurm_switch_step_postfini). finished() queues it once for
  // drainReasons().
  std::string drainReason;
};

struct LauncherOptions {
  std::filesystem::path spoolDir;
  std::filesystem::path stepdPath;  // the gantrystepd binary
  std::string nodeName;
  std::string clusterName;
  std::string hostRoot = "/";
  ConfinementSettings confinement;  // cgroup and resctrl keys of every spec.json
  StepGpuLibrarySettings gpuLibrary;  // which GPU library a step's launcher holds
  StepAccountingSettings accounting;  // usage sampling of the steps' tasks
  JobScripts jobScripts;            // Prolog, Epilog and their timeout
  // SwitchType=switch/lua: switch.lua beside gantry.conf, which every
  // step's launcher loads before it runs the step; empty: no switch plugin.
  std::filesystem::path switchScript;
};

// Pure: which processes of step `stepId` a user's `signal` with `scope`
// reaches (nothing: the step is not signalled). As scancel: by default
// every step but the batch shell, which only SIGKILL reaches; --batch the
// batch shell alone; --full everything. The extern step runs no task.
std::optional<stepd::TaskSignalReach> taskSignalReach(v1::SignalScope scope, const std::string& stepId, int signal);

class StepLauncher {
 public:
  explicit StepLauncher(LauncherOptions options);

  Status launch(const v1::LaunchStepRequest& request);
  // New steps use these settings from now on (agent reconfigure).
  void setConfinement(ConfinementSettings settings);
  void setGpuLibrary(StepGpuLibrarySettings settings);
  void setAccounting(StepAccountingSettings settings);

  // Steps still running (their gantrystepd alive and no result yet).
  std::vector<StepKey> running();
  // Steps that ended and have not been acknowledged yet.
  std::vector<FinishedStep> finished();
  // The controller has the result: forget the step.
  void acknowledge(const StepKey& key);

  // A user's signal (scancel -s) for the job's tasks, as taskSignalReach
  // says; gantrystepd passes it on and never acts on it itself.
  // `stepId` non-empty: that step only (its tasks), whatever `scope` says.
  Status signalJob(uint64_t jobId, int signal, v1::SignalScope scope, const std::string& stepId = "");
  // Administrator actions: freeze (or stop) and thaw every step of the job.
  Status suspendJob(uint64_t jobId);
  Status resumeJob(uint64_t jobId);
  // Ends every step of the job (grace signal, then kill) without the job's
  // Epilog; for steps of jobs the controller does not know.
  Status terminateSteps(uint64_t jobId);
  // The job ended: SIGTERM to its steps, then, on a thread of its own once
  // they are gone, the Epilog. Returns at once; a job the node has no
  // record of (never began here, or already ended) only gets the signal.
  Status endJob(uint64_t jobId);
  // Every step (running or finished) the agent still knows, for registration.
  std::vector<StepKey> known();

  // Problems that must drain the node (a failed Epilog, a step's
  // drain_reason), oldest first; the agent sends them with its next
  // heartbeat and then forgets that many.
  std::vector<std::string> drainReasons() const;
  void forgetDrainReasons(size_t count);

 private:
  std::filesystem::path stepsDir() const { return options_.spoolDir / "steps"; }
  std::filesystem::path jobsDir() const { return options_.spoolDir / "jobs"; }
  std::filesystem::path scriptsDir() const { return options_.spoolDir / "scripts"; }
  // SIGTERM, SIGUSR1 or SIGUSR2 to every running step's gantrystepd.
  Status controlSteps(uint64_t jobId, int signal);
  // A step without result whose gantrystepd is gone: kills what is left
  // of it and says whether anything still is.
  static bool leftoversRemain(const std::filesystem::path& stepDir);
  static bool anyStepRunning(const std::filesystem::path& stepsDir, uint64_t jobId);
  static bool parseDirName(const std::string& name, StepKey* key);
  static int readPid(const std::filesystem::path& dir);
  // Queues a finished step's drain_reason for the heartbeat, once per
  // step (mutex_ held).
  void queueDrain(const FinishedStep& step);
  // Runs the Epilog of a claimed job record on the event thread once the
  // job's steps are gone (at most the script timeout later).
  void finishInBackground(uint64_t jobId, std::filesystem::path claimedRecord);
  struct PendingEpilog;
  static void runEpilogWhenStepsGone(const std::shared_ptr<PendingEpilog>& pending);

  // Shared with pending Epilogs, which may outlive a call.
  struct DrainReasons {
    mutable std::mutex mutex;
    std::vector<std::string> reasons;
  };

  LauncherOptions options_;
  std::mutex mutex_;
  std::mutex jobRecordMutex_;  // launches and job ends: the job record and the Prolog
  std::shared_ptr<DrainReasons> drainReasons_ = std::make_shared<DrainReasons>();
  // Finished steps whose drain_reason is queued already (guarded by mutex_):
  // finished() reads a result until it is acknowledged.
  std::set<std::string> drainQueued_;
  // Last, so it stops (and drops what is pending) before the rest goes.
  IoThread io_;
};

}  // namespace gantry::agent
