// Keys accepted but not yet acted on: each becomes a note naming file and
// line, never an error or a warning, and the table lists no key that code
// reads.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "common/config/cgroup_conf.h"
#include "common/config/check_all.h"
#include "common/config/gantry_conf.h"
#include "common/config/gres_conf.h"
#include "common/config/inert_keys.h"

namespace fs = std::filesystem;
using namespace gantry::config;

namespace {

std::vector<std::string> texts(const std::vector<Diagnostic>& list) {
  std::vector<std::string> out;
  for (const auto& d : list) out.push_back(d.toString());
  return out;
}

GantryConfParse interpret(const std::string& text) {
  return interpretGantryConf(readConfText(text, "gantry.conf", {.followIncludes = false}), "gantry.conf");
}

std::optional<std::string> noteFor(KeyPlace place, const std::string& key, const std::string& value,
                                   int occurrence = 0) {
  const InertKey* entry = findInertKey(place, key);
  if (entry == nullptr) return std::nullopt;
  return inertNote(*entry, KeyValue{key, value}, occurrence);
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("inert keys: a configuration with several gives exactly their notes, with file and line",
          "[config][inert]") {
  auto loaded = parseGantryConf(
      "SlurmctldHost=ctl\n"
      "SchedulerType=sched/builtin\n"
      "SlurmctldParameters=switch_timeout=60,drain_absent_gres,idle_on_node_suspend\n"
      "DebugFlags=SelectType,Gres\n"
      "AccountingStorageEnforce=associations\n"
      "GresTypes=gpu\n"
      "NodeName=n[1-2] CPUs=4 Gres=gpu:2 MaxDrainedTres=gres/gpu:1\n"
      "PartitionName=p Nodes=n[1-2] PriorityTier=2 OverSubscribe=EXCLUSIVE MaxTime=60\n"
      "MinJobAge=60 ClusterName=c\n",
      "gantry.conf");
  REQUIRE(loaded.ok());
  CHECK(loaded->warnings.empty());
  CHECK(texts(loaded->notes) ==
        std::vector<std::string>{
            "gantry.conf:2: SchedulerType=sched/builtin is accepted but not yet acted on (scheduler choice)",
            "gantry.conf:3: SlurmctldParameters=switch_timeout=60,drain_absent_gres,idle_on_node_suspend: "
            "idle_on_node_suspend is accepted but not yet acted on (other controller parameters)",
            "gantry.conf:4: DebugFlags=SelectType,Gres: Gres is accepted but not yet acted on (debug flags other "
            "than SelectType)",
            "gantry.conf:5: AccountingStorageEnforce=associations is accepted but not yet acted on "
            "(accounting storage)",
            "gantry.conf:8: PriorityTier=2 is accepted but not yet acted on (partition priority tiers)",
        });
  // The values are still parsed as before.
  CHECK(loaded->conf.schedulerType == "sched/builtin");
  CHECK(loaded->conf.drainAbsentGres);
}

TEST_CASE("inert keys: a value set on a DEFAULT line is noted once, at that line", "[config][inert]") {
  auto parsed = interpret("SlurmctldHost=ctl\nNodeName=DEFAULT Weight=5\nNodeName=a\nNodeName=b\n");
  REQUIRE(parsed.diagnostics.ok());
  CHECK(texts(parsed.diagnostics.notes) ==
        std::vector<std::string>{"gantry.conf:2: Weight=5 is accepted but not yet acted on (node weights)"});
}

TEST_CASE("inert keys: a bad value is an error and no note", "[config][inert]") {
  auto parsed = interpret("SchedulerTimeSlice=2\nNodeName=a MaxDrainedTres=disk:4\n");
  CHECK(parsed.diagnostics.errors.size() == 2);
  CHECK(parsed.diagnostics.notes.empty());
}

TEST_CASE("inert keys: only the first controller host is acted on", "[config][inert]") {
  auto parsed = interpret("SlurmctldHost=ctl1\nSlurmctldHost=ctl2(10.0.0.2)\n");
  CHECK(texts(parsed.diagnostics.notes) ==
        std::vector<std::string>{"gantry.conf:2: SlurmctldHost=ctl2(10.0.0.2) is accepted but not yet acted on "
                                 "(controller failover)"});
}

TEST_CASE("inert keys: keys and values that code reads get no note", "[config][inert]") {
  // A sample of keys read outside common/config (the controller, the node
  // agent, the step launcher). Each must stay out of the table.
  for (const char* key : {"ClusterName", "ControlMachine", "SlurmctldPort", "SlurmdPort", "SlurmUser", "AuthType",
                          "AuthInfo", "StateSaveLocation", "SlurmdSpoolDir", "SlurmctldLogFile", "SlurmdLogFile",
                          "SlurmctldDebug", "SlurmdDebug", "SlurmdTimeout", "JobRequeue", "MaxJobCount",
                          "MinJobAge", "SlurmdParameters", "GresTypes", "DefMemPerCPU", "DefMemPerNode", "Prolog",
                          "Epilog", "PrologEpilogTimeout", "AllowSpecResourcesUsage", "SelectType",
                          "SchedulerTimeSlice"}) {
    INFO(key);
    CHECK(findInertKey(KeyPlace::Global, key) == nullptr);
  }
  for (const char* key : {"NodeAddr", "Port", "CPUs", "Sockets", "CoresPerSocket", "ThreadsPerCore", "RealMemory",
                          "Gres", "State", "Parameters", "Features"}) {
    INFO(key);
    CHECK(findInertKey(KeyPlace::NodeLine, key) == nullptr);
  }
  for (const char* key : {"Nodes", "Default", "MaxNodes", "MaxTime", "DefaultTime", "State"}) {
    INFO(key);
    CHECK(findInertKey(KeyPlace::PartitionLine, key) == nullptr);
  }
  for (const char* key : {"CgroupMountpoint", "ConstrainCores", "ConstrainRAMSpace", "ConstrainDevices",
                          "ConstrainDeviceMemory", "EnableControllers", "CgroupJobIdPaths"}) {
    INFO(key);
    CHECK(findInertKey(KeyPlace::CgroupConf, key) == nullptr);
  }
  for (const char* key : {"Name", "Type", "File", "Cores", "Links", "Count", "ChunkSizes", "ChunkOrder",
                          "DmemRegion", "AutoDetect"}) {
    INFO(key);
    CHECK(findInertKey(KeyPlace::GresConf, key) == nullptr);
  }

  // Keys of which only some values are inert: the values that are acted on.
  CHECK_FALSE(noteFor(KeyPlace::Global, "DebugFlags", "SelectType"));
  CHECK_FALSE(noteFor(KeyPlace::Global, "selecttypeparameters", "CR_Core_Memory,MULTIPLE_SHARING_GRES_PJ"));
  CHECK_FALSE(noteFor(KeyPlace::Global, "SelectTypeParameter", "CR_CPU"));
  CHECK_FALSE(noteFor(KeyPlace::Global, "SelectType", "select/cons_tres"));
  CHECK_FALSE(noteFor(KeyPlace::Global, "TaskPlugin", "task/cgroup,task/resctrl"));
  CHECK_FALSE(noteFor(KeyPlace::Global, "PrologFlags", "Contain"));
  CHECK_FALSE(noteFor(KeyPlace::Global, "SlurmctldHost", "ctl1", 0));
  CHECK_FALSE(noteFor(KeyPlace::PartitionLine, "OverSubscribe", "EXCLUSIVE"));
  CHECK_FALSE(noteFor(KeyPlace::PartitionLine, "OverSubscribe", "FORCE:3"));
  CHECK_FALSE(noteFor(KeyPlace::PartitionLine, "Shared", "FORCE"));
  CHECK_FALSE(noteFor(KeyPlace::PartitionLine, "Shared", "YES:2"));
  CHECK_FALSE(noteFor(KeyPlace::Global, "SchedulerType", "sched/gang"));
  CHECK_FALSE(noteFor(KeyPlace::Global, "PreemptMode", "GANG"));
  CHECK_FALSE(noteFor(KeyPlace::PartitionLine, "Shared", "NO"));
  CHECK_FALSE(noteFor(KeyPlace::CgroupConf, "CgroupPlugin", "cgroup/v2"));
  CHECK_FALSE(noteFor(KeyPlace::CgroupConf, "IgnoreSystemd", "yes"));
  CHECK_FALSE(noteFor(KeyPlace::GresConf, "Flags", "env_uuid,nvidia_gpu_env"));
  // ... and the parts that are not.
  CHECK_FALSE(noteFor(KeyPlace::Global, "TaskPlugin", "task/cgroup,task/affinity"));
  CHECK(noteFor(KeyPlace::Global, "SelectTypeParameters", "CR_Core_Memory,OPT_CR_Pack_Nodes") ==
        "SelectTypeParameters=CR_Core_Memory,OPT_CR_Pack_Nodes: OPT_CR_Pack_Nodes is accepted but not yet acted on "
        "(selection option)");
}

TEST_CASE("inert keys: every entry's example loads without error or warning and gives its note",
          "[config][inert]") {
  for (const InertKey& entry : inertKeys()) {
    std::string pair = std::string(entry.key) + "=" + std::string(entry.example);
    INFO(pair << " in " << toString(entry.place));
    Diagnostics diagnostics;
    int line = 0;
    switch (entry.place) {
      case KeyPlace::Global:
        // Written twice: the second SlurmctldHost is the first inert one.
        diagnostics = interpret("SlurmctldHost=ctl\n" + pair + "\n" + pair + "\n").diagnostics;
        line = 3;
        break;
      case KeyPlace::NodeLine:
        diagnostics = interpret("SlurmctldHost=ctl\nGresTypes=gpu\nNodeName=n1 Gres=gpu:2 " + pair + "\n").diagnostics;
        line = 3;
        break;
      case KeyPlace::PartitionLine:
        diagnostics = interpret("SlurmctldHost=ctl\nNodeName=n1\nPartitionName=p Nodes=n1 " + pair + "\n").diagnostics;
        line = 3;
        break;
      case KeyPlace::CgroupConf:
        diagnostics = interpretCgroupConf(readConfText(pair + "\n", "cgroup.conf"), "cgroup.conf", GantryConf{})
                          .diagnostics;
        line = 1;
        break;
      case KeyPlace::GresConf:
        diagnostics = parseGresLines(readConfText("Name=gpu File=/dev/nvidia0 " + pair + "\n", "gres.conf")).diagnostics;
        line = 1;
        break;
    }
    INFO(diagnostics.errorText());
    CHECK(diagnostics.ok());
    CHECK(diagnostics.warnings.empty());
    REQUIRE_FALSE(diagnostics.notes.empty());
    const Diagnostic& note = diagnostics.notes.back();
    CHECK(note.line == line);
    CHECK_THAT(note.message, Catch::StartsWith(pair) && Catch::EndsWith("is accepted but not yet acted on (" +
                                                                        std::string(entry.feature) + ")"));
  }
}

TEST_CASE("inert keys: --check-config prints them as notes and still succeeds", "[config][inert]") {
  fs::path dir = fs::temp_directory_path() / ("gantry-inert-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "gantry.conf") << "SlurmctldHost=ctl\nSwitchParameters=verbose\nTaskPlugin=task/cgroup\n";
  std::ofstream(dir / "cgroup.conf") << "ConstrainCores=yes\nAllowedRAMSpace=98\n";
  CheckReport report = checkAll(dir);
  fs::remove_all(dir);
  CHECK(report.ok());
  CHECK(report.warnings.empty());
  std::string gantryFile = (dir / "gantry.conf").string(), cgroupFile = (dir / "cgroup.conf").string();
  CHECK(report.toString() ==
        "note: " + gantryFile +
            ":2: SwitchParameters=verbose is accepted but not yet acted on (switch/lua interconnect lifecycle)\n"
            "note: " +
            cgroupFile + ":2: AllowedRAMSpace=98 is accepted but not yet acted on (memory limit share)\n");
}

TEST_CASE("inert keys: docs/configuration.md lists every one in its section", "[config][inert][docs]") {
  std::string docs = readFile("docs/configuration.md");
  std::size_t start = docs.find("\n## Accepted, not yet acted on\n");
  REQUIRE(start != std::string::npos);
  std::size_t end = docs.find("\n## ", start + 1);
  std::string section = docs.substr(start, end == std::string::npos ? std::string::npos : end - start);
  for (const InertKey& entry : inertKeys()) {
    INFO(entry.key);
    CHECK(section.find("`" + std::string(entry.key) + "`") != std::string::npos);
  }
}

TEST_CASE("inert notes read plugin names without their type as with it", "[config][inert][plugins]") {
  CHECK_FALSE(noteFor(KeyPlace::Global, "TaskPlugin", "Affinity,cgroup"));
  CHECK_FALSE(noteFor(KeyPlace::Global, "TaskPlugin", "cgroup,resctrl"));
  CHECK_FALSE(noteFor(KeyPlace::Global, "SchedulerType", "gang"));
  CHECK_FALSE(noteFor(KeyPlace::Global, "SchedulerType", "backfill"));
  CHECK(noteFor(KeyPlace::Global, "SchedulerType", "builtin"));
}
