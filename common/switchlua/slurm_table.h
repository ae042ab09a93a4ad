// The environment a switch.lua script runs in: the `slurm` table, print()
// sent to the log, and os.exit() turned into a result the caller can see.
//
// Internal to the library (script_call.cpp and script_load.cpp use it).
#pragma once

#include <string>

#include "common/switchlua/script_log.h"

struct lua_State;

namespace gantry::switchlua {

// What the functions of the `slurm` table need from their caller. Lives
// for one Lua state; the state keeps a pointer to it in its registry.
struct ScriptContext {
  LogSink sink;
  // Named in every line the script logs: "top level" while the file runs,
  // then the function being called.
  std::string phase = "top level";
  // Set by os.exit(). Once set, the call counts as ended by os.exit, even
  // if the script caught the error that os.exit raises with pcall().
  bool exitCalled = false;
};

// Opens Lua's standard libraries, sets the `slurm` global and replaces
// print and os.exit. `context` must outlive L.
void installScriptEnvironment(lua_State* L, ScriptContext& context);

// Sends one line, prefixed "switch/lua: <phase>: ", to the context's sink.
void logLine(ScriptContext& context, ScriptLogLevel level, const std::string& message);

}  // namespace gantry::switchlua
