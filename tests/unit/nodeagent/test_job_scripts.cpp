// The Prolog and Epilog on the node: their environment, how a run is judged
// (exit, signal, timeout), the job record that makes the Prolog run once per
// job, and the launcher's use of both.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "nodeagent/launch/job_scripts.h"
#include "nodeagent/launch/step_launcher.h"
#include "tests/unit/support/scratch.h"

using namespace gantry;
using agent::JobScriptKind;
using agent::JobScripts;
using agent::ScriptOutcome;
namespace fs = std::filesystem;
using testing::TempDir;
using testing::readFile;
using namespace std::chrono_literals;

namespace {

bool waitForFile(const fs::path& path, std::chrono::milliseconds limit = 10s) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (fs::exists(path)) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

stepd::StepSpec gpuJob() {
  stepd::StepSpec spec;
  spec.job_id = 42;
  spec.step_id = "batch";
  spec.uid = 1001;
  spec.gid = 1001;
  spec.user = "alice";
  spec.node_name = "g1";
  spec.nodelist = "g[1-2]";
  spec.partition = "gpu";
  spec.cluster = "c";
  spec.gpus = {{.index = 1, .files = {"/dev/nvidia1"}, .vendor = "nvidia"},
               {.index = 3, .files = {"/dev/nvidia3"}, .vendor = "nvidia"}};
  return spec;
}

// The smallest spec.json the step spec parser accepts, with two GPUs.
const char* kSpecJson = R"({"job_id": 42, "step_id": "batch", "uid": 1001, "gid": 1001, "user": "alice",
  "work_dir": "/", "script": "true", "node_name": "g1", "nodelist": "g1",
  "gpus": [{"index": 2, "name": "gpu", "vendor": "nvidia", "files": ["/dev/nvidia2"]},
           {"index": 3, "name": "gpu", "vendor": "nvidia", "files": ["/dev/nvidia3"]}]})";

std::vector<std::string> ignoreLines;
agent::LogLine collectInto(std::vector<std::string>& lines) {
  return [&lines](const std::string& line) { lines.push_back(line); };
}

}  // namespace

TEST_CASE("the Prolog and Epilog see node-wide GPU indexes and the job's identity") {
  auto env = agent::jobScriptEnvironment(gpuJob(), JobScriptKind::Prolog);
  CHECK(env["CUDA_VISIBLE_DEVICES"] == "1,3");  // not renumbered to 0,1
  CHECK(env["SLURM_JOB_ID"] == "42");
  CHECK(env["SLURM_JOB_UID"] == "1001");
  CHECK(env["SLURM_JOB_USER"] == "alice");
  CHECK(env["SLURM_JOB_NODELIST"] == "g[1-2]");
  CHECK(env["SLURMD_NODENAME"] == "g1");
  CHECK(env["SLURM_SCRIPT_CONTEXT"] == "prolog_slurmd");
  CHECK(env.count("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE") == 0);
  CHECK(env.count("PATH") == 1);
  CHECK(agent::jobScriptEnvironment(gpuJob(), JobScriptKind::Epilog)["SLURM_SCRIPT_CONTEXT"] == "epilog_slurmd");
}

TEST_CASE("an MPS job's Prolog gets its GPU's index and the thread percentage") {
  stepd::StepSpec spec = gpuJob();
  spec.gpus = {{.index = 2, .name = "mps", .vendor = "nvidia", .shares = 50, .share_count = 200}};
  auto env = agent::jobScriptEnvironment(spec, JobScriptKind::Prolog);
  CHECK(env["CUDA_VISIBLE_DEVICES"] == "2");  // the job itself sees 0
  CHECK(env["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] == "25");
  CHECK(env["SLURM_JOB_UID"] == "1001");
}

TEST_CASE("a job without GPUs gets no GPU variables in its Prolog") {
  stepd::StepSpec spec = gpuJob();
  spec.gpus.clear();
  auto env = agent::jobScriptEnvironment(spec, JobScriptKind::Prolog);
  CHECK(env.count("CUDA_VISIBLE_DEVICES") == 0);
  CHECK(env["SLURM_JOB_ID"] == "42");
}

TEST_CASE("a script's failure is named by kind, exit, signal or timeout") {
  CHECK(agent::describeScriptFailure(JobScriptKind::Prolog, ScriptOutcome{}, 60s).empty());
  CHECK(agent::describeScriptFailure(JobScriptKind::Prolog, ScriptOutcome{.exitCode = 1}, 60s) ==
        "prolog failed: exit 1");
  CHECK(agent::describeScriptFailure(JobScriptKind::Epilog, ScriptOutcome{.signal = 11}, 60s) ==
        "epilog failed: killed by signal 11");
  CHECK(agent::describeScriptFailure(JobScriptKind::Prolog, ScriptOutcome{.signal = 9, .timedOut = true}, 60s) ==
        "prolog failed: timed out after 60 s");
}

TEST_CASE("a script runs with exactly the given environment and its output is logged by line") {
  TempDir dir;
  ::setenv("GANTRY_TEST_AGENT_ONLY", "leak", 1);
  auto script = dir.script("prolog", "echo \"job=$SLURM_JOB_ID inherited=${GANTRY_TEST_AGENT_ONLY:-none}\"\n"
                                     "echo to-stderr >&2\nread line; echo \"stdin=${line:-empty}\"\n"
                                     "printf no-newline\nexit 3");
  std::vector<std::string> lines;
  auto outcome = agent::runJobScript(script, {{"SLURM_JOB_ID", "7"}}, 10s, collectInto(lines));
  ::unsetenv("GANTRY_TEST_AGENT_ONLY");
  REQUIRE(outcome.ok());
  CHECK(outcome->exitCode == 3);
  CHECK_FALSE(outcome->ok());
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "job=7 inherited=none");
  CHECK(lines[1] == "to-stderr");
  CHECK(lines[2] == "stdin=empty");
  CHECK(lines[3] == "no-newline");
}

TEST_CASE("a script past its timeout is killed with its process group") {
  TempDir dir;
  fs::path childPid = dir.path() / "child.pid";
  auto script = dir.script("prolog", "sleep 30 &\necho $! > " + childPid.string() + "\nwait");
  auto started = std::chrono::steady_clock::now();
  auto outcome = agent::runJobScript(script, {}, 500ms, [](const std::string&) {});
  REQUIRE(outcome.ok());
  CHECK(outcome->timedOut);
  CHECK(std::chrono::steady_clock::now() - started < 5s);
  REQUIRE(waitForFile(childPid));
  pid_t child = std::stoi(readFile(childPid));
  // The background sleep was in the script's group: gone too (a zombie of
  // init at most, which kill(0) still finds, so look at its state).
  std::this_thread::sleep_for(100ms);
  std::string stat = readFile("/proc/" + std::to_string(child) + "/stat");
  CHECK((stat.empty() || stat.find(") Z") != std::string::npos));
}

TEST_CASE("a script that exits is done even while a child of it holds its output open") {
  TempDir dir;
  fs::path childPid = dir.path() / "child.pid";
  auto script = dir.script("epilog", "sleep 30 &\necho $! > " + childPid.string() + "\nexit 0");
  auto started = std::chrono::steady_clock::now();
  auto outcome = agent::runJobScript(script, {}, 20s, [](const std::string&) {});
  REQUIRE(outcome.ok());
  CHECK(outcome->ok());
  CHECK(std::chrono::steady_clock::now() - started < 5s);
  if (waitForFile(childPid)) ::kill(std::stoi(readFile(childPid)), SIGKILL);
}

TEST_CASE("a script that cannot start is an error naming it") {
  auto outcome = agent::runJobScript("/nonexistent/prolog", {}, 1s, [](const std::string&) {});
  REQUIRE_FALSE(outcome.ok());
  CHECK_THAT(outcome.error(), Catch::Contains("cannot start /nonexistent/prolog"));
}

TEST_CASE("the Prolog runs once per job on the node, from the recorded spec") {
  TempDir dir;
  fs::path out = dir.path() / "prolog.out";
  JobScripts scripts{.prolog = dir.script("prolog", "echo \"$SLURM_JOB_ID $SLURM_JOB_UID $CUDA_VISIBLE_DEVICES\" >> " +
                                                         out.string())};
  fs::path jobs = dir.path() / "jobs";
  REQUIRE(agent::beginJobOnNode(jobs, 42, kSpecJson, scripts, collectInto(ignoreLines)).ok());
  CHECK(readFile(out) == "42 1001 2,3\n");
  CHECK(readFile(jobs / "42" / "spec.json") == kSpecJson);
  // A second step of the job: already begun, no second Prolog.
  REQUIRE(agent::beginJobOnNode(jobs, 42, kSpecJson, scripts, collectInto(ignoreLines)).ok());
  CHECK(readFile(out) == "42 1001 2,3\n");
}

TEST_CASE("a failing Prolog fails the launch and leaves no record") {
  TempDir dir;
  fs::path jobs = dir.path() / "jobs";
  JobScripts failing{.prolog = dir.script("prolog", "exit 1")};
  auto begun = agent::beginJobOnNode(jobs, 42, kSpecJson, failing, collectInto(ignoreLines));
  REQUIRE_FALSE(begun.ok());
  CHECK(begun.error() == "prolog failed: exit 1");
  CHECK_FALSE(fs::exists(jobs / "42"));

  JobScripts slow{.prolog = dir.script("slow", "sleep 30"), .timeout = 300ms};
  begun = agent::beginJobOnNode(jobs, 43, kSpecJson, slow, collectInto(ignoreLines));
  REQUIRE_FALSE(begun.ok());
  CHECK(begun.error() == "prolog failed: timed out after 300 ms");
  CHECK_FALSE(fs::exists(jobs / "43"));
}

TEST_CASE("the Epilog runs once for a claimed record with the job's environment, then the record goes") {
  TempDir dir;
  fs::path out = dir.path() / "epilog.out";
  fs::path jobs = dir.path() / "jobs";
  JobScripts scripts{.epilog = dir.script("epilog", "echo \"$SLURM_JOB_ID $CUDA_VISIBLE_DEVICES $SLURM_SCRIPT_CONTEXT\" >> " +
                                                         out.string() + "\nexit 2")};
  REQUIRE(agent::beginJobOnNode(jobs, 42, kSpecJson, scripts, collectInto(ignoreLines)).ok());
  auto claimed = agent::claimJobRecord(jobs, 42);
  REQUIRE(claimed.has_value());
  CHECK_FALSE(agent::claimJobRecord(jobs, 42).has_value());  // a repeated end finds nothing
  auto finished = agent::finishJobOnNode(*claimed, scripts, collectInto(ignoreLines));
  REQUIRE_FALSE(finished.ok());
  CHECK(finished.error() == "epilog failed: exit 2");
  CHECK(readFile(out) == "42 2,3 epilog_slurmd\n");
  CHECK_FALSE(fs::exists(*claimed));
  CHECK(fs::is_empty(jobs));
  CHECK_FALSE(agent::claimJobRecord(jobs, 7).has_value());  // never began here
}

TEST_CASE("the launcher runs the Prolog before a job's first step and the Epilog after the job ends") {
  TempDir dir;
  fs::path prologOut = dir.path() / "prolog.out";
  fs::path epilogOut = dir.path() / "epilog.out";
  agent::LauncherOptions options;
  options.spoolDir = dir.path() / "spool";
  options.stepdPath = "/bin/true";  // a step that ends at once without a result
  options.nodeName = "g1";
  options.jobScripts = {.prolog = dir.script("prolog", "echo \"$SLURM_JOB_ID $SLURMD_NODENAME\" >> " + prologOut.string()),
                        .epilog = dir.script("epilog", "echo \"$SLURM_JOB_ID\" >> " + epilogOut.string()),
                        .timeout = 10s};
  agent::StepLauncher launcher(options);

  v1::LaunchStepRequest batch;
  batch.set_job_id(9);
  batch.set_step_id("batch");
  batch.set_script("#!/bin/sh\ntrue\n");
  batch.set_num_nodes(1);
  batch.set_ntasks(1);
  batch.set_tasks_on_node(1);
  REQUIRE(launcher.launch(batch).ok());
  v1::LaunchStepRequest second = batch;
  second.set_step_id("0");
  second.add_argv("true");
  REQUIRE(launcher.launch(second).ok());
  CHECK(readFile(prologOut) == "9 g1\n");  // once for both steps
  CHECK(fs::exists(options.spoolDir / "jobs" / "9" / "spec.json"));

  REQUIRE(launcher.endJob(9).ok());
  REQUIRE(waitForFile(epilogOut));
  auto until = std::chrono::steady_clock::now() + 10s;
  while (fs::exists(options.spoolDir / "jobs" / "9.ending") && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(20ms);
  }
  CHECK_FALSE(fs::exists(options.spoolDir / "jobs" / "9.ending"));
  REQUIRE(launcher.endJob(9).ok());  // a repeated end: no second Epilog
  std::this_thread::sleep_for(300ms);
  CHECK(readFile(epilogOut) == "9\n");
}

TEST_CASE("the launcher refuses a step whose Prolog fails") {
  TempDir dir;
  agent::LauncherOptions options;
  options.spoolDir = dir.path() / "spool";
  options.stepdPath = "/bin/true";
  options.jobScripts = {.prolog = dir.script("prolog", "exit 1")};
  agent::StepLauncher launcher(options);
  v1::LaunchStepRequest batch;
  batch.set_job_id(9);
  batch.set_step_id("batch");
  batch.set_script("#!/bin/sh\ntrue\n");
  batch.set_tasks_on_node(1);
  auto launched = launcher.launch(batch);
  REQUIRE_FALSE(launched.ok());
  CHECK(launched.error() == "prolog failed: exit 1");
  CHECK(launcher.known().empty());
  CHECK_FALSE(fs::exists(options.spoolDir / "jobs" / "9"));
}
