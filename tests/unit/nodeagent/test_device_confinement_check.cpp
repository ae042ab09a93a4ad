// ConstrainDevices=yes on a node that cannot confine devices: the rule per
// reason (table), what the agent looks at, and what the start does with it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "common/config/gantry_conf.h"
#include "nodeagent/confinement_setup.h"
#include "nodeagent/device_confinement_check.h"
#include "tests/unit/support/scratch.h"

using namespace gantry;
namespace fs = std::filesystem;

TEST_CASE("device confinement problems, one row per rule", "[agent][confinement][devices]") {
  agent::DeviceConfinementFacts confinable{.constrainDevices = true, .taskCgroup = true, .cgroupRoot = "/cg",
                                           .cgroupV2 = true, .bpfProblem = "", .gpuFilesNotDevices = {}};
  struct Row {
    const char* rule;
    agent::DeviceConfinementFacts facts;
    std::string expected;  // "" = no problem
  };
  auto with = [&](auto change) {
    agent::DeviceConfinementFacts f = confinable;
    change(f);
    return f;
  };
  const std::string tail = "; steps are not device-confined and see every GPU of the node by its node index";
  std::vector<Row> rows = {
      {"not asked for: nothing to say", with([](auto& f) { f.constrainDevices = false; f.cgroupV2 = false; }), ""},
      {"everything in place: confined", confinable, ""},
      {"no task/cgroup", with([](auto& f) { f.taskCgroup = false; }),
       "ConstrainDevices=yes but TaskPlugin has no task/cgroup" + tail},
      {"no cgroup v2 hierarchy", with([](auto& f) { f.cgroupV2 = false; }),
       "ConstrainDevices=yes but /cg is not a cgroup v2 hierarchy" + tail},
      {"kernel refuses device programs", with([](auto& f) { f.bpfProblem = "BPF_PROG_LOAD: Operation not permitted"; }),
       "ConstrainDevices=yes but the kernel refuses cgroup device programs (BPF_PROG_LOAD: Operation not permitted)" +
           tail},
      {"GPU files that are no device nodes",
       with([](auto& f) { f.gpuFilesNotDevices = {"/dev/nvidia2", "/dev/nvidia5"}; }),
       "ConstrainDevices=yes but GPU file(s) /dev/nvidia2, /dev/nvidia5 are not device nodes" + tail},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    CHECK(agent::deviceConfinementProblem(row.facts) == row.expected);
  }
}

TEST_CASE("the facts: hierarchy, device files under the host root, then the kernel probe",
          "[agent][confinement][devices]") {
  testing::TempDir host("gantry-devcheck");
  fs::create_directories(host.path() / "cg");
  fs::create_directories(host.path() / "dev");
  std::ofstream(host.path() / "dev/nvidia3") << "";  // a fixture file, not a device node
  int probes = 0;
  agent::DeviceConfinementInputs inputs{.constrainDevices = true,
                                        .taskCgroup = true,
                                        .cgroupRoot = (host.path() / "cg").string(),
                                        .hostRoot = host.path().string(),
                                        .gpuFiles = {"/dev/null", "/dev/nvidia3", "/dev/nvidia9"},
                                        .probe = [&] { ++probes; return std::string("refused"); }};
  auto facts = agent::deviceConfinementFacts(inputs);
  CHECK_FALSE(facts.cgroupV2);
  CHECK(probes == 0);  // nothing more is looked at without a v2 hierarchy

  std::ofstream(host.path() / "cg/cgroup.controllers") << "cpuset memory\n";
  facts = agent::deviceConfinementFacts(inputs);
  CHECK(facts.cgroupV2);
  CHECK(facts.gpuFilesNotDevices == std::vector<std::string>{"/dev/null", "/dev/nvidia3", "/dev/nvidia9"});
  CHECK(facts.bpfProblem == "refused");
  CHECK(probes == 1);
}

TEST_CASE("the start warns and runs steps without the device filter when devices cannot be confined",
          "[agent][confinement][devices]") {
  testing::TempDir dir("gantry-devstart");
  fs::create_directories(dir.path() / "conf");
  fs::create_directories(dir.path() / "host/sys/fs/cgroup");
  fs::create_directories(dir.path() / "host/dev");
  std::ofstream(dir.path() / "host/sys/fs/cgroup/cgroup.controllers") << "cpuset memory\n";
  std::ofstream(dir.path() / "host/dev/nvidia1") << "";
  std::ofstream(dir.path() / "conf/gantry.conf")
      << "ClusterName=c\nSlurmctldHost=localhost\nTaskPlugin=task/cgroup\nNodeName=node7 CPUs=8\n";
  std::ofstream(dir.path() / "conf/cgroup.conf") << "ConstrainCores=yes\nConstrainDevices=yes\n";
  auto loaded = config::loadGantryConf(dir.path() / "conf/gantry.conf");
  REQUIRE(loaded.ok());
  agent::HardwareReport hardware;
  auto* gpu = hardware.hardware.add_gres();
  gpu->set_name("gpu");
  gpu->add_files("/dev/nvidia1");

  std::vector<std::string> log, warnings;
  auto settings = agent::prepareConfinement(
      loaded->conf, hardware,
      {.confDir = (dir.path() / "conf").string(), .hostRoot = (dir.path() / "host").string(), .nodeName = "node7"},
      &log, &warnings);
  REQUIRE(settings.ok());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].starts_with("ConstrainDevices=yes but GPU file(s) /dev/nvidia1 are not device nodes"));
  REQUIRE(settings->cgroup);
  CHECK_FALSE(settings->cgroup->constrainDevices);
  CHECK(settings->cgroup->constrainCores);
}
