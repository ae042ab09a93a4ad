#include <catch2/catch.hpp>

#include "nodeagent/launch/step_confinement.h"

using namespace gantry;
using agent::confinementFor;
using agent::ConfinementSettings;

namespace {

// Two sockets of four cores; GPUs 0,1 on socket 0, GPUs 2,3 on socket 1.
ConfinementSettings twoSocketNode() {
  ConfinementSettings settings;
  settings.nodeName = "n1";
  settings.socketCount = 2;
  settings.gpuSockets = {{0}, {0}, {1}, {1}};
  settings.nodeGpuFiles = {"/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia3"};
  settings.resctrlRoot = "/sys/fs/resctrl";
  return settings;
}

v1::LaunchStepRequest stepWithJobGpus(std::vector<int> gpus, bool wholeNode = false) {
  v1::LaunchStepRequest step;
  step.set_job_id(7);
  step.set_step_id("batch");
  step.set_job_whole_node(wholeNode);
  for (int gpu : gpus) step.add_job_gpu_indexes(gpu);
  return step;
}

}  // namespace

TEST_CASE("the resctrl group follows the job's GPUs per socket on the node") {
  ConfinementSettings node = twoSocketNode();
  CHECK(confinementFor(node, stepWithJobGpus({})).spec["resctrl"]["group"] == "cpu_only");
  CHECK(confinementFor(node, stepWithJobGpus({0, 2})).spec["resctrl"]["group"] == "gpu_one_per_socket");
  CHECK(confinementFor(node, stepWithJobGpus({0, 1})).spec["resctrl"]["group"] == "gpu_two_per_socket");
  // Shares of one GPU count once.
  CHECK(confinementFor(node, stepWithJobGpus({3, 3})).spec["resctrl"]["group"] == "gpu_one_per_socket");
  // A job owning the node joins no group.
  CHECK(confinementFor(node, stepWithJobGpus({0, 1}, true)).spec["resctrl"]["group"] == "");
  CHECK_THAT(confinementFor(node, stepWithJobGpus({0, 1})).log, Catch::Contains("gpu_two_per_socket"));
}

TEST_CASE("every step of a job uses the job's GPUs, not its own, for the group") {
  ConfinementSettings node = twoSocketNode();
  v1::LaunchStepRequest step = stepWithJobGpus({0, 1});
  step.set_step_id("1");
  v1::StepGpu* only = step.add_gpus();
  only->set_index(0);
  CHECK(confinementFor(node, step).spec["resctrl"]["group"] == "gpu_two_per_socket");
}

TEST_CASE("cgroup settings and the node's GPU files go into the spec only when configured") {
  ConfinementSettings node = twoSocketNode();
  node.resctrlRoot.reset();
  CHECK_FALSE(confinementFor(node, stepWithJobGpus({})).spec.contains("cgroup"));
  CHECK_FALSE(confinementFor(node, stepWithJobGpus({})).spec.contains("resctrl"));
  node.cgroup = agent::CgroupSettings{.root = "/sys/fs/cgroup", .constrainCores = true, .constrainDevices = true};
  auto spec = confinementFor(node, stepWithJobGpus({1})).spec;
  CHECK(spec["cgroup"]["root"] == "/sys/fs/cgroup");
  CHECK(spec["cgroup"]["constrain_cores"] == true);
  CHECK(spec["cgroup"]["constrain_ram"] == false);
  CHECK(spec["node_gpu_files"].size() == 4);
}

TEST_CASE("a GPU's sockets come from its cores") {
  std::vector<std::vector<int>> sockets = {{0, 1, 2, 3}, {4, 5, 6, 7}};
  CHECK(agent::socketsOfCores({1, 2}, sockets) == std::vector<int>{0});
  CHECK(agent::socketsOfCores({3, 4}, sockets) == std::vector<int>{0, 1});
  CHECK(agent::socketsOfCores({}, sockets).empty());
}

TEST_CASE("a step with --gpu-bind gets the node's GPU sockets and socket cores in spec.json") {
  ConfinementSettings node = twoSocketNode();
  node.socketCores = {{0, 1, 2, 3}, {4, 5, 6, 7}};
  v1::LaunchStepRequest step = stepWithJobGpus({0, 2});
  CHECK_FALSE(confinementFor(node, step).spec.contains("gpu_bind"));
  step.set_gpu_bind("single:2");
  auto spec = confinementFor(node, step).spec;
  CHECK(spec["gpu_bind"] == "single:2");
  CHECK(spec["gpu_sockets"] == nlohmann::json::array({{0}, {0}, {1}, {1}}));
  CHECK(spec["socket_cores"] == nlohmann::json::array({{0, 1, 2, 3}, {4, 5, 6, 7}}));
}

TEST_CASE("task/affinity reaches the step's spec only when configured") {
  ConfinementSettings node = twoSocketNode();
  CHECK_FALSE(confinementFor(node, stepWithJobGpus({})).spec.contains("task_affinity"));
  node.taskAffinity = true;
  CHECK(confinementFor(node, stepWithJobGpus({})).spec["task_affinity"] == true);
}
