// The Prolog and Epilog of gantry.conf, run by the node agent once per job
// on each node: the Prolog before the job's first step on the node starts,
// the Epilog after the controller said the job ended.
//
// A job on a node is recorded in <spool>/jobs/<jobid>/spec.json, a copy of
// the spec.json of its first step there. The record exists from a
// successful Prolog until the Epilog has run, so its presence means "the
// Prolog ran, the Epilog has not": the next step of the job skips the
// Prolog, and a second end of the job finds nothing left to do.
//
// Both scripts run as the agent's user (root on a real node), outside any
// job cgroup, with a small environment of their own: the job's identity and
// the GPU variables with node-wide device indexes (never renumbered, as the
// job's own view may be), plus CUDA_MPS_ACTIVE_THREAD_PERCENTAGE for MPS
// jobs, so a Prolog can start an MPS server for the job's GPU and user.
//
// The scripts run through the process runner (common/util/process.h): no
// thread waits on a script. The asynchronous forms call back on a strand of
// the executor they are given; the synchronous forms run a private event
// loop on the calling thread, for callers that must wait anyway (a launch
// answers only after its Prolog).
//
// Thread-safety: free functions without shared state; callers serialize
// the creation and the claiming of one job's record (StepLauncher does).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "common/util/result.h"
#include "stepd/core/step_spec.h"

namespace gantry::agent {

enum class JobScriptKind { Prolog, Epilog };

struct JobScripts {
  std::filesystem::path prolog{};  // empty: none configured
  std::filesystem::path epilog{};  // empty: none configured
  // A script still running after this long is killed (with its process
  // group) and counts as failed.
  std::chrono::milliseconds timeout = std::chrono::seconds(60);
};

using ScriptEnvironment = std::map<std::string, std::string>;
using LogLine = std::function<void(const std::string&)>;

// Pure: the complete environment of the Prolog or Epilog of the job `spec`
// describes (nothing is inherited from the agent).
ScriptEnvironment jobScriptEnvironment(const stepd::StepSpec& spec, JobScriptKind kind);

struct ScriptOutcome {
  int exitCode = 0;
  int signal = 0;         // the signal that ended it, 0 when it exited
  bool timedOut = false;  // killed because it ran past the timeout
  bool ok() const { return exitCode == 0 && signal == 0 && !timedOut; }
};

// Pure: "" for a successful run, otherwise the reason, e.g.
// "prolog failed: exit 1", "epilog failed: timed out after 60 s".
std::string describeScriptFailure(JobScriptKind kind, const ScriptOutcome& outcome,
                                  std::chrono::milliseconds timeout);

// A timed-out script's group gets SIGTERM, then SIGKILL this much later.
inline constexpr std::chrono::milliseconds kScriptKillGrace{2000};

using ScriptDone = std::function<void(Result<ScriptOutcome>)>;

// Starts `program` with exactly `environment`, stdin from /dev/null, each
// line of its stdout and stderr handed to `log` as it comes, in a process
// group of its own that is killed when the timeout passes, and returns at
// once. `done` gets the outcome, or an error only when it could not start;
// `log` and `done` run on a strand of `executor`.
void startJobScript(boost::asio::any_io_executor executor, const std::filesystem::path& program,
                    const ScriptEnvironment& environment, std::chrono::milliseconds timeout, LogLine log,
                    ScriptDone done);

// startJobScript, waiting for the end on the calling thread.
Result<ScriptOutcome> runJobScript(const std::filesystem::path& program, const ScriptEnvironment& environment,
                                   std::chrono::milliseconds timeout, const LogLine& log);

// Before a step of job `jobId` starts: when the job has no record under
// `jobsDir` yet, records it with `stepSpecJson` and runs the Prolog. A
// failing Prolog leaves no record and fails with its reason.
Status beginJobOnNode(const std::filesystem::path& jobsDir, uint64_t jobId, const std::string& stepSpecJson,
                      const JobScripts& scripts, const LogLine& log);

// Takes the job's record away from <jobsDir>/<jobId> (renamed aside, so a
// second end finds nothing and a later first step would run the Prolog
// again). The path of the claimed record, or nothing when there is none.
std::optional<std::filesystem::path> claimJobRecord(const std::filesystem::path& jobsDir, uint64_t jobId);

// Runs the Epilog for a claimed record, then removes the record (also when
// the Epilog fails, which is answered with its reason). Returns at once;
// `log` and `done` run on a strand of `executor`.
void finishJobOnNode(boost::asio::any_io_executor executor, const std::filesystem::path& claimedRecord,
                     const JobScripts& scripts, LogLine log, std::function<void(Status)> done);

// The same, waiting for the end on the calling thread.
Status finishJobOnNode(const std::filesystem::path& claimedRecord, const JobScripts& scripts, const LogLine& log);

}  // namespace gantry::agent
