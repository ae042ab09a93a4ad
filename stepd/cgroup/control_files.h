// Reading and writing cgroup v2 control files. We write the files directly
// instead of going through libcgroup: libcgroup has no API for the dmem
// controller, each setting is a one-line write, and plain paths under a root
// prefix let the same code run against fixture trees in tests.
#pragma once

#include <string>

#include "common/util/result.h"

namespace gantry::stepd {

// Writes `value` as the whole content of `path` in one write(2), as the
// kernel expects. On failure the message names the file, the value and the
// reason. The file is created when missing, which only happens in fixture
// trees (a real cgroup directory refuses new files).
Status writeControlFile(const std::string& path, const std::string& value);

// For files that take one entry per write and keep the others (the keyed
// dmem.max/dmem.min, cgroup.subtree_control): the kernel treats it like
// writeControlFile; a fixture file gathers every entry as its own line.
Status appendControlEntry(const std::string& path, const std::string& entry);

Result<std::string> readControlFile(const std::string& path);

}  // namespace gantry::stepd
