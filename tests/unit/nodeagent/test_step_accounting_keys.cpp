// The accounting key the agent puts in a step's spec.json: one row per rule.
#include <algorithm>
#include <catch2/catch.hpp>

#include "nodeagent/launch/step_accounting.h"

using namespace gantry;
using agent::StepAccountingSettings;
using agent::stepAccountingKeys;

namespace {

v1::LaunchStepRequest step(const std::string& stepId, std::vector<std::string> gpuUuids = {}) {
  v1::LaunchStepRequest request;
  request.set_job_id(57);
  request.set_step_id(stepId);
  int index = 4;
  for (const auto& uuid : gpuUuids) {
    auto* gpu = request.add_gpus();
    gpu->set_index(index++);
    gpu->set_name("gpu");
    gpu->set_uuid(uuid);
  }
  return request;
}

config::GantryConf conf(const std::string& gatherType, int interval, std::vector<std::string> tres,
                        bool disable = false) {
  config::GantryConf c;
  c.jobAcctGatherType = gatherType;
  c.jobAcctGatherTaskSec = interval;
  c.accountingStorageTres = std::move(tres);
  c.disableGpuAcct = disable;
  return c;
}

}  // namespace

TEST_CASE("the accounting key of a step's spec.json", "[agent][accounting]") {
  SECTION("jobacct_gather/none: no key, nothing is sampled") {
    auto settings = agent::stepAccountingSettings(conf("jobacct_gather/none", 15, {"gres/gpu"}), "nvml");
    CHECK(stepAccountingKeys(settings, step("0"), false).empty());
  }
  SECTION("the extern step runs no task and gets no key") {
    auto settings = agent::stepAccountingSettings(conf("jobacct_gather/linux", 15, {}), "nvml");
    CHECK(stepAccountingKeys(settings, step("extern"), false).empty());
  }
  SECTION("the interval, tracked TRES, DisableGPUAcct and plugin are passed on") {
    auto settings =
        agent::stepAccountingSettings(conf("jobacct_gather/cgroup", 0, {"gres/gpu"}, true), "rsmi");
    auto keys = stepAccountingKeys(settings, step("batch"), true)["accounting"];
    CHECK(keys["interval_sec"] == 0);
    auto tracked = keys["tracked_tres"].get<std::vector<std::string>>();
    CHECK(std::find(tracked.begin(), tracked.end(), "gres/gpumem") != tracked.end());
    CHECK(std::find(tracked.begin(), tracked.end(), "gres/gpuutil") != tracked.end());
    CHECK(keys["disable_gpu_acct"] == true);
    CHECK(keys["gpu_plugin"] == "rsmi");
    CHECK(keys["constrain_devices"] == true);
    CHECK(keys["cgroup_version"] == 2);
  }
  SECTION("a TRES list the controller would refuse tracks only the always-tracked ones") {
    auto settings = agent::stepAccountingSettings(conf("jobacct_gather/linux", 20, {"gres/"}), "nvml");
    auto tracked = stepAccountingKeys(settings, step("1"), false)["accounting"]["tracked_tres"];
    CHECK(std::find(tracked.begin(), tracked.end(), "gres/gpumem") == tracked.end());
    CHECK(std::find(tracked.begin(), tracked.end(), "cpu") != tracked.end());
  }
  SECTION("GPUs with a MIG UUID are listed as MIG instances") {
    auto settings = agent::stepAccountingSettings(conf("jobacct_gather/linux", 20, {"gres/gpu"}), "nvml");
    auto keys = stepAccountingKeys(settings, step("3", {"GPU-77aa", "MIG-19bc", "MIG-20cd"}), false);
    CHECK(keys["accounting"]["mig_gpus"] == std::vector<int>{5, 6});
  }
}
