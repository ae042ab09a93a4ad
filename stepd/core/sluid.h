// The job SLUID: a short, stable, cluster-unique name for a job, used as
// SLURM_JOB_SLUID and as the name of the job's cgroup directory.
//
// Derivation (stable across daemons and restarts, no state needed): the
// 64-bit FNV-1a hash of "<cluster>:<job id>" written as 13 Crockford base32
// digits (0-9, A-Z without I, L, O, U), most significant first, after the
// letter 's'. Example: cluster "gantry", job 12 -> "s" + 13 digits. The same
// job id on two clusters gives two SLUIDs, so a shared filesystem or a
// shared accounting database can tell the jobs apart.
#pragma once

#include <cstdint>
#include <string>

namespace gantry::stepd {

std::string jobSluid(const std::string& cluster, uint64_t job_id);

}  // namespace gantry::stepd
