// GPU library lifetime: the rules for who keeps NVML / ROCm SMI loaded, and
// the hold that keeps one, observed through the fake libraries.
#include <dlfcn.h>

#include <catch2/catch.hpp>

#include "fixture_hosts.h"
#include "nodeagent/detect/gpu_library.h"

using namespace gantry;
using gantry::testing::fixtureOptions;

namespace {

// Whether the library at `path` is mapped into this process now, and how
// many sessions its fake counts as started (-1 when it is not loaded).
int fakeSessions(const char* path, const char* hook) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (!handle) return -1;
  auto sessions = reinterpret_cast<int (*)()>(dlsym(handle, hook));
  int count = sessions ? sessions() : -2;
  dlclose(handle);
  return count;
}

int nvmlSessions() { return fakeSessions(GANTRY_FAKE_NVML_PATH, "gantry_fake_nvml_sessions"); }
int rsmiSessions() { return fakeSessions(GANTRY_FAKE_RSMI_PATH, "gantry_fake_rsmi_sessions"); }

detect::DetectedGpu foundBy(const std::string& mechanism) {
  detect::DetectedGpu gpu;
  gpu.mechanism = mechanism;
  return gpu;
}

}  // namespace

TEST_CASE("the plugin AutoDetect selects", "[detect][gpu-library]") {
  struct Row {
    const char* rule;
    std::string autoDetect;
    std::vector<detect::DetectedGpu> detected;
    std::string plugin;
  };
  std::vector<Row> rows = {
      {"a named mechanism is the plugin, devices or not", "rsmi", {}, "rsmi"},
      {"a driver-only mechanism is its own plugin", "nvidia", {foundBy("nvidia")}, "nvidia"},
      {"full: the mechanism that found the first device", "full", {foundBy("rsmi"), foundBy("rsmi")}, "rsmi"},
      {"full with nothing found selects none", "full", {}, ""},
      {"off selects none", "off", {}, ""},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    CHECK(detect::selectedGpuPlugin(row.autoDetect, row.detected) == row.plugin);
  }
}

TEST_CASE("the agent keeps a library only for acct_gather_energy/gpu", "[detect][gpu-library]") {
  struct Row {
    const char* rule;
    std::string plugin, energyType, held;
  };
  std::vector<Row> rows = {
      {"no energy plugin: unloaded after detection", "nvml", "acct_gather_energy/none", ""},
      {"another energy plugin: unloaded", "rsmi", "acct_gather_energy/ipmi", ""},
      {"energy/gpu with nvml keeps NVML", "nvml", "acct_gather_energy/gpu", "nvml"},
      {"energy/gpu with rsmi keeps ROCm SMI", "rsmi", "acct_gather_energy/gpu", "rsmi"},
      {"energy/gpu with a driver-only plugin keeps nothing", "amd", "acct_gather_energy/gpu", ""},
      {"energy/gpu without a plugin keeps nothing", "", "acct_gather_energy/gpu", ""},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    CHECK(detect::agentHeldLibrary(row.plugin, row.energyType) == row.held);
  }
}

TEST_CASE("a step's launcher loads the library for GPU accounting and --gpu-freq", "[detect][gpu-library]") {
  using Use = detect::StepGpuUse;
  struct Row {
    const char* rule;
    std::string plugin;
    Use use;
    std::string held;
  };
  std::vector<Row> rows = {
      {"GPU step with accounting under nvml", "nvml", Use{.stepHasGpu = true, .accountingOn = true}, "nvml"},
      {"GPU step with accounting under rsmi", "rsmi", Use{.stepHasGpu = true, .accountingOn = true}, "rsmi"},
      {"DisableGPUAcct stops the accounting load", "nvml",
       Use{.stepHasGpu = true, .accountingOn = true, .disableGpuAcct = true}, ""},
      {"a step without a GPU loads nothing for accounting", "nvml", Use{.accountingOn = true}, ""},
      {"no accounting plugin, nothing to account", "nvml", Use{.stepHasGpu = true}, ""},
      {"driver-only plugins have no library to load", "nvidia", Use{.stepHasGpu = true, .accountingOn = true}, ""},
      {"--gpu-freq loads it even with DisableGPUAcct", "rsmi",
       Use{.stepHasGpu = true, .gpuFreqRequested = true, .disableGpuAcct = true}, "rsmi"},
      {"--gpu-freq under oneapi names oneapi", "oneapi", Use{.stepHasGpu = true, .gpuFreqRequested = true}, "oneapi"},
      {"--gpu-freq under a driver-only plugin loads nothing", "amd", Use{.gpuFreqRequested = true}, ""},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    CHECK(detect::stepHeldLibrary(row.plugin, row.use) == row.held);
  }
}

TEST_CASE("detection leaves NVML shut down and unloaded; a hold keeps it started until it goes",
          "[detect][gpu-library]") {
  auto options = fixtureOptions("pcie4-linked-pairs", "nvml");
  REQUIRE(detect::detectGpus(options, nullptr).ok());
  CHECK(nvmlSessions() == -1);  // closed again by detection
  {
    auto hold = detect::GpuLibraryHold::open("nvml", options);
    REQUIRE(hold.ok());
    CHECK(hold->describe() == std::string("NVML (") + GANTRY_FAKE_NVML_PATH + ")");
    CHECK(nvmlSessions() == 1);
    auto moved = std::move(hold.value());  // one owner at a time
    CHECK(nvmlSessions() == 1);
  }
  CHECK(nvmlSessions() == -1);
}

TEST_CASE("a ROCm SMI hold, and the errors of one that cannot start", "[detect][gpu-library]") {
  auto options = fixtureOptions("amd8-xgmi", "rsmi");
  {
    auto hold = detect::GpuLibraryHold::open("rsmi", options);
    REQUIRE(hold.ok());
    CHECK(rsmiSessions() == 1);
  }
  CHECK(rsmiSessions() == -1);

  unsetenv("GANTRY_FAKE_RSMI_FILE");
  auto failed = detect::GpuLibraryHold::open("rsmi", options);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error() == "gpu/rsmi: rsmi_init failed (ROCm SMI status 8)");
  CHECK(rsmiSessions() == -1);
  auto none = detect::GpuLibraryHold::open("nvidia", options);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error() == "gpu/nvidia loads no GPU management library");
}
