// Which GRES a step gets when it names none (gres.md, "Running Jobs"): the
// GRES the job asked for, never those it holds only because it has its
// nodes to itself (--exclusive, OverSubscribe=EXCLUSIVE give a job every
// device of the node). A step that asks for GRES is left as it is; it may
// take any of the job's devices, implicit ones included.
#pragma once

#include "controller/core/records.h"
#include "controller/select/cluster.h"
#include "gantry/v1/types.pb.h"

namespace gantry::core {

// True when the spec asks for GRES (--gres or any --gpus* count).
bool asksForGres(const v1::JobSpec& spec);

// The step's spec, with the job's GRES request copied in when the step
// names none and the job holds its nodes whole: the step then gets as much
// as the job asked for, not every device the job holds.
v1::JobSpec withJobGresRequest(v1::JobSpec step, const JobRecord& job);

// A step that names no GRES in a job that asked for none gets no device,
// share or count GRES (all of the job's would be implicit ones).
void dropImplicitGres(const v1::JobSpec& step, const JobRecord& job, select::Allocation& allocation);

}  // namespace gantry::core
