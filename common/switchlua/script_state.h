// A fresh Lua state with switch.lua loaded into it: the environment set up,
// the file compiled and its top level run, by the spec's loading rules.
//
// Internal to the library: loadScript() and callFunction() are built on it.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "common/switchlua/slurm_table.h"
#include "common/util/result.h"

struct lua_State;

namespace gantry::switchlua {

struct LuaStateCloser {
  void operator()(lua_State* L) const;
};
using LuaStatePtr = std::unique_ptr<lua_State, LuaStateCloser>;

// The Error's message is the "switch/lua: ..." line of the spec: the file
// cannot be stat'ed or read, does not compile, raises (or calls os.exit)
// at top level, or returns a number other than slurm.SUCCESS. `context`
// must outlive the state.
Result<LuaStatePtr> openScript(const std::filesystem::path& path, ScriptContext& context);

// The message of the error value at `index`, without calling into the
// script (an error object that is not a string is named by its type).
std::string errorText(lua_State* L, int index);

}  // namespace gantry::switchlua
