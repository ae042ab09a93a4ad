// The files gantrystepd shares with the node agent in the step directory D:
// D/spec.json (read), D/pid, D/state, D/result.json (written atomically so
// the agent never reads half of it), D/task_groups, D/cgroup and
// D/stepd.log. Every file is created mode 0600: the directory is root's
// alone and spec.json may hold srun's I/O token.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/util/result.h"
#include "stepd/usage/task_usage_record.h"

namespace gantry::stepd {

struct StepResult {
  int exit_code = 0;  // highest exit code of the tasks
  int signal = 0;     // signal that ended a task, 0 when none did
  int64_t start_time = 0;
  int64_t end_time = 0;
  std::string message;
  std::map<std::string, uint64_t> dmem_peak_bytes;  // region -> peak use (gres/gpumem)
  // Non-empty: the node must be drained with this reason (a failed
  // slurm_switch_step_postfini); the agent passes it to the controller.
  std::string drain_reason;
  // Per-task usage (accounting); written only when usage was gathered
  // (JobAcctGatherType is not jobacct_gather/none).
  std::optional<std::vector<TaskUsageRecord>> task_usage;
};

Result<std::string> readWholeFile(const std::string& path);
// Writes to path.tmp (mode 0600), fsyncs, renames over path.
Status writeFileAtomically(const std::string& path, const std::string& content);
Status writeResultFile(const std::string& step_dir, const StepResult& result);
// "running", "suspended" or "done".
Status writeStateFile(const std::string& step_dir, const std::string& state);

// Appends records to D/stepd.log, each line of a record with its time, the
// launcher's pid and the level ("2026-01-31T12:00:00Z [4242] info: ..."), so
// a record of several lines reads like several records; write errors are
// ignored since there is nowhere better to report them.
class StepLog {
 public:
  explicit StepLog(std::string step_dir) : path_(std::move(step_dir) + "/stepd.log") {}
  void info(const std::string& text) const { write("info", text); }
  void warning(const std::string& text) const { write("warning", text); }
  void error(const std::string& text) const { write("error", text); }

 private:
  void write(const char* level, const std::string& text) const;
  std::string path_;
};

}  // namespace gantry::stepd
