// What srun (outside a job) and salloc share: asking the controller for an
// allocation (a job without a script), waiting until it runs, describing it
// in the environment, and giving it back.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>

#include "cli/allocation_keeper.h"
#include "cli/controller_client.h"
#include "cli/job_options.h"
#include "common/util/result.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::cli {

// This process's environment, directory and host.
SubmitContext currentSubmitContext();

// Submits `spec` (no script) and waits until the job runs. Prints the
// queueing lines with `program` as prefix. Stops waiting, and gives the
// job up, when `*abort` becomes true. The job is submitted as one the
// client keeps alive, and `keeper` starts calling for it at once, so it
// ends if this process dies, whether still waiting or running. Without a
// keeper (salloc --no-shell) the job outlives this process: it runs until
// its time limit or scancel.
// `verbosity.quiet` drops those lines (-Q).
Result<gantry::v1::Job> allocate(const ControllerClient& client, gantry::v1::JobSpec spec,
                                 const std::string& program, const std::atomic<bool>* abort,
                                 AllocationKeeper* keeper, const Verbosity& verbosity);

// The job as the controller lists it now.
Result<gantry::v1::Job> fetchJob(const ControllerClient& client, uint64_t jobId);

// Ends the allocation (the job completes with `exitCode`).
Status releaseAllocation(const ControllerClient& client, uint64_t jobId, int exitCode);

// SLURM_JOB_ID, SLURM_JOB_NODELIST, SLURM_NNODES, ... for a shell or
// command inside the allocation, so srun there finds its job.
std::map<std::string, std::string> allocationEnvironment(const gantry::v1::Job& job);

}  // namespace gantry::cli
