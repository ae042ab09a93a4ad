// One key/value pair of a table a script returned, kept with its Lua types
// so that rules which care about them (the environment table of
// slurm_switch_step_init()) can be applied outside Lua.
#pragma once

#include <optional>
#include <string>

namespace gantry::switchlua {

enum class EntryValueKind { String, Number, True, False, Other };

struct TableEntry {
  std::optional<std::string> name{};  // the key, when it is a string
  std::string keyText{};              // the key as the log should show it (a number's text, or its type)
  std::string keyType{};              // Lua's name for the key's type
  EntryValueKind kind = EntryValueKind::Other;
  std::string text{};       // a string as it is; a number as Lua's tostring() writes it
  std::string valueType{};  // Lua's name for the value's type ("string", "function", ...)
};

}  // namespace gantry::switchlua
