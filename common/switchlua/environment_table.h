// The environment table slurm_switch_step_init() may return, turned into
// changes for the step's environment. Pure: no Lua, no process state.
//
//   FOO = "bar"  -> set FOO=bar
//   FOO = 42     -> set FOO=42 (a number as Lua's tostring() writes it, so
//                   a float 42.0 gives "42.0")
//   FOO = true   -> set FOO=1
//   FOO = false  -> unset FOO
// Any other value, a key that is not a string, and a name no environment
// can hold (empty, or with '=' or a NUL byte) or a value with a NUL byte is
// skipped, and `skipped` says which and why for the log. SLURM_* names are
// not refused here: the step launcher sets its own SLURM_* variables after
// these changes, so its values win.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/switchlua/table_entry.h"

namespace gantry::switchlua {

struct EnvironmentChanges {
  std::vector<std::pair<std::string, std::string>> set;  // in name order
  std::vector<std::string> unset;                        // in name order
  std::vector<std::string> skipped;                      // one line each: "environment entry K skipped: why"
};

EnvironmentChanges environmentChanges(const std::vector<TableEntry>& entries);

}  // namespace gantry::switchlua
