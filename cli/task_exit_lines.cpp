#include "cli/task_exit_lines.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

#include "common/gres/index_list.h"

namespace gantry::cli {

std::vector<std::string> taskExitLines(const std::string& node,
                                       const google::protobuf::RepeatedPtrField<gantry::v1::TaskExit>& exits,
                                       bool srunSignalled) {
  // (signal, exit code) -> tasks; ordered later by each group's first task.
  std::map<std::pair<int, int>, std::vector<int>> groups;
  for (const auto& exit : exits) {
    if (exit.signal() == 0 && exit.exit_code() == 0) continue;
    if (exit.signal() != 0 && srunSignalled) continue;
    groups[{exit.signal(), exit.signal() != 0 ? 0 : exit.exit_code()}].push_back(exit.task_id());
  }
  std::multimap<int, std::string> byFirstTask;
  for (auto& [ending, tasks] : groups) {
    std::sort(tasks.begin(), tasks.end());
    const auto [signal, code] = ending;
    std::string what = signal != 0 ? std::string(strsignal(signal)) : "Exited with exit code " + std::to_string(code);
    std::string which = (tasks.size() == 1 ? "task " : "tasks ") + gres::formatIndexList(tasks);
    byFirstTask.emplace(tasks.front(), node + ": " + which + ": " + what);
  }
  std::vector<std::string> lines;
  for (auto& [first, line] : byFirstTask) lines.push_back(std::move(line));
  return lines;
}

}  // namespace gantry::cli
