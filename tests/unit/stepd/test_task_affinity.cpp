// One row per rule of task/affinity's per-task binding (task_affinity.h).
#include <catch2/catch.hpp>

#include "stepd/core/task_affinity.h"

using gantry::stepd::taskCpuSlice;

TEST_CASE("task CPU binding rules", "[stepd][affinity]") {
  using Cpus = std::vector<int>;
  struct Row {
    const char* rule;
    Cpus stepCpus;
    int tasks, cpusPerTask, task;
    std::optional<Cpus> bound;
  };
  const Row rows[] = {
      {"exact step: each task gets its own CPU in order", {5, 3}, 2, 1, 1, Cpus{5}},
      {"exact step: the first task gets the lowest CPU", {5, 3}, 2, 1, 0, Cpus{3}},
      {"cpus per task: the slice is that many CPUs", {8, 9, 10, 11, 12, 13}, 3, 2, 2, Cpus{12, 13}},
      {"one task with all of its CPUs is bound to them", {4, 6, 7}, 1, 3, 0, Cpus{4, 6, 7}},
      {"more CPUs than the tasks ask (whole allocation): no binding", {0, 1, 2, 3}, 2, 1, 0, std::nullopt},
      {"fewer CPUs than the tasks ask (overcommit): no binding", {0, 1}, 4, 1, 3, std::nullopt},
      {"no CPUs known: no binding", {}, 1, 1, 0, std::nullopt},
      {"a repeated CPU id is no list to cut: no binding", {2, 2}, 2, 1, 0, std::nullopt},
      {"a task index outside the node's tasks: no binding", {0, 1}, 2, 1, 2, std::nullopt},
      {"zero CPUs per task: no binding", {0, 1}, 2, 0, 0, std::nullopt},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    CHECK(taskCpuSlice(row.stepCpus, row.tasks, row.cpusPerTask, row.task) == row.bound);
  }
}
