// Starting one task process: its own process group, its cgroup, its I/O,
// the user's identity, its directory and environment, then exec.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::stepd {

struct TaskIdentity {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string user;  // for initgroups; empty = no supplementary groups
  // Only when gantrystepd runs as root and the uid differs from ours.
  bool switch_user = false;
};

struct TaskLaunch {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;
  std::string work_dir;
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  TaskIdentity identity;
  // The task writes its own pid here before exec, so it is confined before
  // it runs any user code. Empty = no cgroup.
  std::string cgroup_procs_path;
  // srun --pty: the task leads a session of its own with its standard input
  // (a pseudo terminal) as controlling terminal, so ^C and job control work.
  bool controlling_terminal = false;
  // task/affinity: the CPUs the task is bound to before exec (empty: not
  // bound). A binding the kernel refuses is reported on the task's stderr
  // and the task runs unbound.
  std::vector<int> cpu_affinity;
};

// Forks and execs. The child becomes leader of a new process group (its pid),
// so signals reach the task and its children together, and gets SIGKILL
// when the calling thread (gantrystepd's main thread) ends. Failures after the
// fork (identity, exec) are written to the task's stderr and end the child
// with status 127; the parent only sees fork failures.
Result<pid_t> launchTask(const TaskLaunch& launch);

// Opens an output file as the task's user (creating it, and emptying it
// unless `append`: --open-mode=append), so the file belongs to the user and
// the user's permissions apply, by switching only the filesystem identity
// of this single-threaded process.
Result<int> openOutputAsUser(const std::string& path, const TaskIdentity& identity, bool append = false);

Result<int> openInputAsUser(const std::string& path, const TaskIdentity& identity);

}  // namespace gantry::stepd
