// Per-process GPU usage read through the fake NVML and ROCm SMI (their
// `proc` records; tests/fakes/README.md), with this test process as the
// step's process.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "nodeagent/detect/gpu_library.h"
#include "stepd/usage/gpu_process_usage.h"

using namespace gantry;
using namespace gantry::stepd;

namespace {

constexpr uint64_t kMiB = 1024 * 1024;

// Writes the fake's data file and points its variable at it.
void fakeData(const char* variable, const std::string& name, const std::string& content) {
  auto path = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".txt");
  std::ofstream(path) << content;
  ::setenv(variable, path.c_str(), 1);
}

detect::GpuLibraryHold holdFake(const std::string& plugin) {
  detect::DetectOptions options;
  options.nvmlLibrary = GANTRY_FAKE_NVML_PATH;
  options.rsmiLibrary = GANTRY_FAKE_RSMI_PATH;
  auto hold = detect::GpuLibraryHold::open(plugin, options);
  REQUIRE(hold);
  return std::move(*hold);
}

std::string self() { return std::to_string(::getpid()); }

}  // namespace

TEST_CASE("PCI addresses compare whatever their domain width and case", "[stepd][usage]") {
  CHECK(normalPciBusId("00000000:3B:00.0") == normalPciBusId("0000:3b:00.0"));
  CHECK(normalPciBusId("0000:3b:00.0") != normalPciBusId("0000:3c:00.0"));
  CHECK(normalPciBusId("not a bus").empty());
}

TEST_CASE("adding up keeps a figure unset when no sample has it", "[stepd][usage]") {
  auto total = addUp({{.mem_bytes = 5}, {.mem_bytes = 7}, {}});
  CHECK(total.mem_bytes == 12);
  CHECK_FALSE(total.util_percent);
  CHECK_FALSE(addUp({}).mem_bytes);
}

TEST_CASE("NVML: a process's memory and utilisation are added over the GPUs read", "[stepd][usage]") {
  fakeData("GANTRY_FAKE_NVML_FILE", "usage-nvml",
           "gpu|Tesla T4|GPU-a|00000000:3B:00.0|0|0-3|0\n"
           "gpu|Tesla T4|GPU-b|00000000:3C:00.0|1|0-3|0\n"
           "gpu|Tesla T4|GPU-c|00000000:3D:00.0|2|0-3|0\n"
           "proc|00000000:3B:00.0|" + self() + "|300|21\n"
           "proc|00000000:3C:00.0|" + self() + "|45|9\n"
           "proc|00000000:3D:00.0|" + self() + "|999|99\n");
  auto hold = holdFake("nvml");
  std::vector<std::string> log;
  NvmlProcessUsage nvml(hold.library(), {"0000:3b:00.0", "0000:3c:00.0"}, {"0000:3b:00.0"},
                        [&](const std::string& line) { log.push_back(line); });
  auto seen = nvml.poll();
  REQUIRE(seen.count(::getpid()) == 1);
  CHECK(seen[::getpid()].mem_bytes == 345 * kMiB);  // the third GPU is not the step's
  CHECK(seen[::getpid()].util_percent == 21);       // utilisation read only where asked
  CHECK(log.empty());
}

TEST_CASE("NVML: a GPU whose per-process call fails adds nothing and says so", "[stepd][usage]") {
  fakeData("GANTRY_FAKE_NVML_FILE", "usage-nvml-error",
           "gpu|Tesla T4|GPU-a|00000000:3B:00.0|0|0-3|0\n"
           "gpu|Tesla T4|GPU-b|00000000:3C:00.0|1|0-3|0\n"
           "proc|00000000:3B:00.0|" + self() + "|300|21\n"
           "proc|00000000:3C:00.0|" + self() + "|45|9\n"
           "procerror|00000000:3C:00.0|999\n");
  auto hold = holdFake("nvml");
  std::vector<std::string> log;
  NvmlProcessUsage nvml(hold.library(), {"0000:3b:00.0", "0000:3c:00.0"}, {"0000:3b:00.0", "0000:3c:00.0"},
                        [&](const std::string& line) { log.push_back(line); });
  auto seen = nvml.poll();
  CHECK(seen[::getpid()].mem_bytes == 300 * kMiB);
  CHECK(seen[::getpid()].util_percent == 21);
  REQUIRE(log.size() == 2);
  CHECK(log[0].find("0000:3c:00.0") != std::string::npos);
  CHECK(log[0].find("999") != std::string::npos);
}

TEST_CASE("ROCm SMI: what the library returns for one process", "[stepd][usage]") {
  using accounting::RsmiOutcome;
  struct Row {
    const char* rule;
    std::string records;
    std::optional<RsmiOutcome> outcome;
    uint64_t mem_mib, util;
  };
  const std::string who = self();
  const std::vector<Row> rows = {
      {"occupied CUs over the CUs of the GPUs read", "proc|0|" + who + "|500|30|120|ok\nproc|1|" + who + "|12|0|120|ok\n",
       RsmiOutcome::Value, 512, 12},
      {"a GPU without the counter gives the invalid marker and the memory",
       "proc|0|" + who + "|640|30|120|ok\nproc|1|" + who + "|0|0|120|invalid\n", RsmiOutcome::Invalid, 640, 0},
      {"a failed read", "proc|0|" + who + "|640|30|120|fail\n", RsmiOutcome::Failed, 0, 0},
      {"a value above 100 is passed on as it came", "proc|0|" + who + "|64|130|100|ok\n", RsmiOutcome::Value, 64, 130},
      {"a process the library does not know has no reading", "proc|0|1|64|10|100|ok\n", std::nullopt, 0, 0},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      fakeData("GANTRY_FAKE_RSMI_FILE", "usage-rsmi", "gpu|MI210|740f|1a|0000:c1:00.0|128\n" + row.records);
      auto hold = holdFake("rsmi");
      RsmiProcessUsage rsmi(hold.library(), [](const std::string&) {});
      auto read = rsmi.read(::getpid());
      REQUIRE(read.has_value() == row.outcome.has_value());
      if (!read) continue;
      CHECK(read->outcome == *row.outcome);
      CHECK(read->gpuMemBytes == row.mem_mib * kMiB);
      CHECK(read->gpuUtilPercent == row.util);
    }
  }
}
