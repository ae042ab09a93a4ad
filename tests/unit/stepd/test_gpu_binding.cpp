// --gpu-bind on a node: which of the step's GPUs each local task gets, and
// the per-task CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES that follow.
#include <catch2/catch.hpp>

#include "stepd/core/gpu_binding.h"
#include "stepd/core/task_environment.h"

using namespace gantry;
using namespace gantry::stepd;

namespace {

// Two sockets of six cores; GPUs 0-2 on socket 0 and 3-5 on socket 1; the
// step holds `held` of them and runs `tasks` tasks on all twelve cores.
StepSpec twoSocketStep(const std::vector<int>& held, int tasks, const std::string& vendor = "nvidia") {
  StepSpec spec;
  spec.job_id = 7;
  spec.step_id = "2";
  spec.node_name = "g7";
  spec.tasks_on_node = tasks;
  for (int core = 0; core < 12; ++core) spec.cores.push_back(core);
  spec.socket_cores = {{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9, 10, 11}};
  spec.gpu_sockets = {{0}, {0}, {0}, {1}, {1}, {1}};
  for (int index : held) {
    spec.gpus.push_back({.index = index, .files = {"/dev/nvidia" + std::to_string(index)}, .vendor = vendor});
  }
  return spec;
}

// The node indexes a task is bound to.
std::vector<int> boundIndexes(const StepSpec& spec, const std::string& bind, int task, bool relative = false) {
  auto parsed = gres::parseGpuBind(bind);
  REQUIRE(parsed.ok());
  auto binding = bindTaskGpus(spec, *parsed, task, relative);
  std::vector<int> indexes;
  const auto gpus = stepGpuIndexes(spec);
  for (size_t p : binding.positions) indexes.push_back(gpus.at(p));
  return indexes;
}

}  // namespace

TEST_CASE("each --gpu-bind form gives each task its GPUs", "[stepd][gpu-bind]") {
  struct Row {
    const char* rule;
    std::vector<int> held;
    int tasks;
    const char* bind;
    bool relative;
    std::vector<std::vector<int>> perTask;  // node indexes, task by task
  };
  const std::vector<int> all = {0, 1, 2, 3, 4, 5};
  const Row rows[] = {
      {"none leaves every task all of the step's GPUs", {1, 4}, 2, "none", false, {{1, 4}, {1, 4}}},
      {"closest gives each task the GPUs of its socket", all, 4, "closest", false,
       {{0, 1, 2}, {0, 1, 2}, {3, 4, 5}, {3, 4, 5}}},
      {"closest falls back to all when none is on the task's socket", {4, 5}, 2, "closest", false,
       {{4, 5}, {4, 5}}},
      // single:N: the (local task / N)-th of the task's close GPUs, round robin.
      {"single:1 gives one close GPU per task in turn", {0, 1, 3, 4}, 4, "single:1", false, {{0}, {1}, {3}, {4}}},
      {"single:2 puts blocks of two tasks on the close GPUs", all, 6, "single:2", false,
       {{0}, {0}, {1}, {4}, {5}, {5}}},
      {"map_gpu takes node indexes round robin", all, 3, "map_gpu:5,2", false, {{5}, {2}, {5}}},
      {"map_gpu takes positions when devices are confined", {2, 5}, 2, "map_gpu:1,0", true, {{5}, {2}}},
      {"mask_gpu takes one mask per task", all, 2, "mask_gpu:0x21,0x6", false, {{0, 5}, {1, 2}}},
      {"mask_gpu bits are positions when devices are confined", {1, 3, 4}, 1, "mask_gpu:0x6", true, {{3, 4}}},
      {"per_task gives each task the next GPUs in order", {0, 1, 2, 3}, 3, "per_task:2", false,
       {{0, 1}, {2, 3}, {0, 1}}},
      {"verbose does not change the binding", {0, 3}, 2, "verbose,single:1", false, {{0}, {3}}},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      StepSpec spec = twoSocketStep(row.held, row.tasks);
      for (int task = 0; task < row.tasks; ++task) {
        INFO("task " << task);
        CHECK(boundIndexes(spec, row.bind, task, row.relative) == row.perTask[task]);
      }
    }
  }
}

TEST_CASE("a binding that names no GPU of the step binds the first one and says so", "[stepd][gpu-bind]") {
  StepSpec spec = twoSocketStep({2, 3}, 1);
  auto binding = bindTaskGpus(spec, *gres::parseGpuBind("map_gpu:4"), 0, false);
  CHECK(binding.positions == std::vector<size_t>{0});
  CHECK_THAT(binding.note, Catch::Contains("names no GPU of the step for task 0"));
  CHECK(bindTaskGpus(spec, *gres::parseGpuBind("map_gpu:3"), 0, false).note.empty());
}

TEST_CASE("GPUs of unknown socket are close to every task", "[stepd][gpu-bind]") {
  StepSpec spec = twoSocketStep({0, 4}, 2);
  spec.gpu_sockets.clear();
  CHECK(boundIndexes(spec, "closest", 1) == std::vector<int>{0, 4});
}

TEST_CASE("tasks take consecutive blocks of the step's cores", "[stepd][gpu-bind]") {
  CHECK(taskCores({8, 9, 10, 11, 12}, 2, 0) == std::vector<int>{8, 9, 10});
  CHECK(taskCores({8, 9, 10, 11, 12}, 2, 1) == std::vector<int>{11, 12});
  CHECK(taskCores({3, 1}, 3, 2) == std::vector<int>{1});  // fewer cores than tasks: shared in turn
  CHECK(taskCores({}, 2, 0).empty());
}

TEST_CASE("a bound task's GPU variables name only its own GPUs", "[stepd][gpu-bind]") {
  StepSpec spec = twoSocketStep({1, 3, 4}, 2);
  const std::vector<size_t> second = {1};
  auto env = taskEnvironment(spec, {.local_task_id = 1, .devices_constrained = false, .bound_gpus = second});
  CHECK(env.at("CUDA_VISIBLE_DEVICES") == "3");
  auto confined = taskEnvironment(spec, {.local_task_id = 1, .devices_constrained = true, .bound_gpus = second});
  CHECK(confined.at("CUDA_VISIBLE_DEVICES") == "1");  // its position among the step's GPUs
  CHECK(confined.at("SLURM_STEP_GPUS") == "1,3,4");   // the step still holds all three
  auto unbound = taskEnvironment(spec, {.local_task_id = 1, .devices_constrained = false});
  CHECK(unbound.at("CUDA_VISIBLE_DEVICES") == "1,3,4");

  StepSpec amd = twoSocketStep({2, 5}, 2, "amd");
  const std::vector<size_t> last = {1};
  auto rocm = taskEnvironment(amd, {.local_task_id = 1, .devices_constrained = false, .bound_gpus = last});
  CHECK(rocm.at("ROCR_VISIBLE_DEVICES") == "5");
  CHECK(rocm.at("GPU_DEVICE_ORDINAL") == "5");
}

TEST_CASE("a step given no GPU of a GPU node drops the visible-device variables it inherited", "[stepd][env]") {
  StepSpec spec = twoSocketStep({}, 1);
  spec.env = {{"CUDA_VISIBLE_DEVICES", "0,1,2"}, {"ROCR_VISIBLE_DEVICES", "0"}, {"HOME", "/home/u"}};
  spec.node_has_gpus = true;
  auto env = taskEnvironment(spec, {});
  CHECK(env.count("CUDA_VISIBLE_DEVICES") == 0);
  CHECK(env.count("ROCR_VISIBLE_DEVICES") == 0);
  CHECK(env.at("HOME") == "/home/u");
  spec.node_has_gpus = false;  // a node without GPUs leaves the user's variables alone
  CHECK(taskEnvironment(spec, {}).at("CUDA_VISIBLE_DEVICES") == "0,1,2");
}
