// SLUIDs: short, stable, cluster-unique names for a job and for each run of
// it.
//
// The job SLUID is SLURM_JOB_SLUID and the name of the job's cgroup
// directory. Derivation (stable across daemons and restarts, no state
// needed): the 64-bit FNV-1a hash of "<cluster>:<job id>" written as 13
// Crockford base32 digits (0-9, A-Z without I, L, O, U), most significant
// first, after the letter 's'. The same job id on two clusters gives two
// SLUIDs, so a shared filesystem or accounting database tells them apart.
//
// The run SLUID is what switch.lua sees as `sluid` (job.sluid, step.sluid):
// it changes on every run of a requeued job, so what a script keys by it
// never collides with what an earlier run left behind. The first run's is
// the job SLUID; run n (n requeues before it) hashes "<cluster>:<job id>.<n>".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gantry {

std::string jobSluid(const std::string& cluster, uint64_t job_id);
std::string runSluid(const std::string& cluster, uint64_t job_id, int restarts);

// A SLUID as a user may type it ("s" or "S" and 13 base32 digits in any
// case; O reads as 0, I and L as 1, as Crockford's alphabet allows) in the
// form jobSluid writes; nullopt for anything else.
std::optional<std::string> canonicalSluid(std::string_view text);

}  // namespace gantry
