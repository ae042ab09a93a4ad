#include "common/switchlua/script_call.h"

#include <algorithm>

#include <lua.hpp>

#include "common/switchlua/lua_json.h"
#include "common/switchlua/messages.h"
#include "common/switchlua/script_state.h"

namespace gantry::switchlua {
namespace {

CallResult failed(CallOutcome outcome, std::string message) {
  CallResult result;
  result.outcome = outcome;
  result.message = std::move(message);
  return result;
}

// The global `name`, read without metamethods: a script that makes unknown
// globals raise (strict mode) must not make that lookup raise outside a
// protected call.
void pushGlobalRaw(lua_State* L, const std::string& name) {
  lua_pushglobaltable(L);
  lua_pushlstring(L, name.data(), name.size());
  lua_rawget(L, -2);
  lua_remove(L, -2);
}

// A number as tostring() writes it ("42", "4.5", "42.0"), converted on a
// copy so that a key lua_next is walking stays a number, and without
// metamethods, which could raise outside a protected call.
std::string numberText(lua_State* L, int index) {
  lua_pushvalue(L, index);
  std::string text = lua_tostring(L, -1);
  lua_pop(L, 1);
  return text;
}

TableEntry entryAt(lua_State* L) {  // key at -2, value at -1
  TableEntry entry;
  entry.keyType = luaL_typename(L, -2);
  if (lua_type(L, -2) == LUA_TSTRING) {
    entry.name = lua_tostring(L, -2);  // already a string: lua_next is not disturbed
    entry.keyText = *entry.name;
  } else if (lua_type(L, -2) == LUA_TNUMBER) {
    entry.keyText = numberText(L, -2);
  } else {
    entry.keyText = std::string("a ") + luaL_typename(L, -2) + " key";
  }
  entry.valueType = luaL_typename(L, -1);
  switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
      size_t length = 0;
      const char* data = lua_tolstring(L, -1, &length);
      entry.kind = EntryValueKind::String;
      entry.text.assign(data, length);
      break;
    }
    case LUA_TNUMBER:
      entry.kind = EntryValueKind::Number;
      entry.text = numberText(L, -1);
      break;
    case LUA_TBOOLEAN: entry.kind = lua_toboolean(L, -1) ? EntryValueKind::True : EntryValueKind::False; break;
    default: entry.kind = EntryValueKind::Other; break;
  }
  return entry;
}

std::vector<TableEntry> entriesOf(lua_State* L, int index) {
  std::vector<TableEntry> entries;
  luaL_checkstack(L, 3, "switch/lua: reading a table");
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    entries.push_back(entryAt(L));
    lua_pop(L, 1);
  }
  std::sort(entries.begin(), entries.end(),
            [](const TableEntry& a, const TableEntry& b) { return a.keyText < b.keyText; });
  return entries;
}

void readSecond(lua_State* L, int index, CallResult& result) {
  if (lua_isnil(L, index)) return;
  if (!lua_istable(L, index)) {
    result.dictionary = DictionaryStatus::Unreadable;
    result.dictionaryProblem = std::string("the second value is a ") + luaL_typename(L, index) + ", not a table";
    return;
  }
  result.secondEntries = entriesOf(L, index);
  LuaRead read = readLuaValue(L, index, kDictionaryLimits);
  switch (read.problem) {
    case ReadProblem::None:
      result.dictionary = DictionaryStatus::Present;
      result.dictionaryJson = read.value.dump();
      return;
    case ReadProblem::Unreadable: result.dictionary = DictionaryStatus::Unreadable; break;
    case ReadProblem::TooLarge: result.dictionary = DictionaryStatus::TooLarge; break;
    case ReadProblem::TooDeep: result.dictionary = DictionaryStatus::TooDeep; break;
  }
  result.dictionaryProblem = read.detail;
}

void readReturns(lua_State* L, int base, CallResult& result) {
  int count = lua_gettop(L) - base;
  if (count >= 1) {
    int first = base + 1;
    result.firstType = luaL_typename(L, first);
    if (lua_type(L, first) == LUA_TNUMBER) result.number = lua_tonumber(L, first);
    if (lua_type(L, first) == LUA_TBOOLEAN) result.boolean = lua_toboolean(L, first) != 0;
  }
  if (count >= 2) readSecond(L, base + 2, result);
}

}  // namespace

CallResult callFunction(const std::filesystem::path& path, const std::string& name, const CallArguments& arguments,
                        const LogSink& sink) {
  std::vector<nlohmann::json> values;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (!arguments[i]) {
      values.emplace_back(nullptr);
      continue;
    }
    auto value = parseJsonText(*arguments[i]);
    if (!value) {
      return failed(CallOutcome::InvalidArgument, "switch/lua: " + name + ": argument " + std::to_string(i + 1) +
                                                      " is not JSON text: " + value.error());
    }
    values.push_back(std::move(*value));
  }

  ScriptContext context{.sink = sink};
  auto state = openScript(path, context);
  if (!state) return failed(CallOutcome::LoadFailed, state.error());
  lua_State* L = state->get();

  pushGlobalRaw(L, name);
  if (lua_isnil(L, -1)) return failed(CallOutcome::NotDefined, "");
  int base = lua_gettop(L) - 1;  // below the function
  luaL_checkstack(L, static_cast<int>(values.size()) + 1, "switch/lua: too many arguments");
  for (const auto& value : values) pushJson(L, value);

  context.phase = name;
  int status = lua_pcall(L, static_cast<int>(values.size()), LUA_MULTRET, 0);
  if (context.exitCalled) return failed(CallOutcome::ScriptExited, std::string(kScriptCalledExit));
  if (status != LUA_OK) return failed(CallOutcome::LuaError, errorText(L, -1));

  CallResult result;
  readReturns(L, base, result);
  return result;
}

bool askBoolean(const std::filesystem::path& path, const std::string& name, const LogSink& sink) {
  CallResult result = callFunction(path, name, {}, sink);
  if (result.outcome == CallOutcome::NotDefined) return false;
  if (result.outcome == CallOutcome::Returned && result.boolean) return *result.boolean;
  if (!sink) return false;
  std::string why = result.outcome == CallOutcome::Returned ? "returned a " + result.firstType + ", not a boolean"
                                                            : result.message;
  if (result.outcome == CallOutcome::LoadFailed) {
    sink(ScriptLogLevel::Error, why + "; " + name + " counted as false");
  } else {
    sink(ScriptLogLevel::Error, "switch/lua: " + name + ": " + why + "; counted as false");
  }
  return false;
}

std::string_view toString(CallOutcome outcome) {
  switch (outcome) {
    case CallOutcome::Returned: return "returned";
    case CallOutcome::NotDefined: return "function not defined";
    case CallOutcome::LuaError: return "Lua error";
    case CallOutcome::ScriptExited: return "script called os.exit";
    case CallOutcome::LoadFailed: return "script does not load";
    case CallOutcome::InvalidArgument: return "invalid argument";
  }
  return "returned";
}

std::string_view toString(DictionaryStatus status) {
  switch (status) {
    case DictionaryStatus::Absent: return "absent";
    case DictionaryStatus::Present: return "present";
    case DictionaryStatus::Unreadable: return "dictionary could not be read";
    case DictionaryStatus::TooLarge: return "dictionary too large";
    case DictionaryStatus::TooDeep: return "dictionary too deep";
  }
  return "absent";
}

}  // namespace gantry::switchlua
