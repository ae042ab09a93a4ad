// How the node agent talks to a running gantrystepd besides spec.json, and
// what gantrystepd leaves in its step directory for the agent to clean up
// with, should it die.
//
// Control signals, sent only by the agent (root) on the controller's word:
// SIGTERM or SIGINT end the step, SIGUSR1 suspends it, SIGUSR2 resumes it.
// A user's signal (scancel -s) is never sent to gantrystepd itself: the
// agent queues taskSignalChannel() with sigqueue(), its value carrying the
// user's signal number and the processes it reaches, and gantrystepd hands
// that signal to its tasks. The channel is a real-time signal, so requests
// queue instead of merging, and gantrystepd takes it only from root.
//
// Pure; no state.
#pragma once

#include <optional>
#include <string>

namespace gantry::stepd {

// Which of a step's processes a user's signal reaches.
enum class TaskSignalReach {
  AllProcesses = 0,    // every process of the step (the cgroup, else each task's process group)
  TaskLeaderOnly = 1,  // each task's own process only, not its children (scancel --batch)
};

struct TaskSignal {
  int signal = 0;
  TaskSignalReach reach = TaskSignalReach::AllProcesses;
};

// SIGRTMIN + 2 (SIGRTMIN is not a constant in glibc).
int taskSignalChannel();
// The sigqueue value for `request`.
int encodeTaskSignal(const TaskSignal& request);
// Nothing for a value that is no valid request (a signal outside 1..SIGRTMAX).
std::optional<TaskSignal> decodeTaskSignal(int value);

// Files gantrystepd writes (mode 0600) for the agent:
//   task_groups: the process group of each task, one per line, as they start
//   cgroup:      the step's cgroup v2 directory, when it has one
inline constexpr const char* kTaskGroupsFile = "task_groups";
inline constexpr const char* kCgroupFile = "cgroup";

}  // namespace gantry::stepd
