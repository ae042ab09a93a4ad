#include <catch2/catch.hpp>

#include <functional>

#include "common/config/gantry_conf.h"
#include "common/config/value_parse.h"

using namespace gantry::config;

namespace {
GantryConf mustParse(const std::string& text) {
  auto loaded = parseGantryConf(text, "gantry.conf");
  INFO(text);
  if (!loaded.ok()) FAIL(loaded.error());
  return loaded.value().conf;
}
std::string parseError(const std::string& text) {
  auto loaded = parseGantryConf(text, "gantry.conf");
  REQUIRE_FALSE(loaded.ok());
  return loaded.error();
}
std::vector<Diagnostic> parseWarnings(const std::string& text) {
  auto loaded = parseGantryConf(text, "gantry.conf");
  REQUIRE(loaded.ok());
  return loaded.value().warnings;
}
}  // namespace

TEST_CASE("gantry.conf: defaults", "[config][gantry]") {
  GantryConf c = mustParse("");
  CHECK(c.clusterName == "gantry");
  CHECK(c.controllerPort == 6817);
  CHECK(c.slurmdPort == 6818);
  CHECK(c.schedulerTimeSliceSec == 30);
  CHECK(c.switchDrainOnFailure);
  CHECK(c.defaultPartition() == nullptr);
}

TEST_CASE("gantry.conf: cluster and daemon settings, keys in any case", "[config][gantry]") {
  GantryConf c = mustParse(
      "clustername=alpha\nSlurmctldHost=ctl1(10.1.1.1)\nSlurmctldHost=ctl2\nSLURMCTLDPORT=7000-7002\nSlurmdPort=7100\n"
      "SlurmUser=gantry\nAuthType=auth/munge\nAuthInfo=socket=/run/munge/munge.socket.2\n"
      "StateSaveLocation=/var/lib/g\nSlurmdSpoolDir=/var/spool/g/%n\nSlurmctldLogFile=/var/log/ctld.log\n"
      "SlurmdLogFile=/var/log/%h.log\nSlurmctldDebug=debug2\nSlurmdDebug=5\nDebugFlags=SelectType,Gres\n"
      "SlurmdTimeout=120\nJobRequeue=0\nMaxJobCount=500\nAllowSpecResourcesUsage=YES\n");
  CHECK(c.clusterName == "alpha");
  REQUIRE(c.controllerHosts.size() == 2);
  CHECK(c.controllerHost == "ctl1");
  CHECK(c.controllerAddr == "10.1.1.1");
  CHECK(c.controllerHosts[1].addr == "ctl2");
  CHECK(c.controllerPort == 7000);
  CHECK(c.slurmdPort == 7100);
  CHECK(c.slurmUser == "gantry");
  CHECK(c.authInfo == "socket=/run/munge/munge.socket.2");
  CHECK(c.slurmctldDebug == "debug2");
  CHECK(c.debugSelectType);
  CHECK(c.slurmdTimeoutSec == 120);
  CHECK_FALSE(c.jobRequeue);
  CHECK(c.maxJobCount == 500);
  CHECK(c.allowSpecResourcesUsage);
  CHECK(expandPathPattern(c.slurmdSpoolDir, "n1", "host1") == "/var/spool/g/n1");
  CHECK(expandPathPattern(c.slurmdLogFile, "n1", "host1") == "/var/log/host1.log");
  CHECK(c.entries.size() == 19);
  CHECK(c.entries[0] == std::make_pair(std::string("clustername"), std::string("alpha")));
}

TEST_CASE("gantry.conf: expandPathPattern", "[config][gantry]") {
  CHECK(expandPathPattern("/a/%n/%h/%%/%x%", "node1", "h1") == "/a/node1/h1/%/%x%");
}

TEST_CASE("gantry.conf: scheduling and selection keys", "[config][gantry]") {
  GantryConf c = mustParse(
      "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory,MULTIPLE_SHARING_GRES_PJ\n"
      "SchedulerType=sched/gang\nSchedulerTimeSlice=45\nPreemptMode=suspend,gang\n"
      "SchedulerParameters=bf_interval=30,disable_job_shrink\n"
      "SlurmctldParameters=switch_timeout=120,switch_retries=4,switch_drain_on_failure=no,drain_absent_gres\n"
      "SlurmdParameters=l3cache_as_socket,config_overrides\nSwitchType=switch/lua\n"
      "TaskPlugin=task/cgroup,task/affinity,task/resctrl\nProctrackType=proctrack/cgroup\n"
      "JobAcctGatherType=jobacct_gather/linux\nJobAcctGatherFrequency=30\nJobAcctGatherParams=DisableGPUAcct\n"
      "AccountingStorageTRES=gres/gpu,gres/shard\nAcctGatherEnergyType=acct_gather_energy/gpu\n"
      "DefMemPerCPU=2G\nDefMemPerTask=1024\nMaxMemPerTask=8G\nProlog=/p.sh\nEpilog=/e.sh\nPrologSlurmctld=/pc.sh\n");
  CHECK(c.select.crCore);
  CHECK(c.select.crMemory);
  CHECK(c.select.multipleSharingGresPj);
  CHECK_FALSE(c.select.crCpu);
  CHECK(c.schedulerType == "sched/gang");
  CHECK(c.gangScheduling());
  CHECK(c.schedulerTimeSliceSec == 45);
  CHECK(c.preemptMode == std::vector<std::string>{"SUSPEND", "GANG"});
  CHECK(c.disableJobShrink);
  CHECK(c.switchTimeoutSec == 120);
  CHECK(c.switchRetries == 4);
  CHECK_FALSE(c.switchDrainOnFailure);
  CHECK(c.drainAbsentGres);
  CHECK(c.configOverrides);
  CHECK(c.l3cacheAsSocket);
  CHECK(c.switchType == "switch/lua");
  CHECK(c.hasTaskPlugin("task/resctrl"));
  CHECK(c.disableGpuAcct);
  CHECK(c.accountingStorageTres.size() == 2);
  CHECK(c.defMemPerCpuMb == 2048);
  CHECK(c.defMemPerTaskMb == 1024);
  CHECK(c.maxMemPerTaskMb == 8192);
  CHECK(c.prologSlurmctld == "/pc.sh");
}

TEST_CASE("gantry.conf: PreemptMode=GANG turns on gang scheduling", "[config][gantry]") {
  CHECK(mustParse("PreemptMode=GANG\n").gangScheduling());
  CHECK_FALSE(mustParse("SchedulerType=sched/backfill\n").gangScheduling());
}

TEST_CASE("gantry.conf: NodeName lines expand and derive CPUs", "[config][gantry][node]") {
  GantryConf c = mustParse(
      "GresTypes=gpu,mps,bandwidth\n"
      "NodeName=tux[0-7] Gres=gpu:tesla:2,gpu:kepler:2,mps:400,bandwidth:lustre:no_consume:4G "
      "Sockets=2 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=64G Features=a,b Weight=5 State=IDLE\n"
      "NodeName=node0 CPUs=32 Boards=1 SocketsPerBoard=8 CoresPerSocket=2 ThreadsPerCore=2 "
      "Parameters=l3cache_as_socket Gres=gpu:a100:2 MaxDrainedTres=gres/gpu:2,cpu:4,mem:8192 Port=7777\n"
      "NodeName=solo CPUs=6\n");
  REQUIRE(c.nodes.size() == 10);
  const NodeConf* tux3 = c.findNode("tux3");
  REQUIRE(tux3);
  CHECK(tux3->addr == "tux3");
  CHECK(tux3->cpus == 32);
  CHECK(tux3->sockets == 2);
  CHECK(tux3->realMemoryMb == 65536);
  REQUIRE(tux3->gres.size() == 4);
  CHECK(tux3->gres[0].type == "tesla");
  CHECK(tux3->gres[2].name == "mps");
  CHECK(tux3->gres[2].count == 400);
  CHECK(tux3->gres[3].noConsume);
  CHECK(tux3->gres[3].count == 4ull << 30);
  CHECK(tux3->features == std::vector<std::string>{"a", "b"});
  CHECK(tux3->weight == 5);
  CHECK(tux3->state == "IDLE");
  CHECK(tux3->port == 0);
  const NodeConf* node0 = c.findNode("node0");
  REQUIRE(node0);
  CHECK(node0->sockets == 8);
  CHECK(node0->cpus == 32);
  CHECK(node0->hasParameter("l3cache_as_socket"));
  CHECK(node0->maxDrainedTres == "gres/gpu:2,cpu:4,mem:8192");
  REQUIRE(node0->maxDrainedTresLimits.size() == 3);
  CHECK(node0->maxDrainedTresLimits[2].tres == "mem");
  CHECK(node0->maxDrainedTresLimits[2].count == 8192);
  CHECK(node0->port == 7777);
  const NodeConf* solo = c.findNode("solo");
  CHECK(solo->cpus == 6);
  CHECK(solo->sockets == 6);
}

TEST_CASE("gantry.conf: NodeName=DEFAULT, per-node addresses and ports", "[config][gantry][node]") {
  GantryConf c = mustParse(
      "NodeName=DEFAULT CPUs=4 RealMemory=1000\nNodeName=n[1-3] NodeAddr=10.0.0.[1-3] Port=[7001-7003]\n"
      "NodeName=m[1-2] NodeAddr=127.0.0.1 RealMemory=2000\n");
  REQUIRE(c.nodes.size() == 5);
  CHECK(c.nodes[1].addr == "10.0.0.2");
  CHECK(c.nodes[1].port == 7002);
  CHECK(c.nodes[1].cpus == 4);
  CHECK(c.nodes[3].addr == "127.0.0.1");
  CHECK(c.nodes[3].realMemoryMb == 2000);
}

TEST_CASE("gantry.conf: PartitionName lines", "[config][gantry][partition]") {
  GantryConf c = mustParse(
      "NodeName=n[1-4]\nPartitionName=DEFAULT MaxTime=30\n"
      "PartitionName=debug Nodes=n[1-2] Default=YES MaxNodes=1 DefaultTime=5 OverSubscribe=NO State=UP\n"
      "PartitionName=gang Nodes=ALL Shared=FORCE:6 PreemptMode=GANG PriorityTier=3 MaxTime=1-00:00:00\n"
      "PartitionName=y Nodes=n1 OverSubscribe=YES\nPartitionName=f Nodes=n1 OverSubscribe=FORCE\n"
      "PartitionName=x Nodes=n1 OverSubscribe=EXCLUSIVE State=DRAIN MaxNodes=UNLIMITED\n");
  REQUIRE(c.partitions.size() == 5);
  const PartitionConf* debug = c.defaultPartition();
  REQUIRE(debug);
  CHECK(debug->name == "debug");
  CHECK(debug->nodes == std::vector<std::string>{"n1", "n2"});
  CHECK(debug->maxNodes == 1);
  CHECK(debug->maxTimeMinutes == 30);
  CHECK(debug->defaultTimeMinutes == 5);
  const PartitionConf* gang = c.findPartition("gang");
  CHECK(gang->nodes.size() == 4);
  CHECK(gang->overSubscribe == OverSubscribeMode::Force);
  CHECK(gang->overSubscribeCount == 6);
  CHECK(gang->preemptMode == "GANG");
  CHECK(gang->priorityTier == 3);
  CHECK(gang->maxTimeMinutes == 1440);
  CHECK(c.findPartition("y")->overSubscribeCount == 4);
  CHECK(c.findPartition("f")->overSubscribeCount == 4);
  CHECK(c.findPartition("x")->overSubscribe == OverSubscribeMode::Exclusive);
  CHECK(c.findPartition("x")->state == "DRAIN");
  CHECK(c.findPartition("x")->maxNodes == -1);
}

TEST_CASE("gantry.conf: unknown keys warn with file and line, never fail", "[config][gantry]") {
  auto warnings = parseWarnings("ClusterName=a\nFancyNewKey=1\nNodeName=n1 Shiny=2\nPartitionName=p Nodes=n1 Odd=3\n"
                                "MpiDefault=pmix\n");
  REQUIRE(warnings.size() == 4);  // three unknown keys and the missing SlurmctldHost
  CHECK(warnings[0].toString() == "gantry.conf:2: unknown key \"FancyNewKey\" is ignored");
  CHECK(warnings[1].toString() == "gantry.conf:3: unknown node key \"Shiny\" is ignored");
  CHECK(warnings[2].toString() == "gantry.conf:4: unknown partition key \"Odd\" is ignored");
}

TEST_CASE("gantry.conf: every problem is reported at once with file and line", "[config][gantry][errors]") {
  std::string error = parseError("SlurmctldPort=0\nSchedulerType=sched/wiki\nJobRequeue=perhaps\n");
  CHECK_THAT(error, Catch::Contains("gantry.conf:1: SlurmctldPort=0: expected a port number"));
  CHECK_THAT(error, Catch::Contains("gantry.conf:2: SchedulerType=sched/wiki: must be one of"));
  CHECK_THAT(error, Catch::Contains("gantry.conf:3: JobRequeue=perhaps:"));
}

TEST_CASE("gantry.conf: negative cases name the rule", "[config][gantry][errors]") {
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {"SelectTypeParameters=CR_Core,CR_CPU\n", "gantry.conf:1: SelectTypeParameters=CR_Core,CR_CPU: CR_CPU, CR_Core and CR_Socket exclude"},
      {"SelectTypeParameters=CR_Bogus\n", "unknown parameter \"CR_Bogus\""},
      {"SelectType=select/magic\n", "SelectType=select/magic: must be one of"},
      {"PreemptMode=SOMETIMES\n", "gantry.conf:1: PreemptMode=SOMETIMES: unknown mode"},
      {"SchedulerTimeSlice=2\n", "SchedulerTimeSlice=2: expected an integer from 5 to 86400"},
      {"SlurmctldParameters=switch_timeout=0\n", "switch_timeout must be a number of seconds"},
      {"SlurmctldParameters=switch_drain_on_failure=maybe\n", "switch_drain_on_failure must be yes or no"},
      {"SlurmdParameters=l3cache_as_socket,numa_node_as_socket\n", "exclude each other"},
      {"TaskPlugin=task/magic\n", "unknown task plugin \"task/magic\""},
      {"SlurmctldDebug=loud\n", "must be a log level"},
      {"DefMemPerCPU=lots\n", "DefMemPerCPU=lots: \"lots\" is not a size"},
      {"SlurmctldHost=ctl(10.0.0.1\n", "expected HOST or HOST(ADDRESS)"},
      {"ControlAddr=1.2.3.4\n", "ControlAddr needs a ControlMachine"},
      {"NodeName=tux[0-\n", "gantry.conf:1: NodeName=tux[0-: hostlist \"tux[0-\": unbalanced brackets"},
      {"NodeName=tux[5-2]\n", "reversed range"},
      {"NodeName=n[0-9999999]\n", "more than"},
      {"NodeName=a\nNodeName=a\n", "gantry.conf:2: node a is defined twice (first at gantry.conf:1)"},
      {"NodeName=a CPUs=x\n", "gantry.conf:1: CPUs=x: expected an integer"},
      {"NodeName=a RestrictedCoresPerGPU=two\n", "gantry.conf:1: RestrictedCoresPerGPU=two: expected an integer"},
      {"NodeName=a RestrictedCoresPerGPU=-1\n", "RestrictedCoresPerGPU=-1"},
      {"NodeName=a Sockets=2 SocketsPerBoard=2\n", "Sockets and SocketsPerBoard exclude each other"},
      {"NodeName=a State=SLEEPY\n", "State=SLEEPY: expected UNKNOWN"},
      {"NodeName=n[1-3] NodeAddr=a,b\n", "names 2 addresses for 3 nodes"},
      {"NodeName=n[1-3] Port=[1-2]\n", "names 2 ports for 3 nodes"},
      {"NodeName=a Gres=gpu:2\n", "gantry.conf:1: Gres=gpu on node a: \"gpu\" is not listed in GresTypes"},
      {"GresTypes=gpu\nNodeName=a Gres=gpu:a:b:c:2\n", "unexpected field"},
      {"GresTypes=gpu\nNodeName=a Gres=gpu:4Q\n", "count"},
      {"NodeName=a MaxDrainedTres=gres/gpu\n", "is not a TRES limit"},
      {"NodeName=a MaxDrainedTres=disk:4\n", "only cpu, mem and gres/NAME[:TYPE] can be drained"},
      {"NodeName=a\nPartitionName=p Nodes=a,b\n", "gantry.conf:2: partition p: Nodes= names node b, which no NodeName line defines"},
      {"PartitionName=p\nPartitionName=p\n", "gantry.conf:2: partition p is defined twice"},
      {"PartitionName=p OverSubscribe=FORCE:0\n", "the job count must be from 1 to 65535"},
      {"PartitionName=p OverSubscribe=NO:3\n", "only YES and FORCE take a job count"},
      {"PartitionName=p Shared=SOMETIMES\n", "expected NO, YES[:N], FORCE[:N] or EXCLUSIVE"},
      {"PartitionName=p MaxTime=forever\n", "is not a time"},
      {"PartitionName=p State=OPEN\n", "expected UP, DOWN, DRAIN or INACTIVE"},
      {"PartitionName=p MaxNodes=-3\n", "expected a node count or UNLIMITED"},
      {"ClusterName=a NodeName=b\n", "NodeName= must be the first key on its line"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    CHECK_THAT(parseError(c.text), Catch::Contains(c.expected));
  }
}

TEST_CASE("gantry.conf: a second Default partition wins with a warning", "[config][gantry]") {
  auto loaded = parseGantryConf("PartitionName=a Default=YES\nPartitionName=b Default=YES\n", "gantry.conf");
  REQUIRE(loaded.ok());
  CHECK(loaded->conf.defaultPartition()->name == "b");
  CHECK_THAT(loaded->warnings[0].toString(), Catch::Contains("gantry.conf:2:") && Catch::Contains("last one wins"));
}

TEST_CASE("gantry.conf: loadGantryConf follows Include", "[config][gantry]") {
  auto loaded = loadGantryConf("tests/fixtures/config/include/main.conf");
  REQUIRE(loaded.ok());
  CHECK(loaded->conf.nodes.size() == 2);
  CHECK(loaded->conf.defaultPartition()->nodes.size() == 2);
  CHECK_THAT(loaded->conf.nodes[0].sourceFile, Catch::EndsWith("nodes.conf"));
}

TEST_CASE("gantry.conf: a bad DEFAULT value is reported once, at the DEFAULT line", "[config][gantry][errors]") {
  auto loaded = parseGantryConf("NodeName=DEFAULT CPUs=many Glow=1\nNodeName=a\nNodeName=b\n", "gantry.conf");
  REQUIRE_FALSE(loaded.ok());
  CHECK(loaded.error() == "gantry.conf:1: CPUs=many: expected an integer from 1 to 1048576");
  auto warned = parseGantryConf("SlurmctldHost=c\nNodeName=DEFAULT Glow=1\nNodeName=a\nNodeName=b\n", "gantry.conf");
  REQUIRE(warned.ok());
  REQUIRE(warned->warnings.size() == 1);
  CHECK(warned->warnings[0].toString() == "gantry.conf:2: unknown node key \"Glow\" is ignored");
}

TEST_CASE("gantry.conf: PrologEpilogTimeout", "[config][gantry]") {
  CHECK(mustParse("").prologEpilogTimeoutSec == 60);
  CHECK(mustParse("Prolog=/etc/gantry/prolog\nPrologEpilogTimeout=120\n").prologEpilogTimeoutSec == 120);
  CHECK_THAT(parseError("PrologEpilogTimeout=soon\n"), Catch::Contains("gantry.conf:1"));
}

TEST_CASE("gantry.conf: SchedulerParameters=requeue_delay", "[config][gantry]") {
  CHECK(mustParse("").requeueDelaySec == 121);  // Slurm's wait: its credential lifetime and a second
  CHECK(mustParse("SchedulerParameters=requeue_delay=7\n").requeueDelaySec == 7);
  CHECK(mustParse("SchedulerParameters=bf_interval=30,Requeue_Delay=0\n").requeueDelaySec == 0);
  CHECK_THAT(parseError("SchedulerParameters=requeue_delay=-1\n"),
             Catch::Contains("gantry.conf:1: SchedulerParameters=requeue_delay=-1: requeue_delay=-1 is not a number of seconds"));
  CHECK_THAT(parseError("SchedulerParameters=requeue_delay=soon\n"), Catch::Contains("requeue_delay=soon"));
}

TEST_CASE("gantry.conf: SchedulerParameters' scheduling items, and a bad one named with its line", "[config][gantry]") {
  auto conf = mustParse("SchedulerParameters=bf_max_job_test=20,kill_invalid_depend,bf_interval=5,bf_continue\n");
  CHECK(conf.killInvalidDepend);
  CHECK(conf.scheduling.bfMaxJobTest == 20);
  CHECK(conf.scheduling.bfIntervalSec == 5);
  CHECK(conf.scheduling.bfContinue);
  CHECK_THAT(parseError("SchedulerParameters=bf_max_job_test=0\n"),
             Catch::Contains("gantry.conf:1: SchedulerParameters=bf_max_job_test=0: bf_max_job_test=0: bf_max_job_test "
                             "must be a number of jobs from 1 to 1000000"));
  // A second SchedulerParameters line replaces the first, knobs included.
  CHECK(mustParse("SchedulerParameters=bf_interval=5\nSchedulerParameters=bf_window=60\n").scheduling.bfIntervalSec == 30);
}

TEST_CASE("gantry.conf: MinJobAge", "[config][gantry]") {
  CHECK(mustParse("").minJobAgeSeconds == 300);
  CHECK(mustParse("MinJobAge=60\n").minJobAgeSeconds == 60);
  CHECK(mustParse("minjobage = 86400\n").minJobAgeSeconds == 86400);
  CHECK(mustParse("MinJobAge=0\n").minJobAgeSeconds == 0);  // ended jobs are never purged
  CHECK(parseWarnings("SlurmctldHost=ctl\nMinJobAge=10\n").empty());
  CHECK_THAT(parseError("ClusterName=a\nMinJobAge=-5\n"),
             Catch::Contains("gantry.conf:2: MinJobAge=-5: expected a number of seconds from 0 to"));
  CHECK_THAT(parseError("MinJobAge=soon\n"), Catch::Contains("gantry.conf:1: MinJobAge=soon:"));
  CHECK_THAT(parseError("MinJobAge=99999999999\n"), Catch::Contains("gantry.conf:1: MinJobAge=99999999999:"));
  CHECK_THAT(parseError("MinJobAge=\n"), Catch::Contains("gantry.conf:1: MinJobAge=:"));
}

TEST_CASE("gantry.conf: task plugins may be named without their type", "[config][gantry]") {
  auto loaded = parseGantryConf("TaskPlugin=cgroup,Affinity,task/resctrl\n", "gantry.conf");
  REQUIRE(loaded.ok());
  CHECK(loaded->conf.taskPlugins == std::vector<std::string>{"task/cgroup", "task/affinity", "task/resctrl"});
  auto bad = parseGantryConf("TaskPlugin=magic\n", "gantry.conf");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error(), Catch::Contains("unknown task plugin \"magic\""));
}

TEST_CASE("gantry.conf: plugin keys take the plugin's name with or without its type", "[config][gantry][plugins]") {
  struct Row {
    const char* rule;
    const char* text;
    std::function<std::string(const GantryConf&)> read;
    const char* expected;
  };
  const std::vector<Row> rows = {
      {"SelectType without select/", "SelectType=Cons_Res\n", [](const GantryConf& c) { return c.selectType; },
       "select/cons_res"},
      {"SchedulerType without sched/", "SchedulerType=builtin\n", [](const GantryConf& c) { return c.schedulerType; },
       "sched/builtin"},
      {"ProctrackType without proctrack/", "ProctrackType=pgid\n", [](const GantryConf& c) { return c.proctrackType; },
       "proctrack/pgid"},
      {"SwitchType without switch/", "SwitchType=NONE\n", [](const GantryConf& c) { return c.switchType; },
       "switch/none"},
      {"PreemptType without preempt/", "PreemptType=qos\n", [](const GantryConf& c) { return c.preemptType; },
       "preempt/qos"},
      {"AuthType without auth/", "AuthType=none\n", [](const GantryConf& c) { return c.authType; }, "auth/none"},
      {"AccountingStorageType without accounting_storage/", "AccountingStorageType=sqlite\n",
       [](const GantryConf& c) { return c.accountingStorageType; }, "accounting_storage/sqlite"},
      {"JobAcctGatherType without jobacct_gather/", "JobAcctGatherType=cgroup\n",
       [](const GantryConf& c) { return c.jobAcctGatherType; }, "jobacct_gather/cgroup"},
      {"TaskPlugin without task/, mixed with the full spelling", "TaskPlugin=Affinity,task/cgroup\n",
       [](const GantryConf& c) { return join(c.taskPlugins, ","); }, "task/affinity,task/cgroup"},
      {"GresTypes in the TRES spelling", "GresTypes=gres/nic,fpga\n",
       [](const GantryConf& c) { return join(c.gresTypes, ","); }, "nic,fpga"},
      {"the full spelling still works", "SelectType=select/linear\n",
       [](const GantryConf& c) { return c.selectType; }, "select/linear"},
  };
  for (const auto& row : rows) {
    SECTION(row.rule) { CHECK(row.read(mustParse(row.text)) == row.expected); }
  }
  SECTION("a name of another type is refused, naming the line") {
    CHECK_THAT(parseError("ProctrackType=task/cgroup\n"),
               Catch::Contains("gantry.conf:1: ProctrackType=task/cgroup: must be one of proctrack/cgroup"));
    CHECK_THAT(parseError("SelectType=cons_magic\n"), Catch::Contains("gantry.conf:1: SelectType=cons_magic"));
  }
}

TEST_CASE("gantry.conf: Port= of a node range, one port per node or one for all", "[config][gantry][node]") {
  SECTION("a bare range gives each node its own port") {
    GantryConf c = mustParse("NodeName=gx[4-6] Port=31010-31012\n");
    REQUIRE(c.nodes.size() == 3);
    CHECK(c.nodes[0].port == 31010);
    CHECK(c.nodes[1].port == 31011);
    CHECK(c.nodes[2].port == 31012);
  }
  SECTION("a bare comma list, in the order written") {
    GantryConf c = mustParse("NodeName=gx[1-2] Port=31020,31007\n");
    CHECK(c.nodes[0].port == 31020);
    CHECK(c.nodes[1].port == 31007);
  }
  SECTION("one port serves every node of the line") {
    GantryConf c = mustParse("NodeName=gx[1-3] Port=31030\n");
    for (const auto& node : c.nodes) CHECK(node.port == 31030);
  }
  SECTION("a range whose length differs from the node count is refused at its line") {
    CHECK_THAT(parseError("ClusterName=a\nNodeName=gx[1-3] Port=31040-31041\n"),
               Catch::Contains("gantry.conf:2: Port=31040-31041: names 2 ports for 3 nodes"));
  }
  SECTION("a port out of range is refused") {
    CHECK_THAT(parseError("NodeName=gx[1-2] Port=65535-65536\n"),
               Catch::Contains("gantry.conf:1: Port=65535-65536: expected port numbers from 1 to 65535"));
  }
}

TEST_CASE("RestrictedCoresPerGPU is a count per node, 0 when not given", "[config]") {
  auto loaded = parseGantryConf("NodeName=g1 CPUs=12 RestrictedCoresPerGPU=3\nNodeName=g2 CPUs=12\n", "gantry.conf");
  REQUIRE(loaded.ok());
  CHECK(loaded->conf.findNode("g1")->restrictedCoresPerGpu == 3);
  CHECK(loaded->conf.findNode("g2")->restrictedCoresPerGpu == 0);
}

TEST_CASE("gantry.conf: priority/multifactor's keys and the partition's priority and billing", "[config][gantry]") {
  GantryConf c = mustParse(
      "PriorityType=multifactor\nPriorityWeightAge=700\nPriorityWeightFairshare=90000\nPriorityWeightJobSize=3\n"
      "PriorityWeightPartition=40\nPriorityWeightQOS=5\nPriorityMaxAge=2-12\nPriorityDecayHalfLife=90\n"
      "PriorityCalcPeriod=2\nPriorityFavorSmall=YES\nPriorityUsageResetPeriod=weekly\nMaxArraySize=77\n"
      "NodeName=q1 CPUs=2\nPartitionName=p Nodes=q1 PriorityJobFactor=30 TRESBillingWeights=CPU=2,Mem=0.5G\n");
  CHECK(c.priorityType == "priority/multifactor");
  CHECK(c.priorityWeightAge == 700);
  CHECK(c.priorityWeightFairshare == 90000);
  CHECK(c.priorityWeightJobSize == 3);
  CHECK(c.priorityWeightPartition == 40);
  CHECK(c.priorityWeightQos == 5);
  CHECK(c.priorityMaxAgeSeconds == (2 * 24 + 12) * 3600);
  CHECK(c.priorityDecayHalfLifeSeconds == 90 * 60);
  CHECK(c.priorityCalcPeriodSeconds == 120);
  CHECK(c.priorityFavorSmall);
  CHECK(c.priorityUsageResetPeriod == "WEEKLY");
  CHECK(c.maxArraySize == 77);
  REQUIRE(c.partitions.size() == 1);
  CHECK(c.partitions[0].priorityJobFactor == 30);
  CHECK(c.partitions[0].tresBillingWeights == "CPU=2,Mem=0.5G");
  GantryConf defaults = mustParse("");
  CHECK(defaults.priorityType == "priority/basic");
  CHECK(defaults.priorityMaxAgeSeconds == 7 * 86400);
}

TEST_CASE("gantry.conf: bad priority settings are refused, naming the key", "[config][gantry]") {
  struct Row { const char* text; const char* key; };
  const Row rows[] = {
      {"PriorityType=priority/fancy\n", "PriorityType"},
      {"PriorityWeightAge=-4\n", "PriorityWeightAge"},
      {"PriorityWeightFairshare=5000000000\n", "PriorityWeightFairshare"},
      {"PriorityMaxAge=INFINITE\n", "PriorityMaxAge"},
      {"PriorityCalcPeriod=0\n", "PriorityCalcPeriod"},
      {"PriorityUsageResetPeriod=HOURLY\n", "PriorityUsageResetPeriod"},
      {"NodeName=q1 CPUs=2\nPartitionName=p Nodes=q1 TRESBillingWeights=CPU=lots\n", "TRESBillingWeights"},
      {"NodeName=q1 CPUs=2\nPartitionName=p Nodes=q1 PriorityJobFactor=70000\n", "PriorityJobFactor"},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    CHECK(parseError(row.text).find(row.key) != std::string::npos);
  }
}
