// ConfigReloader (controller/config_reload.cpp): the path SIGHUP and
// `scontrol reconfigure` share. A directory that does not load is reported
// and changes nothing, agents included; a good one is applied and every
// registered agent is told to re-read, with the agents' failures reported.
#include <future>
#include <thread>

#include "controller/config_reload.h"
#include "tests/unit/controller/core/core_harness.h"
#include "tests/unit/support/scratch.h"

using namespace gantry;

namespace {

const char* kRunning =
    "ClusterName=unit\nSlurmdTimeout=600\n"
    "NodeName=r[1-2] CPUs=2 CoresPerSocket=2 RealMemory=800\n"
    "PartitionName=batch Nodes=r[1-2] Default=YES MaxTime=30\n";

// reload() blocks until the core answers, and the core runs on this
// thread's io_context: call it from another thread and drive the core here.
Result<std::vector<std::string>> reloadWhileDriving(ctl::ConfigReloader& reloader, testing::CoreHarness& h) {
  auto answer = std::async(std::launch::async, [&] { return reloader.reload(); });
  while (answer.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) h.settle();
  return answer.get();
}

v1::JobSpec jobIn(const std::string& partition) {
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\ntrue\n");
  spec.set_partition(partition);
  spec.set_ntasks(1);
  return spec;
}

const auth::Identity kUser{.uid = 3000, .gid = 3000, .user = "erin"};

}  // namespace

TEST_CASE("a configuration that does not load is reported and changes nothing", "[reconfigure]") {
  testing::TempDir dir("gantry-reload");
  testing::CoreHarness h(testing::parseConf(kRunning));
  h.registerNodes({"r1", "r2"});
  std::ofstream(dir.path() / "gantry.conf") << kRunning << "PartitionName=extra Nodes=r1 MaxTime=often\n";
  ctl::ConfigReloader reloader(dir.path().string(), *h.core);
  auto refused = reloadWhileDriving(reloader, h);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.errorCode() == ErrorCode::Invalid);
  CHECK_THAT(refused.error(), Catch::StartsWith("Resuming operation, reconfigure failed.\n") &&
                                  Catch::Contains("MaxTime"));
  CHECK(h.agents.reconfigured.empty());  // the agents keep theirs too
  CHECK_FALSE(h.submit(jobIn("extra"), kUser).ok());
  CHECK(h.submit(jobIn("batch"), kUser).ok());
}

TEST_CASE("a good configuration is applied, the agents re-read, and an agent's failure is reported",
          "[reconfigure]") {
  testing::TempDir dir("gantry-reload");
  testing::CoreHarness h(testing::parseConf(kRunning));
  h.registerNodes({"r1", "r2"});
  std::ofstream(dir.path() / "gantry.conf") << kRunning << "PartitionName=extra Nodes=r2 MaxTime=10\n";
  h.agents.reconfigureFailures["r1"] = "Resuming operation, reconfigure failed.\ngres.conf:4: no such device";
  ctl::ConfigReloader reloader(dir.path().string(), *h.core);
  auto applied = reloadWhileDriving(reloader, h);
  REQUIRE(applied.ok());
  CHECK(*applied == std::vector<std::string>{"node r1: Resuming operation, reconfigure failed.\n"
                                             "gres.conf:4: no such device"});
  CHECK(h.agents.reconfigured.size() == 2);
  auto id = h.submit(jobIn("extra"), kUser);
  REQUIRE(id.ok());
  h.settle();
  CHECK(h.job(*id).batch_host() == "r2");
}
