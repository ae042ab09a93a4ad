// srun's report of tasks that did not end well, in Slurm's words, so that
// scripts and people reading srun's stderr see what they would under
// Slurm: "node3: task 2: Exited with exit code 4", "node3: tasks 0-1:
// Terminated" (the signal's strsignal text). Pure: no I/O.
#pragma once

#include <string>
#include <vector>

#include "gantry/v1/io.pb.h"

namespace gantry::cli {

// One line per distinct ending among a node's task exits (tasks that ended
// alike share a line, in task order). Tasks that exited 0 get none, and
// neither do tasks a signal ended when srun itself sent the signals
// (`srunSignalled`: the user's ^C, a closed pipe), as Slurm says those
// only with -v.
std::vector<std::string> taskExitLines(const std::string& node,
                                       const google::protobuf::RepeatedPtrField<gantry::v1::TaskExit>& exits,
                                       bool srunSignalled);

}  // namespace gantry::cli
