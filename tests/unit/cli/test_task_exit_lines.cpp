#include <catch2/catch.hpp>

#include <array>
#include <csignal>

#include "cli/task_exit_lines.h"

using gantry::cli::taskExitLines;

namespace {

google::protobuf::RepeatedPtrField<gantry::v1::TaskExit> exits(std::initializer_list<std::array<int, 3>> rows) {
  google::protobuf::RepeatedPtrField<gantry::v1::TaskExit> out;
  for (const auto& [task, code, signal] : rows) {
    auto* exit = out.Add();
    exit->set_task_id(task);
    exit->set_exit_code(code);
    exit->set_signal(signal);
  }
  return out;
}

}  // namespace

TEST_CASE("srun reports failed and signalled tasks as Slurm does", "[cli][srun]") {
  struct Row {
    const char* rule;
    google::protobuf::RepeatedPtrField<gantry::v1::TaskExit> exits;
    bool srunSignalled;
    std::vector<std::string> lines;
  };
  const std::vector<Row> rows = {
      {"tasks that exit 0 are not reported", exits({{0, 0, 0}, {1, 0, 0}}), false, {}},
      {"one failed task is 'task N'", exits({{4, 0, 0}, {5, 7, 0}}), false, {"gx2: task 5: Exited with exit code 7"}},
      {"tasks that ended alike share a line", exits({{6, 2, 0}, {4, 2, 0}, {5, 2, 0}}), false,
       {"gx2: tasks 4-6: Exited with exit code 2"}},
      {"different endings get a line each, in task order", exits({{3, 0, SIGKILL}, {1, 9, 0}}), false,
       {"gx2: task 1: Exited with exit code 9", "gx2: task 3: Killed"}},
      {"a signal is named by its text", exits({{0, 0, SIGTERM}, {2, 0, SIGTERM}}), false,
       {"gx2: tasks 0,2: Terminated"}},
      {"signals srun sent itself are not reported", exits({{0, 0, SIGINT}, {1, 3, 0}}), true,
       {"gx2: task 1: Exited with exit code 3"}},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    CHECK(taskExitLines("gx2", row.exits, row.srunSignalled) == row.lines);
  }
}
