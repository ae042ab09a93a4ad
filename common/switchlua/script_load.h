// Loading switch.lua when a daemon starts: gantryctld will not start, and
// gantrystepd will not run a step, with a script that does not load.
#pragma once

#include <filesystem>

#include "common/switchlua/script_log.h"
#include "common/util/result.h"

namespace gantry::switchlua {

// Loads the file into a fresh Lua state (the `slurm` table set up, the top
// level run) and drops the state again. On success logs kScriptLoaded at
// info. On failure logs nothing: the Error's message is the line the
// daemon logs at the error level ("switch/lua: Unable to stat <path>: ...",
// "switch/lua: syntax error: ...", "switch/lua: error at top level: ...",
// "switch/lua: <path>: returned N on load"), followed by kFatalLine
// (messages.h). Lines the top level logs go to `sink` as it runs.
Status loadScript(const std::filesystem::path& path, const LogSink& sink);

}  // namespace gantry::switchlua
