#include "common/switchlua/slurm_table.h"

#include <exception>
#include <string_view>

#include <lua.hpp>

#include "common/switchlua/lua_json.h"
#include "common/switchlua/messages.h"
#include "common/switchlua/return_codes.h"
#include "common/switchlua/yaml_json.h"

// Lua reports errors with longjmp, which skips C++ destructors. So every
// function here finishes its C++ work inside an inner scope, leaves the
// result or the error message on the Lua stack, and only then returns or
// raises with lua_error().

namespace gantry::switchlua {
namespace {

constexpr const char* kContextKey = "gantry.switchlua.context";
constexpr int kErrorLevel = -1;  // upvalue of the formatted log functions for log_error

ScriptContext& contextOf(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, kContextKey);
  auto* context = static_cast<ScriptContext*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return *context;
}

ScriptLogLevel levelFromNumber(lua_Integer number) {
  switch (number) {
    case kErrorLevel: return ScriptLogLevel::Error;
    case 1: return ScriptLogLevel::Verbose;
    case 2: return ScriptLogLevel::Debug;
    case 3: return ScriptLogLevel::Debug2;
    case 4: return ScriptLogLevel::Debug3;
    default: return number >= 5 ? ScriptLogLevel::Debug4 : ScriptLogLevel::Info;
  }
}

// The string on top of the stack, NUL bytes and all.
std::string_view topText(lua_State* L) {
  size_t length = 0;
  const char* data = lua_tolstring(L, -1, &length);
  return std::string_view(data, length);
}

void logFromLua(lua_State* L, ScriptLogLevel level, std::string_view message) {
  ScriptContext& context = contextOf(L);
  try {
    logLine(context, level, std::string(message));
  } catch (const std::exception&) {
    // A failing sink must not unwind through Lua's C frames; the line is lost.
  }
}

// slurm.log(level, msg)
int luaLog(lua_State* L) {
  if (lua_gettop(L) == 0) return 0;  // nothing to log
  lua_Integer level = lua_gettop(L) >= 2 ? static_cast<lua_Integer>(lua_tonumber(L, 1)) : 0;
  if (level < 0) level = 0;  // only slurm.error() and log_error() log as errors
  luaL_tolstring(L, lua_gettop(L) >= 2 ? 2 : 1, nullptr);
  logFromLua(L, levelFromNumber(level), topText(L));
  return 0;
}

// slurm.error(msg)
int luaError(lua_State* L) {
  luaL_tolstring(L, 1, nullptr);
  logFromLua(L, ScriptLogLevel::Error, topText(L));
  return 0;
}

// slurm.log_info(fmt, ...) and the others: string.format, then log. The
// upvalues are string.format, the level and the function's own name.
int luaLogFormatted(lua_State* L) {
  int arguments = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  if (lua_pcall(L, arguments, 1, 0) != LUA_OK) {
    luaL_where(L, 1);
    lua_pushfstring(L, "%s: ", lua_tostring(L, lua_upvalueindex(3)));
    lua_rotate(L, -3, 2);  // where, name, message
    lua_concat(L, 3);
    return lua_error(L);
  }
  logFromLua(L, levelFromNumber(lua_tointeger(L, lua_upvalueindex(2))), topText(L));
  return 0;
}

// print(...): Lua's own joining (tostring, tabs), logged at info.
int luaPrint(lua_State* L) {
  int arguments = lua_gettop(L);
  luaL_Buffer line;
  luaL_buffinit(L, &line);
  for (int i = 1; i <= arguments; ++i) {
    if (i > 1) luaL_addchar(&line, '\t');
    luaL_tolstring(L, i, nullptr);
    luaL_addvalue(&line);
  }
  luaL_pushresult(&line);
  logFromLua(L, ScriptLogLevel::Info, topText(L));
  return 0;
}

// os.exit(): in a daemon's own process it would take the daemon down. Mark
// the call as ended by it and unwind.
int luaExit(lua_State* L) {
  contextOf(L).exitCalled = true;
  lua_pushlstring(L, kScriptCalledExit.data(), kScriptCalledExit.size());
  return lua_error(L);
}

// Returns the value on top of the stack, or raises it as the error when
// `failed`; called after the C++ scope that made it has closed.
int finish(lua_State* L, bool failed) {
  if (failed) return lua_error(L);
  return 1;
}

int luaToJson(lua_State* L) {
  luaL_checkany(L, 1);
  bool failed = false;
  {
    LuaRead read = readLuaValue(L, 1, kTextLimits);
    failed = !read.ok();
    std::string text = failed ? "slurm.to_json: " + read.detail : read.value.dump();
    lua_pushlstring(L, text.data(), text.size());
  }
  return finish(L, failed);
}

int luaToYaml(lua_State* L) {
  luaL_checkany(L, 1);
  bool failed = false;
  {
    LuaRead read = readLuaValue(L, 1, kTextLimits);
    failed = !read.ok();
    std::string text = failed ? "slurm.to_yaml: " + read.detail : jsonToYaml(read.value);
    lua_pushlstring(L, text.data(), text.size());
  }
  return finish(L, failed);
}

int luaFromJson(lua_State* L) {
  size_t length = 0;
  const char* data = luaL_checklstring(L, 1, &length);
  bool failed = false;
  {
    auto value = parseJsonText(std::string_view(data, length));
    failed = !value.ok();
    if (failed) {
      std::string text = "slurm.from_json: " + value.error();
      lua_pushlstring(L, text.data(), text.size());
    } else {
      pushJson(L, *value);
    }
  }
  return finish(L, failed);
}

int luaFromYaml(lua_State* L) {
  size_t length = 0;
  const char* data = luaL_checklstring(L, 1, &length);
  bool failed = false;
  {
    auto value = yamlToJson(std::string(data, length));
    failed = !value.ok();
    if (failed) {
      std::string text = "slurm.from_yaml: " + value.error();
      lua_pushlstring(L, text.data(), text.size());
    } else {
      pushJson(L, *value);
    }
  }
  return finish(L, failed);
}

void setNumber(lua_State* L, const char* name, int value) {
  lua_pushinteger(L, value);
  lua_setfield(L, -2, name);
}

void setFunction(lua_State* L, const char* name, lua_CFunction function) {
  lua_pushcfunction(L, function);
  lua_setfield(L, -2, name);
}

// slurm.<name> = string.format + log at `level`.
void setFormatted(lua_State* L, const char* name, int level) {
  lua_getglobal(L, "string");
  lua_getfield(L, -1, "format");
  lua_remove(L, -2);
  lua_pushinteger(L, level);
  lua_pushfstring(L, "slurm.%s", name);
  lua_pushcclosure(L, luaLogFormatted, 3);
  lua_setfield(L, -2, name);
}

}  // namespace

void logLine(ScriptContext& context, ScriptLogLevel level, const std::string& message) {
  if (context.sink) context.sink(level, "switch/lua: " + context.phase + ": " + message);
}

void installScriptEnvironment(lua_State* L, ScriptContext& context) {
  luaL_openlibs(L);
  lua_pushlightuserdata(L, &context);
  lua_setfield(L, LUA_REGISTRYINDEX, kContextKey);

  lua_newtable(L);
  setNumber(L, "SUCCESS", kSuccess);
  setNumber(L, "ERROR", kError);
  setNumber(L, "FAILURE", kFailure);
  setNumber(L, "EAGAIN", kEagain);
  setFunction(L, "log", luaLog);
  setFunction(L, "error", luaError);
  setFormatted(L, "log_error", kErrorLevel);
  setFormatted(L, "log_info", 0);
  setFormatted(L, "log_verbose", 1);
  setFormatted(L, "log_debug", 2);
  setFormatted(L, "log_debug2", 3);
  setFormatted(L, "log_debug3", 4);
  setFormatted(L, "log_debug4", 5);
  setFunction(L, "to_json", luaToJson);
  setFunction(L, "from_json", luaFromJson);
  setFunction(L, "to_yaml", luaToYaml);
  setFunction(L, "from_yaml", luaFromYaml);
  lua_setglobal(L, "slurm");

  lua_pushcfunction(L, luaPrint);
  lua_setglobal(L, "print");
  lua_getglobal(L, "os");
  setFunction(L, "exit", luaExit);
  lua_pop(L, 1);
}

std::string_view toString(ScriptLogLevel level) {
  switch (level) {
    case ScriptLogLevel::Error: return "error";
    case ScriptLogLevel::Info: return "info";
    case ScriptLogLevel::Verbose: return "verbose";
    case ScriptLogLevel::Debug: return "debug";
    case ScriptLogLevel::Debug2: return "debug2";
    case ScriptLogLevel::Debug3: return "debug3";
    case ScriptLogLevel::Debug4: return "debug4";
  }
  return "info";
}

}  // namespace gantry::switchlua
