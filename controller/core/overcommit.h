// -O/--overcommit (sbatch, srun, salloc): the job is given CPUs as if it
// ran one task per node (-c CPUs on each node, not -c per task), and its
// tasks then share them, as in Slurm. An --exclusive job takes whole nodes
// anyway and is left as it is. Pure.
#pragma once

#include <vector>

#include "controller/select/cluster.h"

namespace gantry::core {

// The request the selection is asked: one task per node, at least one node.
select::Request overcommitted(select::Request request);

// Gives `ntasks` tasks to the granted nodes, as evenly as they go and the
// first nodes one more (4 tasks on 3 nodes: 2, 1, 1). Every node keeps at
// least one task. No effect on an empty allocation.
void spreadTasks(int ntasks, std::vector<select::NodeGrant>& nodes);

}  // namespace gantry::core
