// task/resctrl on the node agent's side of start and SIGHUP: the plugin must
// be configured for any group to exist, and a failed resctrl reconfigure
// stops a foreground agent but not one started by systemd.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "nodeagent/agent_reconfigure.h"
#include "tests/unit/support/scratch.h"

using namespace gantry::agent;
namespace fs = std::filesystem;

namespace {

const char* kGroups =
    "groups:\n"
    "  - name: cpu_only\n    schemata: |\n      MB:0=1200;1=1200\n"
    "  - name: gpu_one_per_socket\n    schemata: |\n      MB:0=2400;1=2400\n"
    "  - name: gpu_two_per_socket\n    schemata: |\n      MB:0=4800;1=4800\n";

// A configuration folder for node q7 and a private copy of the resctrl host tree.
class AgentFolders {
 public:
  AgentFolders() {
    fs::create_directories(conf());
    fs::copy("tests/fixtures/resctrl/host", host(), fs::copy_options::recursive);
  }
  fs::path conf() const { return scratch_.path() / "conf"; }
  fs::path host() const { return scratch_.path() / "host"; }
  fs::path group(const std::string& name) const { return host() / "sys/fs/resctrl" / name; }

  void writeGantryConf(const std::string& taskPlugin) const {
    std::ofstream(conf() / "gantry.conf") << "ClusterName=rc\nSlurmctldHost=localhost\nTaskPlugin=" << taskPlugin
                                          << "\nNodeName=q7 CPUs=4\nPartitionName=p Nodes=q7 Default=YES\n";
  }
  void writeResctrl(const std::string& text) const { std::ofstream(conf() / "resctrl.yaml") << text; }

  ReconfigureRequest request(bool underSystemd = false) const {
    return {.confDir = conf().string(), .nodeName = "q7", .hostRoot = host().string(), .underSystemd = underSystemd};
  }
  ConfinementSetupOptions options() const {
    return {.confDir = conf().string(), .hostRoot = host().string(), .nodeName = "q7"};
  }

 private:
  gantry::testing::TempDir scratch_{"gantry-reconf"};
};

gantry::config::GantryConf confWith(const std::string& taskPlugin) {
  auto loaded = gantry::config::parseGantryConf("TaskPlugin=" + taskPlugin + "\n", "gantry.conf");
  REQUIRE(loaded.ok());
  return loaded->conf;
}

}  // namespace

TEST_CASE("what a failed reconfigure does to the agent", "[agent][reconfigure]") {
  struct Case {
    const char* rule;
    bool resctrlFailed;
    bool underSystemd;
    ReconfigureVerdict verdict;
  };
  const std::vector<Case> cases = {
      {"a failed resctrl reconfigure stops a foreground agent", true, false, ReconfigureVerdict::Exit},
      {"under systemd it keeps running on its old settings", true, true, ReconfigureVerdict::KeepRunning},
      {"other failures keep a foreground agent running", false, false, ReconfigureVerdict::KeepRunning},
      {"other failures keep an agent under systemd running", false, true, ReconfigureVerdict::KeepRunning},
  };
  for (const auto& c : cases) {
    SECTION(c.rule) { CHECK(afterFailedReconfigure(c.resctrlFailed, c.underSystemd) == c.verdict); }
  }
}

TEST_CASE("without task/resctrl in TaskPlugin no group is created", "[agent][resctrl]") {
  AgentFolders folders;
  folders.writeResctrl(kGroups);
  std::vector<std::string> log;
  auto root = prepareResctrl(confWith("task/cgroup,task/affinity"), folders.options(), &log);
  REQUIRE(root.ok());
  CHECK_FALSE(root->has_value());
  CHECK_FALSE(fs::exists(folders.group("cpu_only")));
  // Not even read: a broken file does not matter without the plugin.
  folders.writeResctrl("groups: [");
  CHECK(prepareResctrl(confWith("task/affinity"), folders.options(), &log).ok());

  folders.writeResctrl(kGroups);
  root = prepareResctrl(confWith("task/affinity,task/resctrl"), folders.options(), &log);
  REQUIRE(root.ok());
  REQUIRE(root->has_value());
  CHECK(**root == (folders.host() / "sys/fs/resctrl").string());
  CHECK(gantry::testing::readFile(folders.group("gpu_two_per_socket") / "schemata") == "MB:0=4800;1=4800\n");
}

TEST_CASE("a reconfigure that loads applies the new groups", "[agent][reconfigure]") {
  AgentFolders folders;
  folders.writeGantryConf("task/resctrl");
  folders.writeResctrl(kGroups);
  auto outcome = reconfigureAgent(folders.request(), HardwareReport{});
  REQUIRE(outcome.verdict == ReconfigureVerdict::Applied);
  REQUIRE(outcome.settings);
  CHECK(outcome.settings->resctrlRoot.has_value());

  // The plugin taken out: new steps are placed in no group.
  folders.writeGantryConf("task/affinity");
  outcome = reconfigureAgent(folders.request(), HardwareReport{});
  REQUIRE(outcome.verdict == ReconfigureVerdict::Applied);
  CHECK_FALSE(outcome.settings->resctrlRoot.has_value());
}

TEST_CASE("a resctrl.yaml that no longer loads fails the reconfigure as resctrl", "[agent][reconfigure]") {
  AgentFolders folders;
  folders.writeGantryConf("task/resctrl");
  folders.writeResctrl(std::string(kGroups).substr(0, std::string(kGroups).find("  - name: gpu_two_per_socket")));
  auto foreground = reconfigureAgent(folders.request(false), HardwareReport{});
  CHECK(foreground.verdict == ReconfigureVerdict::Exit);
  CHECK_THAT(foreground.error, Catch::Contains("gpu_two_per_socket"));
  CHECK_FALSE(foreground.settings);
  CHECK(reconfigureAgent(folders.request(true), HardwareReport{}).verdict == ReconfigureVerdict::KeepRunning);
}

TEST_CASE("groups that cannot be set up fail the reconfigure as resctrl", "[agent][reconfigure]") {
  AgentFolders folders;
  folders.writeGantryConf("task/resctrl");
  folders.writeResctrl(kGroups);
  // The fixture has 8 CLOSIDs; five foreign groups leave too few for ours.
  for (int i = 0; i < 5; ++i) fs::create_directories(folders.group("made_elsewhere" + std::to_string(i)));
  auto outcome = reconfigureAgent(folders.request(), HardwareReport{});
  CHECK(outcome.verdict == ReconfigureVerdict::Exit);
  CHECK_THAT(outcome.error, Catch::Contains("CLOSIDs"));
  CHECK(reconfigureAgent(folders.request(true), HardwareReport{}).verdict == ReconfigureVerdict::KeepRunning);
}

TEST_CASE("a broken gantry.conf keeps even a foreground agent running", "[agent][reconfigure]") {
  AgentFolders folders;
  folders.writeGantryConf("task/resctrl");
  std::ofstream(folders.conf() / "gantry.conf", std::ios::app) << "NodeName=q8 CPUs=many\n";
  folders.writeResctrl(kGroups);
  auto outcome = reconfigureAgent(folders.request(), HardwareReport{});
  CHECK(outcome.verdict == ReconfigureVerdict::KeepRunning);
  CHECK_THAT(outcome.error, Catch::Contains("CPUs"));
}
