// The launcher's hold of a GPU library for its step, observed through the
// fake NVML and ROCm SMI (they count open sessions).
#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "stepd/gpu/step_gpu_library.h"

using namespace gantry;
using stepd::GpuLibrarySpec;

namespace {

// Sessions the fake at `path` counts as started; -1 when it is not loaded.
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

struct Lines {
  std::vector<std::string> lines;
  stepd::StepLogLine sink() {
    return [this](const std::string& line) { lines.push_back(line); };
  }
};

}  // namespace

TEST_CASE("a step whose spec names no library holds none and logs nothing", "[stepd][gpu-library]") {
  Lines log;
  CHECK_FALSE(stepd::holdStepGpuLibrary(nullptr, log.sink()).has_value());
  CHECK(log.lines.empty());
  CHECK(nvmlSessions() == -1);
}

TEST_CASE("the step holds the NVML its spec names until it is released", "[stepd][gpu-library]") {
  setenv("GANTRY_FAKE_NVML_FILE", "tests/fixtures/hosts/nvlink8-2socket/fake-nvml.txt", 1);
  GpuLibrarySpec spec{.plugin = "nvml", .library = GANTRY_FAKE_NVML_PATH, .purpose = "--gpu-freq"};
  Lines log;
  auto hold = stepd::holdStepGpuLibrary(&spec, log.sink());
  REQUIRE(hold.has_value());
  CHECK(nvmlSessions() == 1);
  REQUIRE(log.lines.size() == 1);
  CHECK(log.lines[0] == std::string("gpu: holding NVML (") + GANTRY_FAKE_NVML_PATH + ") for --gpu-freq");
  stepd::releaseStepGpuLibrary(hold, log.sink());
  CHECK_FALSE(hold.has_value());
  CHECK(nvmlSessions() == -1);
  REQUIRE(log.lines.size() == 2);
  CHECK(log.lines[1] == std::string("gpu: released NVML (") + GANTRY_FAKE_NVML_PATH + ")");
}

TEST_CASE("the step holds ROCm SMI for GPU accounting", "[stepd][gpu-library]") {
  setenv("GANTRY_FAKE_RSMI_FILE", "tests/fixtures/hosts/amd8-xgmi/fake-rsmi.txt", 1);
  GpuLibrarySpec spec{.plugin = "rsmi", .library = GANTRY_FAKE_RSMI_PATH, .purpose = "GPU accounting"};
  Lines log;
  auto hold = stepd::holdStepGpuLibrary(&spec, log.sink());
  REQUIRE(hold.has_value());
  CHECK(rsmiSessions() == 1);
  CHECK(log.lines.at(0) == std::string("gpu: holding ROCm SMI (") + GANTRY_FAKE_RSMI_PATH + ") for GPU accounting");
  hold.reset();
  CHECK(rsmiSessions() == -1);
}

TEST_CASE("a library that cannot be opened is logged and the step runs on", "[stepd][gpu-library]") {
  GpuLibrarySpec missing{.plugin = "nvml", .library = "libgantry-absent-nvml.so", .purpose = "--gpu-freq"};
  Lines log;
  CHECK_FALSE(stepd::holdStepGpuLibrary(&missing, log.sink()).has_value());
  REQUIRE(log.lines.size() == 1);
  CHECK_THAT(log.lines[0], Catch::StartsWith("gpu: cannot hold a GPU library for --gpu-freq: gpu/nvml: cannot load"));
  CHECK_THAT(log.lines[0], Catch::EndsWith("; the step runs without it"));

  // oneapi is a plugin this build cannot load.
  GpuLibrarySpec oneapi{.plugin = "oneapi", .library = "", .purpose = "--gpu-freq"};
  CHECK_FALSE(stepd::holdStepGpuLibrary(&oneapi, log.sink()).has_value());
  CHECK(log.lines.at(1) ==
        "gpu: cannot hold a GPU library for --gpu-freq: gpu/oneapi loads no GPU management library; "
        "the step runs without it");
}
