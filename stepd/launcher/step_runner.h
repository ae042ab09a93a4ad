// One step from spec.json to result.json: confine (resctrl group, cgroup),
// start the tasks, serve suspend/resume/terminate requests that arrive as
// signals, collect exit statuses, clean up, report.
//
// Signals to gantrystepd: SIGTERM or SIGINT = terminate (SIGTERM to every
// task's process group, then after kill_wait cgroup.kill or SIGKILL);
// SIGUSR1 = suspend (cgroup.freeze, or SIGSTOP without a cgroup); SIGUSR2 =
// resume. SIGHUP is ignored so the step outlives its agent.
#pragma once

#include <string>

namespace gantry::stepd {

struct StepRunnerOptions {
  std::string step_dir;
};

// Returns the exit status of gantrystepd itself: 0 once result.json is
// written (whatever the tasks did), 1 when even that failed.
int runStep(const StepRunnerOptions& options);

}  // namespace gantry::stepd
