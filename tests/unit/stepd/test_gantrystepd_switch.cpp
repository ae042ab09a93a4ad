// The step functions of switch.lua, run by the real gantrystepd with small
// scripts of the test's own: when each runs, and what its answers do to
// the step, its tasks' environment and the node.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/unit/stepd/stepd_process.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace gantry::stepd::testing;

namespace {

// A managed job's step with `lua` as its switch.lua.
json switchSpec(const StepDir& step, const std::string& stepId, const std::string& lua) {
  const fs::path script = step.path() / "switch.lua";
  std::ofstream(script) << lua;
  json spec = step.baseSpec(stepId);
  if (stepId != "batch" && stepId != "extern") spec["argv"] = {"sh", "-c", "touch " + (step.work() / "ran").string()};
  spec["switch_script"] = script.string();
  spec["switch_managed"] = true;
  spec["switch_stepinfo"] = R"({"fabric": {"vni": 4096}})";
  spec["switch_sluid"] = "sRUNTWO";
  return spec;
}

std::string stepLog(const StepDir& step) { return slurp(step.path() / "stepd.log"); }

bool logHas(const StepDir& step, const std::string& text) { return stepLog(step).find(text) != std::string::npos; }

// Each function logs that it ran and returns `rc`.
std::string tracingScript(int rc, bool specialSteps) {
  return "function slurm_switch_block_job_complete() slurm.log_info('asked block') return true end\n"
         "function slurm_switch_setup_special_steps() slurm.log_info('asked special') return " +
         std::string(specialSteps ? "true" : "false") +
         " end\n"
         "function slurm_switch_step_preinit(step, info) slurm.log_info('ran preinit') return " +
         std::to_string(rc) +
         " end\n"
         "function slurm_switch_step_init(step, info) slurm.log_info('ran init') return " + std::to_string(rc) +
         ", {FABRIC_SPECIAL = 'on'} end\n"
         "function slurm_switch_step_postfini(step, info) slurm.log_info('ran postfini') return " +
         std::to_string(rc) + " end\n";
}

}  // namespace

TEST_CASE("a negative preinit fails the step before its cgroup exists and before any task", "[stepd][exe][switch]") {
  StepDir step;
  const fs::path root = step.path() / "cgroupfs";
  fs::create_directories(root);
  const std::string jobCgroup = (root / "gantry" / "job_77").string();
  json spec = switchSpec(step, "3",
                         "function slurm_switch_step_preinit(step, info)\n"
                         "  slurm.log_info('job cgroup present: %s', tostring(os.rename('" + jobCgroup + "', '" +
                             jobCgroup + "') ~= nil))\n"
                         "  return -4\n"
                         "end\n"
                         "function slurm_switch_step_init() slurm.log_info('ran init') return 0 end\n"
                         "function slurm_switch_step_postfini() slurm.log_info('ran postfini') return 0 end\n");
  spec["cgroup"] = {{"root", root.string()}, {"job_id_paths", true}};
  step.start(spec);
  json result = step.finish();
  CHECK(result["exit_code"] == 1);
  CHECK(result["message"] == "Error configuring interconnect");
  CHECK_FALSE(fs::exists(step.work() / "ran"));
  CHECK(logHas(step, "switch/lua: slurm_switch_step_preinit: job cgroup present: false"));
  CHECK(logHas(step, "slurm_switch_step_preinit returned -4: Error configuring interconnect"));
  CHECK_FALSE(logHas(step, "ran init"));
  CHECK_FALSE(logHas(step, "ran postfini"));  // postfini pairs with a preinit that let the step go on
  CHECK_FALSE(fs::exists(step.path() / "cgroup"));  // the launcher never recorded a cgroup
}

TEST_CASE("step_init's environment reaches every task, under the launcher's SLURM_* variables",
          "[stepd][exe][switch]") {
  StepDir step;
  const fs::path root = step.path() / "cgroupfs";
  fs::create_directories(root);
  const std::string stepCgroup = (root / "gantry" / "job_77" / "step_5").string();
  json spec = switchSpec(step, "5",
                         "function slurm_switch_step_init(step, info)\n"
                         "  slurm.log_info('step cgroup present: %s', tostring(os.rename('" + stepCgroup + "', '" +
                             stepCgroup + "') ~= nil))\n"
                         "  return slurm.SUCCESS, {FABRIC_PLANE = 'blue', FABRIC_LANES = 48, FABRIC_RATE = 2.5,\n"
                         "    FABRIC_TRUNK = true, KEEP_ME = false, FABRIC_MAP = {1, 2}, SLURM_JOB_ID = '31337',\n"
                         "    SLURM_FABRIC = 'mine', [9] = 'nine'}\n"
                         "end\n");
  spec["cgroup"] = {{"root", root.string()}, {"job_id_paths", true}};
  spec["env"]["KEEP_ME"] = "the job had it";
  spec["tasks_on_node"] = 2;
  spec["stdout"] = "env-%t.out";
  spec["argv"] = {"sh", "-c",
                  "echo \"plane=$FABRIC_PLANE lanes=$FABRIC_LANES rate=$FABRIC_RATE trunk=$FABRIC_TRUNK "
                  "keep=${KEEP_ME-unset} map=${FABRIC_MAP-unset} job=$SLURM_JOB_ID fabric=$SLURM_FABRIC\""};
  step.start(spec);
  json result = step.finish();
  CHECK(result["message"] == "");
  CHECK(result["exit_code"] == 0);
  const std::string expected = "plane=blue lanes=48 rate=2.5 trunk=1 keep=unset map=unset job=77 fabric=mine\n";
  CHECK(slurp(step.work() / "env-0.out") == expected);
  CHECK(slurp(step.work() / "env-1.out") == expected);
  CHECK(logHas(step, "switch/lua: slurm_switch_step_init: step cgroup present: true"));
  CHECK(logHas(step, "error: switch/lua: slurm_switch_step_init: environment entry FABRIC_MAP skipped: the value is a table"));
  CHECK(logHas(step, "error: switch/lua: slurm_switch_step_init: environment entry 9 skipped"));
}

TEST_CASE("a negative step_init fails the step before any task; postfini still runs", "[stepd][exe][switch]") {
  StepDir step;
  json spec = switchSpec(step, "2",
                         "function slurm_switch_step_init() return -9, {FABRIC_PLANE = 'red'} end\n"
                         "function slurm_switch_step_postfini() slurm.log_info('ran postfini') return 0 end\n");
  step.start(spec);
  json result = step.finish();
  CHECK(result["exit_code"] == 1);
  CHECK(result["message"] == "Error configuring interconnect");
  CHECK_FALSE(fs::exists(step.work() / "ran"));
  CHECK(logHas(step, "slurm_switch_step_init returned -9: Error configuring interconnect"));
  CHECK(logHas(step, "ran postfini"));
  CHECK_FALSE(result.contains("drain_reason"));
}

TEST_CASE("a negative postfini, run once every process of the step is gone, drains the node",
          "[stepd][exe][switch]") {
  StepDir step;
  const std::string leftPid = (step.path() / "left.pid").string();
  json spec = switchSpec(step, "1",
                         "function slurm_switch_step_postfini(step, info)\n"
                         "  local pid = io.open('" + leftPid + "'):read('l')\n"
                         "  slurm.log_info('left process alive: %s', tostring(io.open('/proc/' .. pid .. '/stat') ~= nil))\n"
                         "  return -1\n"
                         "end\n");
  spec["argv"] = {"sh", "-c", "setsid sleep 30 & echo $! > " + leftPid};
  step.start(spec);
  json result = step.finish();
  CHECK(result["exit_code"] == 0);
  CHECK(result["message"] == "");
  CHECK(result["drain_reason"] == "switch_g_job_postfini failed");
  CHECK(logHas(step, "switch/lua: slurm_switch_step_postfini: left process alive: false"));
  CHECK(logHas(step, "slurm_switch_step_postfini returned -1; the node is drained: switch_g_job_postfini failed"));
}

TEST_CASE("Lua errors in the step functions are logged and the step goes on", "[stepd][exe][switch]") {
  StepDir step;
  json spec = switchSpec(step, "4",
                         "function slurm_switch_step_preinit() error('fabric manager unreachable') end\n"
                         "function slurm_switch_step_init() error('no lanes left') end\n"
                         "function slurm_switch_step_postfini() error('cannot release lanes') end\n");
  step.start(spec);
  json result = step.finish();
  CHECK(result["exit_code"] == 0);
  CHECK(result["message"] == "");
  CHECK_FALSE(result.contains("drain_reason"));
  CHECK(fs::exists(step.work() / "ran"));
  CHECK(logHas(step, "error: switch/lua: slurm_switch_step_preinit: "));
  CHECK(logHas(step, "fabric manager unreachable; the step proceeds"));
  CHECK(logHas(step, "no lanes left; the step proceeds"));
  CHECK(logHas(step, "cannot release lanes; the node is not drained"));
}

TEST_CASE("positive answers of the step functions are logged and enforce nothing", "[stepd][exe][switch]") {
  StepDir step;
  json spec = switchSpec(step, "6", tracingScript(3, false));
  spec["argv"] = {"sh", "-c", "echo special=$FABRIC_SPECIAL > " + (step.work() / "ran").string()};
  step.start(spec);
  json result = step.finish();
  CHECK(result["exit_code"] == 0);
  CHECK(result["message"] == "");
  CHECK_FALSE(result.contains("drain_reason"));
  CHECK(slurp(step.work() / "ran") == "special=on\n");
  for (const char* name : {"preinit", "init", "postfini"})
    CHECK(logHas(step, std::string("slurm_switch_step_") + name + " returned 3; not enforced"));
}

TEST_CASE("the batch step runs only step_init, and only when special steps is true", "[stepd][exe][switch]") {
  StepDir step;
  const bool special = GENERATE(true, false);
  json spec = switchSpec(step, "batch", tracingScript(0, special));
  spec["script"] = "#!/bin/sh\necho \"special=${FABRIC_SPECIAL-unset}\"\n";
  step.start(spec);
  json result = step.finish();
  CHECK(result["exit_code"] == 0);
  CHECK(logHas(step, "asked special"));
  CHECK(logHas(step, "asked block"));
  CHECK_FALSE(logHas(step, "ran preinit"));
  CHECK_FALSE(logHas(step, "ran postfini"));
  CHECK(logHas(step, "ran init") == special);
  CHECK(slurp(step.work() / "slurm-77.out") == (special ? "special=on\n" : "special=unset\n"));
}

TEST_CASE("the extern step asks both questions and runs none of the step functions", "[stepd][exe][switch]") {
  StepDir step;
  json spec = switchSpec(step, "extern", tracingScript(-1, true));
  step.start(spec);
  REQUIRE(waitFor([&] { return slurp(step.path() / "state") == "running\n"; }));
  step.signal(SIGTERM);
  json result = step.finish();
  CHECK(result["exit_code"] == 0);
  CHECK(result["message"] == "");
  CHECK_FALSE(result.contains("drain_reason"));
  CHECK(logHas(step, "switchlua: script loaded"));
  CHECK(logHas(step, "asked block"));
  CHECK(logHas(step, "asked special"));
  CHECK_FALSE(logHas(step, "ran "));
}

TEST_CASE("a job the plugin does not manage runs none of the step functions", "[stepd][exe][switch]") {
  StepDir step;
  json spec = switchSpec(step, "0", tracingScript(-1, true));
  spec["switch_managed"] = false;
  step.start(spec);
  json result = step.finish();
  CHECK(result["exit_code"] == 0);
  CHECK(result["message"] == "");
  CHECK_FALSE(result.contains("drain_reason"));
  CHECK(fs::exists(step.work() / "ran"));
  CHECK(logHas(step, "asked special"));
  CHECK_FALSE(logHas(step, "ran "));
}

TEST_CASE("the step functions get the step table and the job's stepinfo, or nil said in the log",
          "[stepd][exe][switch]") {
  StepDir step;
  const std::string lua =
      "function slurm_switch_step_preinit(step, info)\n"
      "  local vni = info and info.fabric.vni or 'none'\n"
      "  slurm.log_info('job=%d partition=%s sluid=%s vni=%s', step.job_id, tostring(step.partition), step.sluid, vni)\n"
      "  return 0\n"
      "end\n";
  SECTION("the dictionary as the controller passed it") {
    json spec = switchSpec(step, "7", lua);
    step.start(spec);
    CHECK(step.finish()["exit_code"] == 0);
    CHECK(logHas(step, "slurm_switch_step_preinit: job=77 partition=nil sluid=sRUNTWO vni=4096"));
    CHECK_FALSE(logHas(step, "is nil"));
  }
  SECTION("missing: nil, and an error line says so") {
    json spec = switchSpec(step, "7", lua);
    spec.erase("switch_stepinfo");
    spec["partition"] = "fabric";
    step.start(spec);
    CHECK(step.finish()["exit_code"] == 0);
    CHECK(logHas(step, "error: switch/lua: the stepinfo of JobId=77 is nil: the controller could not pass it"));
    CHECK(logHas(step, "job=77 partition=fabric sluid=sRUNTWO vni=none"));
  }
  SECTION("text that is not a JSON object: nil, and an error line says so") {
    json spec = switchSpec(step, "7", lua);
    spec["switch_stepinfo"] = "[4096]";
    step.start(spec);
    CHECK(step.finish()["exit_code"] == 0);
    CHECK(logHas(step, "the stepinfo of JobId=77 is nil: it is a JSON array, not an object"));
    CHECK(logHas(step, "vni=none"));
  }
  SECTION("without a sluid from the controller: the job's SLUID") {
    json spec = switchSpec(step, "7", lua);
    spec.erase("switch_sluid");
    spec["argv"] = {"sh", "-c", "echo $SLURM_JOB_SLUID > " + (step.work() / "sluid").string()};
    step.start(spec);
    CHECK(step.finish()["exit_code"] == 0);
    std::string sluid = slurp(step.work() / "sluid");
    REQUIRE(sluid.size() > 1);
    sluid.pop_back();
    CHECK(logHas(step, "sluid=" + sluid + " vni=4096"));
  }
}

TEST_CASE("an environment from step_init that is not a table is logged and sets nothing", "[stepd][exe][switch]") {
  StepDir step;
  json spec = switchSpec(step, "8", "function slurm_switch_step_init() return 0, 'FABRIC_PLANE=green' end\n");
  spec["argv"] = {"sh", "-c", "echo plane=${FABRIC_PLANE-unset} > " + (step.work() / "ran").string()};
  step.start(spec);
  json result = step.finish();
  CHECK(result["exit_code"] == 0);
  CHECK(slurp(step.work() / "ran") == "plane=unset\n");
  CHECK(logHas(step, "error: switch/lua: slurm_switch_step_init: the second value is a string, not a table; "
                     "no environment is set"));
}
