// The "meta" of a --json answer from this process and its configuration:
// the caller's user, group and terminal, the cluster's name and
// accounting type (I/O: reads the process's ids, terminal and names).
#pragma once

#include <string>
#include <vector>

#include "cli/controller_client.h"
#include "cli/json_render.h"

namespace gantry::cli {

// `program` is the Slurm command's name ("squeue"), `args` the words after
// it, as the command got them.
JsonMeta localJsonMeta(const std::string& program, const std::vector<std::string>& args,
                       const ControllerClient& client);

}  // namespace gantry::cli
