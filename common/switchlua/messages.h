// Fixed lines the daemons print about switch.lua, in the words the spec
// gives them (docs/switch-lua-script.md).
#pragma once

#include <string_view>

namespace gantry::switchlua {

// Logged through the sink, at info, when loadScript() succeeds.
inline constexpr std::string_view kScriptLoaded = "switchlua: script loaded";

// Printed by a daemon after the "error: switch/lua: ..." line of a script
// that cannot be loaded, as it stops (gantryctld) or fails the step
// (gantrystepd). kFatalMessage is the text for a logger that writes the
// "fatal:" level itself; kFatalLine is the whole line for one that does not.
inline constexpr std::string_view kFatalMessage = "Can't find plugin for switch/lua";
inline constexpr std::string_view kFatalLine = "fatal: Can't find plugin for switch/lua";

// The message of a call that ended in os.exit(), in a test or wherever the
// call runs in the daemon's own process.
inline constexpr std::string_view kScriptCalledExit = "script called os.exit";

}  // namespace gantry::switchlua
