// Lua values to JSON and back: the one conversion behind the dictionary
// returned by slurm_switch_job_start(), the jobinfo/stepinfo handed back to
// the script, and slurm.to_json()/from_json()/to_yaml()/from_yaml().
//
// Lua to JSON (docs/switch-lua-script.md, "Conversions"):
//   nil -> null (only as the whole value: a table cannot hold nil)
//   boolean -> true/false; integer -> integer; float -> number (NaN and
//   infinities cannot be written); string -> string (must be UTF-8)
//   table with the keys 1..n and nothing else -> array, in key order
//   any other table -> object: string keys as they are, integer keys as
//   their decimal text (refused if that text is also a string key of the
//   same table); the empty table -> {}
//   anything else (function, userdata, thread, a boolean or fractional key)
//   cannot be converted.
// JSON to Lua: objects and arrays -> tables (arrays from index 1), null ->
// nil (the entry is left out), integers that fit 64 bits -> Lua integers,
// other numbers -> floats.
//
// Internal to the library: callers outside it see JSON text only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/util/result.h"

struct lua_State;

namespace gantry::switchlua {

struct TableLimits {
  // Key/value pairs counted over every nested table.
  size_t maxEntries = std::numeric_limits<size_t>::max();
  // Levels of tables; the outermost table is level 1.
  int maxDepth = 100;
};

// The spec's limits on the dictionary kept for a job.
inline constexpr TableLimits kDictionaryLimits{.maxEntries = 32768, .maxDepth = 16};
// For the text conversions the script calls itself: no entry limit, and a
// depth guard that stops a table that contains itself.
inline constexpr TableLimits kTextLimits{.maxDepth = 100};

enum class ReadProblem { None, Unreadable, TooLarge, TooDeep };

struct LuaRead {
  nlohmann::json value;
  ReadProblem problem = ReadProblem::None;
  std::string detail;  // where and what, when problem is not None
  bool ok() const { return problem == ReadProblem::None; }
};

// Converts the value at `index` of L's stack. Leaves the stack as it was.
// Raises only on Lua running out of memory.
LuaRead readLuaValue(lua_State* L, int index, const TableLimits& limits);

// Pushes `value` as one Lua value (null as nil).
void pushJson(lua_State* L, const nlohmann::json& value);

// Parses JSON text, refusing arrays and objects nested deeper than
// `maxDepth` (pushing such a value would recurse too deep). The Error says
// what is wrong and where.
Result<nlohmann::json> parseJsonText(std::string_view text, int maxDepth = kTextLimits.maxDepth);

// True when `text` is well-formed UTF-8 (JSON text must be).
bool isUtf8(const std::string& text);

}  // namespace gantry::switchlua
