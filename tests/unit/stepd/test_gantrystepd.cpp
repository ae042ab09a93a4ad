// Runs the built gantrystepd on temporary step directories, as the node
// agent would, and checks what it leaves behind.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tests/unit/stepd/stepd_process.h"

namespace fs = std::filesystem;
using nlohmann::json;

using namespace gantry::stepd::testing;

TEST_CASE("a batch step runs its script and reports the exit code", "[stepd][exe]") {
  StepDir step;
  json spec = step.baseSpec("batch");
  spec["script"] =
      "#!/bin/sh\necho \"job=$SLURM_JOB_ID step=$SLURM_STEP_ID procid=$SLURM_PROCID submit=$FROM_SUBMIT\"\n"
      "echo \"nodes=$SLURM_JOB_NODELIST cpus=$SLURM_CPUS_ON_NODE sluid=${SLURM_JOB_SLUID%${SLURM_JOB_SLUID#?}}\"\n"
      "echo oops >&2\npwd\nexit 3\n";
  step.start(spec);
  json result = step.finish();
  CHECK(result["exit_code"] == 3);
  CHECK(result["signal"] == 0);
  CHECK(result["message"] == "");
  CHECK(result["end_time"].get<int64_t>() >= result["start_time"].get<int64_t>());
  CHECK(readPid(step.path() / "pid") > 0);
  CHECK(slurp(step.path() / "state") == "done\n");
  CHECK(fs::exists(step.path() / "script"));
  CHECK((fs::status(step.path() / "script").permissions() & fs::perms::all) == fs::perms::owner_all);
  const std::string out = slurp(step.work() / "slurm-77.out");
  CHECK(out == "job=77 step=batch procid=0 submit=yes\nnodes=n[1-2] cpus=2 sluid=s\noops\n" + step.work().string() + "\n");
}

TEST_CASE("a script without a shebang runs under /bin/sh", "[stepd][exe]") {
  StepDir step;
  json spec = step.baseSpec("batch");
  spec["script"] = "echo plain\n";
  spec["stdout"] = "out-%x-%j.txt";
  spec["stderr"] = "err-%j.txt";
  step.start(spec);
  CHECK(step.finish()["exit_code"] == 0);
  CHECK(slurp(step.work() / "out-envtest-77.txt") == "plain\n");
  CHECK(fs::exists(step.work() / "err-77.txt"));
}

TEST_CASE("a missing work directory falls back to /tmp with a note", "[stepd][exe]") {
  StepDir step;
  json spec = step.baseSpec("batch");
  spec["work_dir"] = (step.path() / "gone").string();
  spec["stdout"] = (step.work() / "out").string();
  spec["script"] = "#!/bin/sh\npwd\n";
  step.start(spec);
  CHECK(step.finish()["exit_code"] == 0);
  const std::string out = slurp(step.work() / "out");
  CHECK(out.find("cannot enter the work directory") != std::string::npos);
  CHECK(out.find("/tmp\n") != std::string::npos);
}

TEST_CASE("several tasks get their own ids and per-task files", "[stepd][exe]") {
  StepDir step;
  json spec = step.baseSpec("0");
  spec["argv"] = {"sh", "-c", "echo $SLURM_PROCID $SLURM_LOCALID $SLURM_NODEID; exit $SLURM_LOCALID"};
  spec["tasks_on_node"] = 2;
  spec["first_task_id"] = 2;
  spec["node_id"] = 1;
  spec["stdout"] = "task-%t.out";
  step.start(spec);
  CHECK(step.finish()["exit_code"] == 1);  // the highest task exit code
  CHECK(slurp(step.work() / "task-2.out") == "2 0 1\n");
  CHECK(slurp(step.work() / "task-3.out") == "3 1 1\n");
}

TEST_CASE("a spec without a required key fails clearly", "[stepd][exe]") {
  StepDir step;
  json spec = step.baseSpec("batch");
  spec.erase("uid");
  spec["script"] = "true\n";
  step.start(spec);
  json result = step.finish();
  CHECK(result["exit_code"] == 1);
  CHECK(result["message"].get<std::string>().find("\"uid\"") != std::string::npos);
}

TEST_CASE("suspend, resume and terminate through signals without a cgroup", "[stepd][exe]") {
  StepDir step;
  json spec = step.baseSpec("0");
  spec["argv"] = {"sh", "-c", "echo $$ > " + (step.path() / "task.pid").string() + "; exec sleep 30"};
  step.start(spec);
  REQUIRE(waitFor([&] { return readPid(step.path() / "task.pid") > 0 && slurp(step.path() / "state") == "running\n"; }));
  const pid_t task = readPid(step.path() / "task.pid");
  REQUIRE(waitFor([&] { return processState(task) == 'S'; }));

  step.signal(SIGUSR1);
  CHECK(waitFor([&] { return processState(task) == 'T'; }));
  CHECK(waitFor([&] { return slurp(step.path() / "state") == "suspended\n"; }));
  step.signal(SIGUSR2);
  CHECK(waitFor([&] { return processState(task) == 'S'; }));
  CHECK(waitFor([&] { return slurp(step.path() / "state") == "running\n"; }));

  step.signal(SIGTERM);
  json result = step.finish();
  CHECK(result["signal"] == SIGTERM);
}

TEST_CASE("suspend and resume freeze the step's real cgroup", "[stepd][exe][real]") {
  const std::string root = "/sys/fs/cgroup/unified";
  const std::string probe = root + "/gantry-exe-probe-" + std::to_string(::getpid());
  std::error_code ec;
  if (!fs::exists(root + "/cgroup.controllers") || !fs::create_directory(probe, ec)) {
    WARN("skipped: no cgroup v2 (" << root << " missing or not writable)");
    return;
  }
  fs::remove(probe, ec);
  StepDir step;
  const std::string base = "gantry-exe-" + std::to_string(::getpid());
  json spec = step.baseSpec("0");
  spec["argv"] = {"sh", "-c", "echo $$ > " + (step.path() / "task.pid").string() + "; exec sleep 30"};
  spec["cgroup"] = {{"root", root}, {"base", base}, {"job_id_paths", true}};
  step.start(spec);
  REQUIRE(waitFor([&] { return readPid(step.path() / "task.pid") > 0 && slurp(step.path() / "state") == "running\n"; }));
  const pid_t task = readPid(step.path() / "task.pid");
  const std::string step_cgroup = root + "/" + base + "/job_77/step_0";
  CHECK(slurp(step_cgroup + "/cgroup.procs").find(std::to_string(task)) != std::string::npos);

  step.signal(SIGUSR1);
  CHECK(waitFor([&] { return slurp(step_cgroup + "/cgroup.events").find("frozen 1") != std::string::npos; }));
  CHECK(waitFor([&] { return slurp(step.path() / "state") == "suspended\n"; }));
  CHECK(processState(task) != 'T');  // frozen in the freezer, not stopped by a signal
  step.signal(SIGUSR2);
  CHECK(waitFor([&] { return slurp(step_cgroup + "/cgroup.events").find("frozen 0") != std::string::npos; }));

  step.signal(SIGTERM);
  json result = step.finish();
  CHECK(result["signal"] == SIGTERM);
  CHECK_FALSE(fs::exists(step_cgroup));
  fs::remove(root + "/" + base, ec);
}

TEST_CASE("ConstrainDevices refuses the other GPUs and renumbers the visible ones", "[stepd][exe][real]") {
  const std::string root = "/sys/fs/cgroup/unified";
  const std::string probe = root + "/gantry-exe-probe-" + std::to_string(::getpid());
  std::error_code ec;
  if (!fs::exists(root + "/cgroup.controllers") || !fs::create_directory(probe, ec)) {
    WARN("skipped: no cgroup v2 (" << root << " missing or not writable)");
    return;
  }
  fs::remove(probe, ec);
  StepDir step;
  const std::string base = "gantry-exe-" + std::to_string(::getpid());
  json spec = step.baseSpec("0");
  // /dev/zero and /dev/full stand in for two GPUs of the node; the step holds the second.
  spec["gpus"] = {{{"index", 1}, {"files", {"/dev/full"}}, {"vendor", "nvidia"}}};
  spec["node_gpu_files"] = {"/dev/zero", "/dev/full"};
  spec["cgroup"] = {{"root", root}, {"base", base}, {"job_id_paths", true}, {"constrain_devices", true}};
  spec["stdout"] = "out";
  spec["argv"] = {"sh", "-c",
                  "echo CVD=$CUDA_VISIBLE_DEVICES; if head -c1 /dev/zero >/dev/null 2>&1; then echo zero-open; "
                  "else echo zero-refused; fi; head -c1 /dev/full >/dev/null && echo full-open"};
  step.start(spec);
  json result = step.finish();
  if (result["exit_code"] != 0 && result["message"].get<std::string>().find("BPF") != std::string::npos) {
    WARN("skipped: BPF device programs unavailable: " << result["message"]);
    return;
  }
  CHECK(result["message"] == "");
  CHECK(slurp(step.work() / "out") == "CVD=0\nzero-refused\nfull-open\n");
  fs::remove(root + "/" + base, ec);
}

TEST_CASE("standard input reaches task 0 only", "[stepd][exe]") {
  StepDir step;
  std::ofstream(step.work() / "input.txt") << "hello\n";
  json spec = step.baseSpec("1");
  spec["argv"] = {"sh", "-c", "echo \"$SLURM_PROCID:$(cat)\""};
  spec["tasks_on_node"] = 2;
  spec["stdin"] = "input.txt";
  spec["stdout"] = "in-%t.out";
  step.start(spec);
  CHECK(step.finish()["exit_code"] == 0);
  CHECK(slurp(step.work() / "in-0.out") == "0:hello\n");
  CHECK(slurp(step.work() / "in-1.out") == "1:\n");
}

TEST_CASE("a task ignoring SIGTERM is killed after kill_wait_sec", "[stepd][exe]") {
  StepDir step;
  json spec = step.baseSpec("0");
  spec["kill_wait_sec"] = 1;
  spec["argv"] = {"sh", "-c", "trap '' TERM; echo ready > " + (step.path() / "ready").string() + "; while :; do sleep 0.1; done"};
  step.start(spec);
  REQUIRE(waitFor([&] { return fs::exists(step.path() / "ready"); }));
  const auto before = std::chrono::steady_clock::now();
  step.signal(SIGTERM);
  json result = step.finish();
  CHECK(result["signal"] == SIGKILL);
  CHECK(std::chrono::steady_clock::now() - before >= std::chrono::milliseconds(900));
}

TEST_CASE("the extern step holds until it is told to end", "[stepd][exe]") {
  StepDir step;
  json spec = step.baseSpec("extern");
  step.start(spec);
  REQUIRE(waitFor([&] { return slurp(step.path() / "state") == "running\n"; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK_FALSE(fs::exists(step.path() / "result.json"));
  step.signal(SIGTERM);
  json result = step.finish();
  CHECK(result["exit_code"] == 0);
  CHECK(result["signal"] == 0);
}

TEST_CASE("concurrent steps of gres_test.bash print their own CUDA_VISIBLE_DEVICES", "[stepd][exe]") {
  // sbatch --gres=gpu:4 -n4: srun --gres=gpu:2 -n2, then two srun --gres=gpu:1 -n1, all at once.
  const std::vector<std::vector<int>> allocations = {{0, 1}, {2}, {3}};
  std::vector<std::unique_ptr<StepDir>> steps;
  for (size_t i = 0; i < allocations.size(); ++i) {
    auto step = std::make_unique<StepDir>();
    json spec = step->baseSpec(std::to_string(i));
    spec["job_id"] = 1234;
    spec["tasks_on_node"] = static_cast<int>(allocations[i].size());
    spec["stdout"] = "show-%t.out";
    spec["argv"] = {"sh", "-c", "echo JobStep=$SLURM_JOB_ID.$SLURM_STEP_ID CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"};
    json gpus = json::array();
    for (int index : allocations[i])
      gpus.push_back({{"index", index}, {"vendor", "nvidia"}, {"files", {"/dev/nvidia" + std::to_string(index)}}});
    spec["gpus"] = gpus;
    step->start(spec);
    steps.push_back(std::move(step));
  }
  const std::vector<std::string> expected = {"JobStep=1234.0 CUDA_VISIBLE_DEVICES=0,1\n",
                                             "JobStep=1234.1 CUDA_VISIBLE_DEVICES=2\n",
                                             "JobStep=1234.2 CUDA_VISIBLE_DEVICES=3\n"};
  for (size_t i = 0; i < steps.size(); ++i) {
    CHECK(steps[i]->finish()["exit_code"] == 0);
    CHECK(slurp(steps[i]->work() / "show-0.out") == expected[i]);
  }
  CHECK(slurp(steps[0]->work() / "show-1.out") == expected[0]);
}

TEST_CASE("as root, the task runs as the user and the output file is the user's", "[stepd][exe]") {
  if (::geteuid() != 0) {
    WARN("skipped: not running as root");
    return;
  }
  StepDir step;
  fs::permissions(step.work(), fs::perms::all);
  json spec = step.baseSpec("batch");
  spec["uid"] = 65534;
  spec["gid"] = 65534;
  spec["user"] = "nobody";
  spec["script"] = "#!/bin/sh\nid -u\nid -g\n";
  step.start(spec);
  CHECK(step.finish()["exit_code"] == 0);
  CHECK(slurp(step.work() / "slurm-77.out") == "65534\n65534\n");
  struct stat st {};
  REQUIRE(::stat((step.work() / "slurm-77.out").c_str(), &st) == 0);
  CHECK(st.st_uid == 65534);
  REQUIRE(::stat((step.path() / "script").c_str(), &st) == 0);
  CHECK(st.st_uid == 65534);
}

namespace {

bool gone(pid_t pid) {
  const char state = processState(pid);
  return state == '?' || state == 'Z';
}

void queueTaskSignal(pid_t stepd, int sig, bool leaderOnly) {
  // The node agent's request (stepd/core/step_control.h): SIGRTMIN + 2
  // with the signal in the low byte and the reach above it.
  sigval value{};
  value.sival_int = sig | ((leaderOnly ? 1 : 0) << 8);
  REQUIRE(::sigqueue(stepd, SIGRTMIN + 2, value) == 0);
}

}  // namespace

TEST_CASE("a user's signal goes to the tasks and never suspends or ends the step", "[stepd][exe]") {
  StepDir step;
  json spec = step.baseSpec("0");
  const std::string got = (step.path() / "got").string();
  spec["argv"] = {"sh", "-c", "trap 'echo usr1 >> " + got + "' USR1; echo $$ > " + (step.path() / "task.pid").string() +
                                  "; while :; do sleep 0.1; done"};
  spec["kill_wait_sec"] = 1;
  step.start(spec);
  REQUIRE(waitFor([&] { return readPid(step.path() / "task.pid") > 0 && slurp(step.path() / "state") == "running\n"; }));
  const pid_t task = readPid(step.path() / "task.pid");

  queueTaskSignal(step.pid(), SIGUSR1, false);
  CHECK(waitFor([&] { return slurp(got) == "usr1\n"; }));
  CHECK(slurp(step.path() / "state") == "running\n");

  // A stopped task is woken to be ended: nothing stays stopped and alive.
  queueTaskSignal(step.pid(), SIGSTOP, false);
  REQUIRE(waitFor([&] { return processState(task) == 'T'; }));
  step.signal(SIGTERM);
  json result = step.finish();
  CHECK(result["signal"] == SIGTERM);
  CHECK(gone(task));
}

TEST_CASE("--batch reaches the task's own process, not its children", "[stepd][exe]") {
  StepDir step;
  json spec = step.baseSpec("batch");
  spec["script"] = "#!/bin/sh\nsleep 30 &\necho $! > " + (step.path() / "child.pid").string() + "\necho $$ > " +
                   (step.path() / "task.pid").string() + "\nwait\n";
  step.start(spec);
  REQUIRE(waitFor([&] { return readPid(step.path() / "child.pid") > 0 && readPid(step.path() / "task.pid") > 0; }));
  const pid_t task = readPid(step.path() / "task.pid"), child = readPid(step.path() / "child.pid");
  queueTaskSignal(step.pid(), SIGSTOP, true);
  REQUIRE(waitFor([&] { return processState(task) == 'T'; }));
  CHECK(processState(child) == 'S');
  step.signal(SIGTERM);
  step.finish();
  CHECK(gone(task));
  CHECK(gone(child));
}

TEST_CASE("what a task leaves running ends with the step", "[stepd][exe]") {
  StepDir step;
  json spec = step.baseSpec("batch");
  spec["script"] = "#!/bin/sh\nsetsid sleep 30 &\necho $! > " + (step.path() / "left.pid").string() + "\nexit 0\n";
  step.start(spec);
  CHECK(step.finish()["exit_code"] == 0);
  const pid_t left = readPid(step.path() / "left.pid");
  REQUIRE(left > 0);
  CHECK(gone(left));
}

TEST_CASE("the tasks die with a killed gantrystepd", "[stepd][exe]") {
  StepDir step;
  json spec = step.baseSpec("0");
  spec["argv"] = {"sh", "-c", "echo $$ > " + (step.path() / "task.pid").string() + "; exec sleep 30"};
  step.start(spec);
  REQUIRE(waitFor([&] { return readPid(step.path() / "task.pid") > 0 && fs::exists(step.path() / "task_groups"); }));
  const pid_t task = readPid(step.path() / "task.pid");
  CHECK(std::stoi(slurp(step.path() / "task_groups")) == task);
  step.signal(SIGKILL);
  ::waitpid(step.pid(), nullptr, 0);
  CHECK(waitFor([&] { return gone(task); }, 50));
}

TEST_CASE("as root, the script is in the user's own directory and the step's files are root's", "[stepd][exe]") {
  if (::geteuid() != 0) {
    WARN("skipped: not running as root");
    return;
  }
  StepDir step;
  fs::permissions(step.path(), fs::perms::owner_all);
  const fs::path work = fs::temp_directory_path() / ("gantry-work-" + std::to_string(::getpid()));
  fs::create_directories(work);
  fs::permissions(work, fs::perms::all);
  const fs::path scripts = step.path().string() + "-scripts";
  json spec = step.baseSpec("batch");
  spec["uid"] = 65534;
  spec["gid"] = 65534;
  spec["user"] = "nobody";
  spec["work_dir"] = work.string();
  spec["script_dir"] = scripts.string();
  spec["script"] = "#!/bin/sh\nstat -c '%u %a' \"$0\" \"$(dirname \"$0\")\"\n";
  step.start(spec);
  CHECK(step.finish()["exit_code"] == 0);
  CHECK(slurp(work / "slurm-77.out") == "65534 700\n65534 700\n");
  CHECK_FALSE(fs::exists(scripts));
  for (const char* name : {"pid", "state", "result.json", "task_groups", "stepd.log"}) {
    struct stat st {};
    REQUIRE(::stat((step.path() / name).c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0600);
  }
  fs::remove_all(work);
}
