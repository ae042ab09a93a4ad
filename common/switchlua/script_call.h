// One call of a switch.lua function, on a Lua state loaded from the file for
// that call alone: an edit of the script is seen by the next call, and no
// global survives from one call to the next.
//
// The call runs in the caller's thread and process. The daemons are to run
// slurm_switch_job_start() and slurm_switch_job_complete() in a child
// process of their own, which a timeout can kill (the next step of the
// switch/lua work; docs/switch-lua-script.md). Until then nothing bounds a
// call's time, and os.exit() is caught here rather than ending the process.
//
// Thread safety: calls share nothing (each has its own Lua state and log
// context), so several threads may call at once; the sink must cope.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/switchlua/script_log.h"
#include "common/switchlua/table_entry.h"

namespace gantry::switchlua {

// Arguments travel as JSON text (what a child process will receive on a
// pipe): an object or array becomes a table; std::nullopt is nil.
using CallArguments = std::vector<std::optional<std::string>>;

enum class CallOutcome {
  Returned,         // the function returned; see the values below
  NotDefined,       // the script has no such global (not an error: nothing to do)
  LuaError,         // the function raised; message says what
  ScriptExited,     // the script called os.exit(); message is kScriptCalledExit
  LoadFailed,       // the file no longer loads; message is its "switch/lua: ..." line
  InvalidArgument,  // an argument is not JSON text; nothing was called
};

// The second return value, as the dictionary kept for a job.
enum class DictionaryStatus {
  Absent,      // nil, or not returned
  Present,     // converted: dictionaryJson holds it
  Unreadable,  // not a table, or holds something that cannot be converted
  TooLarge,    // more than 32768 entries, counted over every nested table
  TooDeep,     // tables nested more than 16 levels
};

struct CallResult {
  CallOutcome outcome = CallOutcome::Returned;
  std::string message;  // for every outcome but Returned and NotDefined

  // The first return value: its Lua type ("no value" when nothing was
  // returned), and the value when it is a number or a boolean.
  std::string firstType = "no value";
  std::optional<double> number;
  std::optional<bool> boolean;

  DictionaryStatus dictionary = DictionaryStatus::Absent;
  std::string dictionaryJson;     // when Present
  std::string dictionaryProblem;  // when refused: what is wrong and where
  // The top-level pairs of a second value that is a table, whatever the
  // dictionary rules made of it (sorted by key text).
  std::vector<TableEntry> secondEntries;
};

// Loads `path` afresh, calls the global function `name` with `arguments`
// and reports how it went. Lines the script logs go to `sink`, prefixed
// "switch/lua: top level: " while the file loads and "switch/lua: <name>: "
// during the call. Never throws; a script cannot crash the caller (short
// of exhausting its memory).
CallResult callFunction(const std::filesystem::path& path, const std::string& name, const CallArguments& arguments,
                        const LogSink& sink);

// For slurm_switch_block_job_complete() and slurm_switch_setup_special_steps():
// true only when the function returns the boolean true. An undefined
// function is false without a word; an error, os.exit, a script that does
// not load or a value that is not a boolean is false and logged at error.
bool askBoolean(const std::filesystem::path& path, const std::string& name, const LogSink& sink);

std::string_view toString(CallOutcome outcome);
std::string_view toString(DictionaryStatus status);

}  // namespace gantry::switchlua
