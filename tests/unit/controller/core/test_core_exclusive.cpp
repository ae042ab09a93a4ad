// The --exclusive forms through the controller core: whether a job owns its
// node (what the launch tells the agent, which then places its steps in a
// resctrl group or in none) and which users' jobs may share a node.
#include "tests/unit/controller/core/core_harness.h"

using namespace gantry;
using testing::tempDb;

namespace {

constexpr uint32_t kCarla = 3100;
constexpr uint32_t kDev = 3200;

config::GantryConf oneNodeConf(const std::string& partitionExtra = "") {
  return testing::parseConf("ClusterName=unit\nSlurmdTimeout=10\n"
                            "NodeName=w1 CPUs=6 CoresPerSocket=6 RealMemory=2000\n"
                            "PartitionName=main Nodes=w1 Default=YES MaxTime=60 " + partitionExtra + "\n");
}

struct Harness : testing::CoreHarness {
  explicit Harness(config::GantryConf configuration, std::string dbPath = tempDb())
      : CoreHarness(std::move(configuration), std::move(dbPath)) {}
  Result<uint64_t> submitAs(uint32_t uid, v1::JobSpec spec) {
    return submit(std::move(spec), auth::Identity{.uid = uid, .gid = uid, .user = "u" + std::to_string(uid)});
  }
  void registerW1() { registerNodes({"w1"}); }
};

v1::JobSpec oneCpuJob(bool exclusive = false, const std::string& mode = "") {
  v1::JobSpec spec;
  spec.set_name("work");
  spec.set_script("#!/bin/sh\nsleep 100\n");
  spec.set_exclusive(exclusive);
  spec.set_exclusive_mode(mode);
  return spec;
}

}  // namespace

TEST_CASE("whether an --exclusive job owns its node depends on the partition's OverSubscribe") {
  struct Case {
    const char* rule;
    const char* partition;
    bool ownsNode;
  };
  const std::vector<Case> cases = {
      {"a partition without OverSubscribe honours --exclusive", "", true},
      {"FORCE with a count above 1 shares the node: placed like the others", "OverSubscribe=FORCE:3", false},
      {"FORCE without a count is FORCE:4", "OverSubscribe=FORCE", false},
      {"the legacy Shared=FORCE:2 spelling likewise", "Shared=FORCE:2", false},
      {"FORCE:1 does not share, so --exclusive owns the node", "OverSubscribe=FORCE:1", true},
  };
  for (const auto& c : cases) {
    SECTION(c.rule) {
      Harness h(oneNodeConf(c.partition));
      h.registerW1();
      auto id = h.submitAs(kCarla, oneCpuJob(true));
      REQUIRE(id.ok());
      h.settle();
      REQUIRE(h.job(*id).state() == v1::RUNNING);
      auto launches = h.agents.launchesOf("batch");
      REQUIRE(launches.size() == 1);
      CHECK(launches[0].job_whole_node() == c.ownsNode);
      CHECK(launches[0].cpus_on_node() == (c.ownsNode ? 6 : 1));
    }
  }
}

TEST_CASE("--exclusive=topo owns the node; =user and =mcs share it") {
  for (const auto& [mode, ownsNode] : std::vector<std::pair<std::string, bool>>{
           {"topo", true}, {"user", false}, {"mcs", false}}) {
    Harness h(oneNodeConf());
    h.registerW1();
    auto id = h.submitAs(kCarla, oneCpuJob(mode == "topo", mode));
    REQUIRE(id.ok());
    h.settle();
    auto launches = h.agents.launchesOf("batch");
    REQUIRE(launches.size() == 1);
    CHECK(launches[0].job_whole_node() == ownsNode);
  }
}

TEST_CASE("--exclusive=user keeps other users' jobs off the node, also after a restart") {
  std::string db = tempDb();
  uint64_t first = 0, devs = 0;
  {
    Harness h(oneNodeConf(), db);
    h.registerW1();
    first = *h.submitAs(kCarla, oneCpuJob(false, "user"));
    h.settle();
    REQUIRE(h.job(first).state() == v1::RUNNING);
    devs = *h.submitAs(kDev, oneCpuJob());
    auto same = h.submitAs(kCarla, oneCpuJob());
    h.settle();
    CHECK(h.job(devs).state() == v1::PENDING);
    CHECK(h.job(devs).reason() == "Resources");
    CHECK(h.job(*same).state() == v1::RUNNING);  // the same user shares
  }
  // Whose allocation it was is known again from the stored job.
  Harness again(oneNodeConf(), db);
  again.registerW1();
  again.settle();
  CHECK(again.job(devs).state() == v1::PENDING);
  again.stepEnded(first, "batch", "w1", 0);
  again.settle();
  CHECK(again.job(devs).state() == v1::RUNNING);
}

TEST_CASE("--exclusive=mcs without an MCS plugin shares like any job") {
  Harness h(oneNodeConf());
  h.registerW1();
  auto mcs = h.submitAs(kCarla, oneCpuJob(false, "mcs"));
  auto other = h.submitAs(kDev, oneCpuJob());
  h.settle();
  CHECK(h.job(*mcs).state() == v1::RUNNING);
  CHECK(h.job(*other).state() == v1::RUNNING);
}

TEST_CASE("an --exclusive form the controller does not know is refused") {
  Harness h(oneNodeConf());
  auto unknown = h.submitAs(kCarla, oneCpuJob(false, "nodes"));
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.error(), Catch::Contains("--exclusive=nodes") && Catch::Contains("user, mcs or topo"));
  auto both = h.submitAs(kCarla, oneCpuJob(true, "user"));
  REQUIRE_FALSE(both.ok());
  CHECK_THAT(both.error(), Catch::Contains("--exclusive=user shares nodes"));
}

TEST_CASE("a restarted controller still knows which jobs own their node, for their later steps") {
  for (const auto& [partition, ownsNode] : std::vector<std::pair<std::string, bool>>{
           {"", true}, {"OverSubscribe=FORCE:2", false}}) {
    std::string db = tempDb();
    uint64_t id = 0;
    {
      Harness h(oneNodeConf(partition), db);
      h.registerW1();
      v1::JobSpec allocation = oneCpuJob(true);
      allocation.clear_script();  // an salloc: steps come from srun
      id = *h.submitAs(kCarla, allocation);
      h.settle();
      REQUIRE(h.job(id).state() == v1::RUNNING);
    }
    Harness again(oneNodeConf(partition), db);
    again.registerW1();
    again.settle();
    v1::CreateStepRequest step;
    step.set_job_id(id);
    step.mutable_spec()->set_ntasks(1);
    step.add_argv("hostname");
    step.mutable_io()->set_addr("login1");
    step.mutable_io()->set_port(4321);
    auto created = again.await<v1::CreateStepResponse>([&](auto reply) {
      again.core->createStep(step, auth::Identity{.uid = kCarla, .gid = kCarla, .user = "carla"}, reply);
    });
    REQUIRE(created.ok());
    auto launches = again.agents.launchesOf("0");
    REQUIRE(launches.size() == 1);
    CHECK(launches[0].job_whole_node() == ownsNode);
  }
}
