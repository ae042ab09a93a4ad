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
    auto settings = agent::stepAccountingSettings(conf("jobacct_gather/none", 15, {"gres/gpu"}), "nvml", {});
    CHECK(stepAccountingKeys(settings, step("0"), false).empty());
  }
  SECTION("the extern step runs no task and gets no key") {
    auto settings = agent::stepAccountingSettings(conf("jobacct_gather/linux", 15, {}), "nvml", {});
    CHECK(stepAccountingKeys(settings, step("extern"), false).empty());
  }
  SECTION("the interval, tracked TRES, DisableGPUAcct and plugin are passed on") {
    auto settings =
        agent::stepAccountingSettings(conf("jobacct_gather/cgroup", 0, {"gres/gpu"}, true), "rsmi", {});
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
    auto settings = agent::stepAccountingSettings(conf("jobacct_gather/linux", 20, {"gres/"}), "nvml", {});
    auto tracked = stepAccountingKeys(settings, step("1"), false)["accounting"]["tracked_tres"];
    CHECK(std::find(tracked.begin(), tracked.end(), "gres/gpumem") == tracked.end());
    CHECK(std::find(tracked.begin(), tracked.end(), "cpu") != tracked.end());
  }
  SECTION("without detection, a GPU with a MIG UUID is a MIG instance and keeps the controller's vendor") {
    auto settings = agent::stepAccountingSettings(conf("jobacct_gather/linux", 20, {"gres/gpu"}), "nvml", {});
    auto request = step("3", {"GPU-77aa", "MIG-19bc"});
    auto gpus = stepAccountingKeys(settings, request, false)["accounting"]["gpus"];
    REQUIRE(gpus.size() == 2);
    CHECK(gpus[0] == nlohmann::json({{"index", 4}, {"vendor", ""}, {"mig", false}}));
    CHECK(gpus[1] == nlohmann::json({{"index", 5}, {"vendor", ""}, {"mig", true}}));
  }
  SECTION("detection's vendor and MIG status win, found by UUID or else bus id") {
    auto settings = agent::stepAccountingSettings(
        conf("jobacct_gather/linux", 20, {"gres/gpu"}), "rsmi",
        {{.uuid = "GPU-77aa", .pciBusId = "0000:c1:00.0", .vendor = "amd"},
         {.uuid = "", .pciBusId = "0000:c2:00.0", .vendor = "amd"},
         {.uuid = "MIG-ffee", .pciBusId = "0000:c3:00.0", .vendor = "nvidia", .isMig = true}});
    auto request = step("3", {"GPU-77aa", "", "MIG-ffee"});
    request.mutable_gpus(1)->set_pci_bus_id("0000:c2:00.0");
    for (auto& gpu : *request.mutable_gpus()) gpu.set_vendor("nvidia");
    auto gpus = stepAccountingKeys(settings, request, false)["accounting"]["gpus"];
    REQUIRE(gpus.size() == 3);
    CHECK(gpus[0]["vendor"] == "amd");
    CHECK(gpus[1]["vendor"] == "amd");
    CHECK(gpus[2]["vendor"] == "nvidia");
    CHECK(gpus[2]["mig"] == true);
  }
}
