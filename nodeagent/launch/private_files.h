// Files and directories of the agent's spool that only root may read:
// step and job records hold srun's I/O token and the user's environment.
// They are created with their final mode (no window in which another user
// could open them), whatever the umask.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

#include "common/util/result.h"

namespace gantry::agent {

// mkdir with `mode` (0700 unless told) for each missing directory from the
// first missing one down to `path`; an existing directory is left as it is.
Status makePrivateDirectory(const std::filesystem::path& path, mode_t mode = 0700);

// Writes `content` to path.tmp, created mode 0600, and renames it over
// `path`, so a reader never sees half of it.
Status writePrivateFile(const std::filesystem::path& path, const std::string& content);

}  // namespace gantry::agent
