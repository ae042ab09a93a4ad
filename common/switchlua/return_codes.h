// The numbers of the `slurm` table a script returns to say how a call went.
#pragma once

namespace gantry::switchlua {

inline constexpr int kSuccess = 0;
inline constexpr int kError = -1;
inline constexpr int kFailure = -1;
// "Not yet, call me again" from slurm_switch_job_complete(). The spec names
// it without a value; it is positive (negative numbers are failures) and
// equals the POSIX EAGAIN of Linux, so a script that passes an errno
// through means the same thing.
inline constexpr int kEagain = 11;

}  // namespace gantry::switchlua
