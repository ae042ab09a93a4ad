// Which GPU library the agent tells a step's launcher to hold, and the
// --gpu-freq it passes on: one row per rule.
#include <catch2/catch.hpp>

#include "nodeagent/launch/step_gpu_library.h"

using namespace gantry;
using agent::StepGpuLibrarySettings;
using agent::stepGpuLibraryKeys;

namespace {

v1::LaunchStepRequest step(const std::string& stepId, const std::string& gpuFreq, const std::string& gpuName) {
  v1::LaunchStepRequest request;
  request.set_job_id(41);
  request.set_step_id(stepId);
  request.set_gpu_freq(gpuFreq);
  if (!gpuName.empty()) {
    auto* gpu = request.add_gpus();
    gpu->set_index(5);
    gpu->set_name(gpuName);
  }
  return request;
}

StepGpuLibrarySettings node(const std::string& plugin, bool accounting, bool disableGpuAcct = false) {
  return {.selectedPlugin = plugin, .accountingOn = accounting, .disableGpuAcct = disableGpuAcct,
          .nvmlLibrary = "libnvml-override.so.2", .rsmiLibrary = "librsmi-override.so.3"};
}

}  // namespace

TEST_CASE("the library a step's launcher holds, and why", "[agent][gpu-library]") {
  struct Row {
    const char* rule;
    StepGpuLibrarySettings settings;
    v1::LaunchStepRequest step;
    const char* plugin;  // "" = no gpu_library key
    const char* library;
    const char* purpose;
  };
  const Row rows[] = {
      {"nvml_gpu_freq_without_accounting", node("nvml", false), step("3", "low", "gpu"), "nvml",
       "libnvml-override.so.2", "--gpu-freq"},
      {"nvml_gpu_freq_on_a_step_without_gpus", node("nvml", false), step("3", "1410", ""), "nvml",
       "libnvml-override.so.2", "--gpu-freq"},
      {"nvml_accounting_of_a_gpu_step", node("nvml", true), step("0", "", "gpu"), "nvml", "libnvml-override.so.2",
       "GPU accounting"},
      {"rsmi_accounting_and_gpu_freq", node("rsmi", true), step("batch", "high", "gpu"), "rsmi",
       "librsmi-override.so.3", "--gpu-freq and GPU accounting"},
      {"disable_gpu_acct_stops_accounting", node("nvml", true, true), step("0", "", "gpu"), "", "", ""},
      {"disable_gpu_acct_leaves_gpu_freq", node("nvml", true, true), step("0", "medium", "gpu"), "nvml",
       "libnvml-override.so.2", "--gpu-freq"},
      {"no_accounting_no_gpu_freq", node("nvml", false), step("0", "", "gpu"), "", "", ""},
      {"accounting_of_a_step_without_gpus", node("nvml", true), step("0", "", ""), "", "", ""},
      {"shares_are_not_gpus_requested", node("nvml", true), step("0", "", "shard"), "", "", ""},
      {"driver_only_plugin_loads_nothing", node("nvidia", true), step("0", "high", "gpu"), "", "", ""},
      {"no_plugin_selected", node("", true), step("0", "high", "gpu"), "", "", ""},
      {"oneapi_for_gpu_freq_only", node("oneapi", true), step("0", "low", "gpu"), "oneapi", "", "--gpu-freq"},
      {"the_extern_step_runs_nothing", node("nvml", true), step("extern", "high", "gpu"), "", "", ""},
  };
  for (const Row& row : rows) {
    SECTION(row.rule) {
      nlohmann::json keys = stepGpuLibraryKeys(row.settings, row.step);
      if (std::string(row.plugin).empty()) {
        CHECK_FALSE(keys.contains("gpu_library"));
      } else {
        REQUIRE(keys.contains("gpu_library"));
        CHECK(keys["gpu_library"]["plugin"] == row.plugin);
        CHECK(keys["gpu_library"]["library"] == row.library);
        CHECK(keys["gpu_library"]["purpose"] == row.purpose);
      }
    }
  }
}

TEST_CASE("the step's --gpu-freq reaches its spec.json", "[agent][gpu-library]") {
  CHECK(stepGpuLibraryKeys(node("", false), step("2", "highm1,memory=low", "gpu"))["gpu_freq"] ==
        "highm1,memory=low");
  CHECK_FALSE(stepGpuLibraryKeys(node("nvml", false), step("2", "", "gpu")).contains("gpu_freq"));
}
