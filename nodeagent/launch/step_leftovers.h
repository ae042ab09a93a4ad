// What remains of a step whose gantrystepd died without writing its
// result: its tasks and whatever they started. Every task dies with its
// launcher (PR_SET_PDEATHSIG), but its children do not, so the agent ends
// them before it reports the step ended and the controller gives its
// resources to the next job.
//
// gantrystepd records where they are (stepd/core/step_control.h): the
// step's cgroup, which holds every process of the step, and else each
// task's process group. In a process group only processes of the step's
// user are signalled, so a group id that was reused by then hits nobody
// else's processes.
//
// Thread-safety: free function without shared state; reads the real /proc.
#pragma once

#include <sys/types.h>

#include <filesystem>

namespace gantry::agent {

// SIGKILL to every process left of the step in `stepDir` (`uid`: the
// step's user). True once none is left; false while some still are (the
// kernel takes a moment), so the caller asks again later.
bool endStepLeftovers(const std::filesystem::path& stepDir, uid_t uid);

}  // namespace gantry::agent
