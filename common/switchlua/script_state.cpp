#include "common/switchlua/script_state.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

#include <lua.hpp>

#include "common/switchlua/messages.h"
#include "common/switchlua/return_codes.h"

namespace gantry::switchlua {
namespace {

// Runs installScriptEnvironment under lua_pcall, so that running out of
// memory while building it is an error and not a panic.
int installProtected(lua_State* L) {
  auto* context = static_cast<ScriptContext*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  installScriptEnvironment(L, *context);
  return 0;
}

// "7" for an integer, Lua's own text for a float ("2.5").
std::string numberText(lua_State* L, int index) {
  if (lua_isinteger(L, index)) return std::to_string(lua_tointeger(L, index));
  lua_pushvalue(L, index);
  std::string text = lua_tostring(L, -1);
  lua_pop(L, 1);
  return text;
}

Error loadError(const std::string& what) { return Error{ErrorCode::Invalid, "switch/lua: " + what}; }

}  // namespace

void LuaStateCloser::operator()(lua_State* L) const { lua_close(L); }

std::string errorText(lua_State* L, int index) {
  int type = lua_type(L, index);
  if (type == LUA_TSTRING || type == LUA_TNUMBER) {
    lua_pushvalue(L, index);
    std::string text = lua_tostring(L, -1);
    lua_pop(L, 1);
    return text;
  }
  return std::string("(error object is a ") + luaL_typename(L, index) + " value)";
}

Result<LuaStatePtr> openScript(const std::filesystem::path& path, ScriptContext& context) {
  const std::string file = path.string();
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) {
    return loadError("Unable to stat " + file + ": " + std::strerror(errno));
  }

  LuaStatePtr state(luaL_newstate());
  if (!state) return Error{ErrorCode::Internal, "switch/lua: out of memory creating a Lua state"};
  lua_State* L = state.get();
  context.phase = "top level";
  lua_pushcfunction(L, installProtected);
  lua_pushlightuserdata(L, &context);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
    return Error{ErrorCode::Internal, "switch/lua: setting up the script environment: " + errorText(L, -1)};
  }

  switch (luaL_loadfile(L, file.c_str())) {
    case LUA_OK: break;
    case LUA_ERRSYNTAX: return loadError("syntax error: " + errorText(L, -1));
    case LUA_ERRFILE: return loadError(errorText(L, -1));  // "cannot open <file>: <why>"
    default: return loadError(file + ": " + errorText(L, -1));
  }

  int status = lua_pcall(L, 0, 1, 0);
  if (context.exitCalled) return loadError(file + ": " + std::string(kScriptCalledExit) + " at top level");
  if (status != LUA_OK) {
    std::string message = errorText(L, -1);
    if (lua_type(L, -1) != LUA_TSTRING) message = file + ": " + message;
    return loadError("error at top level: " + message);
  }
  // Returning nothing, or anything that is not a number, is fine.
  if (lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) != kSuccess) {
    return loadError(file + ": returned " + numberText(L, -1) + " on load");
  }
  lua_settop(L, 0);
  return state;
}

}  // namespace gantry::switchlua
